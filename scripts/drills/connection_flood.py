#!/usr/bin/env python
"""Drill: many slow clients hold the web server's threads while a night's deadline passes.
The game clock keeps time, and the database connections stay within the configured bound.

How connections are bounded (docs/operations.md "Database connections"): each process
borrows its connections from a pool of its own of at most DB_POOL_MAX (here --threads), so
the web server holds at most workers x threads; a Celery worker one per process of its pool. A slow client (here: a
signed-in POST whose body trickles in a byte a second) holds a thread, and its connection,
from the moment the middleware reads its session until the body is complete.

1. GAMES toy games whose night falls due --night seconds after the start (the day after it
   lasts an hour); gunicorn (gthread, --workers x --threads) and one Celery worker with an
   embedded beat, all on the drill's own database and REDIS_URL.
2. --clients slow clients (100) open their connections at once and keep trickling until the
   nights are due plus the allowed lag, plus a few seconds.
3. Meanwhile the connections to the drill's database are counted every half second
   (pg_stat_activity).

What must hold: every night ended once, at or after its deadline and within
SWEEP_INTERVAL_SECONDS + SWEEP_GRACE_SECONDS + 2 s of it (checks.check_games with max_lag);
the most connections seen <= workers x threads + 1 (the Celery worker, pool solo) + 1 (this
drill's counter) + 1 (this drill's own Django connection).

    .venv/bin/python scripts/drills/connection_flood.py [--clients 100] [--workers 2]
        [--threads 4] [--night 20]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/killinggames_drill")
import checks  # noqa: E402
import common  # noqa: E402  (sets the drill's environment before Django)

GAMES = 3


def slow_client(port: int, path: str, session: str, csrf: str, until: float,
                opened: list, lock: threading.Lock) -> None:
    """A signed-in POST whose body comes a byte a second until `until`, then the socket is
    closed (the request never completes)."""
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    except OSError:
        return
    with lock:
        opened.append(1)
    try:
        sock.sendall((f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                      f"Cookie: sessionid={session}; csrftoken={csrf}\r\n"
                      "Content-Type: application/x-www-form-urlencoded\r\n"
                      f"Referer: http://127.0.0.1:{port}/\r\n"
                      "Content-Length: 100000\r\n\r\n").encode())
        while time.time() < until:
            sock.sendall(b"a")
            time.sleep(1)
    except OSError:
        pass
    finally:
        sock.close()


def count_connections(dbname: str, until: float, seen: list) -> None:
    import psycopg

    url = os.environ["DATABASE_URL"]
    with psycopg.connect(url, autocommit=True) as conn:
        while time.time() < until:
            n = conn.execute("select count(*) from pg_stat_activity where datname = %s",
                             (dbname,)).fetchone()[0]
            seen.append(n)
            time.sleep(0.5)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--night", type=float, default=20, help="seconds to the nights' deadline")
    args = parser.parse_args()
    from bench_http import free_port

    os.environ.update(SWEEP_INTERVAL_SECONDS="2", SWEEP_GRACE_SECONDS="1",
                      ALLOWED_HOSTS="127.0.0.1,localhost", DB_POOL="true",
                      DB_POOL_MAX=str(args.threads))
    common.setup_django()
    from django.conf import settings
    from django.db import connection
    from loadtest.bot_sessions import sessions_for
    from loadtest.check import phase_lag

    from games.models import Game

    started = time.time()
    games = common.toy_games("flood-", GAMES, minutes=args.night / 60)
    ids = [g.pk for g in games]
    Game.objects.filter(pk__in=ids).update(durations={"night": args.night / 60, "day": 60})
    users = list({seat.user for g in games for seat in g.seats.select_related("user")})
    sessions = sessions_for(users)
    deadline = max(g.deadline for g in Game.objects.filter(pk__in=ids)).timestamp()
    max_lag = settings.SWEEP_INTERVAL_SECONDS + settings.SWEEP_GRACE_SECONDS + 2
    bound = args.workers * args.threads + 3
    dbname = settings.DATABASES["default"]["NAME"]
    port = free_port()
    var = Path(os.environ["VAR_DIR"])
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    web = subprocess.Popen([sys.executable, "-m", "gunicorn", "config.wsgi", "-b",
                            f"127.0.0.1:{port}", "-k", "gthread", "-w", str(args.workers),
                            "--threads", str(args.threads), "--timeout", "120",
                            "--log-level", "warning"], cwd=common.ROOT, env=env,
                           stdout=open(var / "web.log", "w"), stderr=subprocess.STDOUT,
                           start_new_session=True)
    common.PROCESSES.append(web)
    connection.close()
    seen: list[int] = []
    opened: list[int] = []
    try:
        common.worker("flood-worker", beat=True)
        if not common.wait_until(lambda: common.answers(port), 60, 0.2):
            raise SystemExit("gunicorn did not answer")
        until = deadline + max_lag + 5
        counter = threading.Thread(target=count_connections, args=(dbname, until, seen))
        counter.start()
        lock = threading.Lock()
        clients = []
        for i in range(args.clients):
            user = users[i % len(users)]
            session, csrf = sessions[user.pk]
            game = ids[i % len(ids)]
            clients.append(threading.Thread(target=slow_client, args=(
                port, f"/games/{game}/act/", session, csrf, until, opened, lock)))
        for t in clients:
            t.start()
        for t in clients:
            t.join()
        counter.join()
        time.sleep(1)
    finally:
        common.stop_all()
    result = checks.check_games(ids, max_lag=max_lag)
    lags = phase_lag(ids)
    common.stop_games(ids)
    most = max(seen) if seen else 0
    print(f"gunicorn gthread {args.workers} x {args.threads}, {args.clients} slow clients "
          f"({len(opened)} connected), nights due {args.night:g} s after the start, sweep "
          f"every {settings.SWEEP_INTERVAL_SECONDS} s, grace {settings.SWEEP_GRACE_SECONDS} s")
    print(f"  nights ended: {result['phases ended']} of {GAMES}; lag after the deadline: "
          f"{', '.join(f'{lag:.1f} s' for lag in sorted(lags)) or 'none'} (at most "
          f"{max_lag} s); ended twice or early: {result['double advances']}, "
          f"{result['ended before the deadline']}")
    print(f"  connections to {dbname}: at most {most} (bound {bound} = {args.workers} x "
          f"{args.threads} + worker + the drill's two), {len(seen)} samples")
    for line in result["problems"][:10]:
        print("   ", line)
    print(f"  the drill took {time.time() - started:.0f} s")
    good = (result["phases ended"] == GAMES and not result["problems"] and 0 < most <= bound
            and len(opened) == args.clients)
    print("SURVIVED" if good else "FAILED")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
