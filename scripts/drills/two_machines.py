#!/usr/bin/env python
"""Drill: the service as it runs on several machines (issue 16 item 10).

Two gunicorn instances on two ports, two Celery workers and ONE beat, all against one
PostgreSQL database and one Redis (this drill's own database, `kg_two_machines`, and Redis
db 13 by default). The drill:
1. starts GAMES toy games with short phases (--phase seconds);
2. drives a load over both web instances for --seconds: anonymous readers of the game pages
   and the game list, split evenly between the two ports;
3. stops everything and checks, from the database alone (common.check_games): every ended
   phase was ended by exactly one clock step, phases numbered without gap or double, every
   state the replay of its log (nothing lost or half-written); and every request answered.

    .venv/bin/python scripts/drills/two_machines.py [--games 20] [--seconds 60]
"""

from __future__ import annotations

import argparse
import collections
import http.client
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/kg_two_machines")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/13")
os.environ.setdefault("CELERY_BROKER_URL", os.environ["REDIS_URL"])
import common  # noqa: E402  (sets the drill's environment before Django)


def gunicorn(port: int) -> subprocess.Popen:
    out = open(Path(os.environ["VAR_DIR"]) / f"web-{port}.log", "w")
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "config.wsgi", "-b",
                             f"127.0.0.1:{port}", "-w", "2", "--access-logfile", "-"],
                            cwd=common.ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                            start_new_session=True)
    common.PROCESSES.append(proc)
    return proc


def reader(port: int, paths: list[str], until: float, results: collections.Counter,
           lock: threading.Lock) -> None:
    n = 0
    while time.time() < until:
        path = paths[n % len(paths)]
        n += 1
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
            conn.request("GET", path)
            status = conn.getresponse().status
            conn.close()
        except OSError as exc:
            status = type(exc).__name__
        with lock:
            results[(port, status)] += 1


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--phase", type=float, default=6, help="phase length in seconds")
    parser.add_argument("--readers", type=int, default=4, help="readers per web instance")
    args = parser.parse_args()
    from bench_http import free_port

    os.environ.update(ALLOWED_HOSTS="127.0.0.1,localhost")
    common.setup_django()
    import redis
    from django.conf import settings

    redis.Redis.from_url(os.environ["REDIS_URL"]).flushdb()
    from games.models import Action

    games = common.toy_games("twom", args.games, args.phase / 60)
    ports = [free_port(), free_port()]
    for port in ports:
        gunicorn(port)
    common.worker("w1", beat=False)
    common.worker("w2", beat=False)
    common.beat("beat")
    assert common.wait_until(lambda: all(_up(p) for p in ports), 60), "web did not start"
    paths = ["/games/"] + [f"/games/{g.pk}/" for g in games]
    results: collections.Counter = collections.Counter()
    lock = threading.Lock()
    until = time.time() + args.seconds
    threads = [threading.Thread(target=reader, args=(port, paths, until, results, lock))
               for port in ports for _i in range(args.readers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    time.sleep(args.phase + 3)  # let the last due phase be swept
    common.stop_all()

    from django.db import connection

    connection.close()
    checked = common.check_games(games)
    clock = Action.objects.filter(game__in=games, actor="clock").count()
    print(f"database {settings.DATABASES['default']['NAME']}, redis {os.environ['REDIS_URL']}")
    for port in ports:
        answers = {k[1]: v for k, v in results.items() if k[0] == port}
        print(f"web :{port}: {sum(answers.values())} requests, {answers}")
    print(f"games {checked['games']}, phases ended {checked['phases ended']}, clock steps "
          f"{clock}, double advances {checked['double advances']}, bad {checked['bad']}")
    bad_answers = sum(v for k, v in results.items() if k[1] != 200)
    good = (checked["double advances"] == 0 and not checked["bad"] and bad_answers == 0
            and checked["phases ended"] > 0 and clock == checked["phases ended"])
    print("PASS" if good else "FAIL")
    return 0 if good else 1


def _up(port: int) -> bool:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        conn.request("GET", "/healthz")
        return conn.getresponse().status == 200
    except OSError:
        return False


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        common.stop_all()
