#!/usr/bin/env python
"""Where a page's time goes: cProfile over N requests through Django's test client.

Run scripts/bench_http.py once first (it seeds the bench thread, board and game in the
same database). Prints the queries of one request and the functions with the most
cumulative time (the part below Django's handler, so the view, templates and middleware).

    DATABASE_URL=... .venv/bin/python scripts/profile_page.py /t/1/?page=3 [--signed-in]
        [--requests 50] [--sort cumulative|tottime] [--callees FUNCTION] [--time-only]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("path")
    parser.add_argument("--signed-in", action="store_true")
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--sort", default="cumulative")
    parser.add_argument("--lines", type=int, default=45)
    parser.add_argument("--callees", metavar="FUNCTION",
                        help="print what the functions matching FUNCTION called instead")
    parser.add_argument("--time-only", action="store_true",
                        help="no profile: the page's time against /healthz, same client")
    args = parser.parse_args()
    os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/killinggames_bench")
    os.environ.update(DEBUG="false", RATE_LIMITS="false", LOG_LEVEL="WARNING",
                      EXTRA_RULESETS="tests.toy:register",
                      DJANGO_SETTINGS_MODULE="config.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_SEC_FETCH_MODE="navigate", HTTP_SEC_FETCH_DEST="document",
                    HTTP_HOST="127.0.0.1")
    if args.signed_in:
        client.force_login(get_user_model().objects.get(username="bench-reader"))
    response = client.get(args.path)
    assert response.status_code == 200, response.status_code
    with CaptureQueriesContext(connection) as ctx:
        client.get(args.path)
    print(f"{len(ctx)} queries, {len(response.content)} bytes")
    for q in ctx.captured_queries:
        print("  ", q["sql"][:150])
    if args.time_only:
        import statistics
        import time

        def per_request(path):
            samples = []
            for _ in range(args.requests):
                t = time.perf_counter()
                client.get(path)
                samples.append(time.perf_counter() - t)
            return statistics.median(samples)

        for _ in range(2):
            base, page = per_request("/healthz"), per_request(args.path)
            print(f"/healthz {base * 1000:.2f} ms, page {page * 1000:.2f} ms, "
                  f"ratio {base / page:.3f}")
        return
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(args.requests):
        client.get(args.path)
    prof.disable()
    stats = pstats.Stats(prof).sort_stats(args.sort)
    if args.callees:
        stats.print_callees(args.callees)
    else:
        stats.print_stats(args.lines)


if __name__ == "__main__":
    main()
