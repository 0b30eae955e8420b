#!/usr/bin/env python
"""The sweeper at scale: 10,000 running games in PostgreSQL, 100 of them due.

Prints, in one run: the time of one sweep that advances the 100 due games, the time of an
idle sweep (nothing due), and the time of a single indexed SELECT on the same partial index,
with the ratios. Uses DATABASE_URL, default postgres://postgres@127.0.0.1:5432/killinggames_bench
(created if missing).

    .venv/bin/python scripts/bench_sweep.py [--games 10000] [--due 100]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/killinggames_bench")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("LOG_LEVEL", "WARNING")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--due", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()

    from bench_http import ensure_database  # same folder

    ensure_database(os.environ["DATABASE_URL"])
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    from django.contrib.auth import get_user_model

    from games import services
    from games.models import Game
    from tests import toy

    toy.register()
    User = get_user_model()
    Game.objects.filter(name__startswith="bench-").delete()
    users = [User.objects.get_or_create(username=f"bench{i}")[0] for i in range(5)]
    gm = User.objects.get_or_create(username="bench-gm", defaults={"is_staff": True})[0]

    t0 = time.perf_counter()
    due = []
    for i in range(args.due):
        g = services.create_game(name=f"bench-due-{i}", ruleset="toy", gm=gm, seat_count=5)
        due.append(services.start_game(game_id=g.pk, users=users))
    template = due[0]
    future = max(g.deadline for g in due) + dt.timedelta(days=1)
    Game.objects.bulk_create([
        Game(name=f"bench-idle-{i}", ruleset="toy", seat_count=5, status="running",
             state=template.state, phase_name="night", phase_number=1, deadline=future)
        for i in range(args.games - args.due)], batch_size=2000)
    setup = time.perf_counter() - t0
    with connection.cursor() as c:
        c.execute("ANALYZE games_game")
    running = Game.objects.filter(status="running").count()
    print(f"setup: {running} running games ({args.due} due) in {setup:.1f} s")

    from django.conf import settings

    # The sweep leaves a game alone for SWEEP_GRACE_SECONDS after its deadline (a player's
    # last-second step may still be in flight), so "now" is one second past the grace of the
    # last due game, and the SELECT below asks for the same cut-off as the sweep's.
    grace = dt.timedelta(seconds=settings.SWEEP_GRACE_SECONDS)
    now = max(g.deadline for g in due) + grace + dt.timedelta(seconds=1)
    cutoff = now - grace

    def select_once():
        return list(Game.objects.filter(status="running", deadline__lte=cutoff)
                    .order_by("deadline").values_list("id", "version")[:100])

    t = time.perf_counter()
    advanced = services.sweep(now=now, limit=args.due)
    busy = time.perf_counter() - t
    if advanced != args.due:
        raise SystemExit(f"the sweep advanced {advanced} of {args.due} due games")

    def timed(fn):
        samples = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - t)
        return statistics.median(samples)

    idle = timed(lambda: services.sweep(now=now))
    select = timed(select_once)
    plan = " / ".join(line.strip() for line in Game.objects.filter(
        status="running", deadline__lte=cutoff).order_by("deadline").values("id", "version")[:100]
        .explain().splitlines())
    print(f"sweep advancing {args.due} due games: {busy * 1000:8.1f} ms "
          f"({busy / args.due * 1000:.1f} ms per game)")
    print(f"idle sweep (nothing due):      {idle * 1000:8.3f} ms (median of {args.repeat})")
    print(f"single indexed SELECT:         {select * 1000:8.3f} ms (median of {args.repeat})")
    print(f"ratio idle sweep / SELECT:     {idle / select:8.2f}")
    print(f"ratio busy sweep / SELECT:     {busy / select:8.0f}")
    print(f"plan: {plan}")
    Game.objects.filter(name__startswith="bench-").delete()


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "scripts"))
    main()
