#!/usr/bin/env python
"""A burst of 200 votes over HTTP around a deadline, under gunicorn on PostgreSQL.

25 games of 8 seats are put in their day phase with the same deadline T. 200 voters POST
their vote at times spread over [T - window, T + 1 s] (default window 8 s) while a sweeper
runs every 200 ms.
Afterwards the script checks, from the database:
  - every vote the server answered "ok" is in the log (nothing lost);
  - no vote in the log arrived after T (nothing late);
  - every vote sent more than 300 ms before T was counted;
  - every phase advanced exactly once.
Prints the counts and the request latency percentiles, beside a baseline run first on the
same server: the same senders on the same schedule asking for the trivial view.

    .venv/bin/python scripts/bench_vote_burst.py [--workers 4]
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/killinggames_bench")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.update(LOG_LEVEL="WARNING", RATE_LIMITS="false", DEBUG="false",
                  EXTRA_RULESETS="tests.toy:register")

GAMES, SEATS = 25, 8


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=8,
                        help="threads per worker (gthread); 1: sync workers")
    parser.add_argument("--window", type=float, default=8.0,
                        help="votes are sent over [T - window, T + 1 s]")
    args = parser.parse_args()
    from bench_http import ensure_database, free_port

    ensure_database(os.environ["DATABASE_URL"])
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.sessions.backends.db import SessionStore
    from django.core.management import call_command
    from django.middleware.csrf import _get_new_csrf_string
    from django.utils import timezone

    call_command("migrate", verbosity=0)
    from accounts.models import Profile
    from games import services
    from games.models import Action, Game, Phase

    User = get_user_model()
    Game.objects.filter(name__startswith="burst-").delete()
    gm = User.objects.get_or_create(username="burst-gm", defaults={"is_staff": True})[0]
    users = []
    for i in range(GAMES * SEATS):
        u = User.objects.get_or_create(username=f"burst{i}")[0]
        Profile.objects.get_or_create(user=u, defaults={"display_name": f"burst{i}"})
        users.append(u)
    games = []
    for g in range(GAMES):
        game = services.create_game(name=f"burst-{g}", ruleset="toy", gm=gm, seat_count=SEATS,
                                    early_end=False)
        services.start_game(game_id=game.pk, users=users[g * SEATS:(g + 1) * SEATS])
        services.end_phase_now(game_id=game.pk, gm=gm)  # night -> day
        games.append(Game.objects.get(pk=game.pk))
    port = free_port()
    kind = ["--worker-class", "gthread", "--threads", str(args.threads)] \
        if args.threads > 1 else ["--worker-class", "sync"]
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "-b", f"127.0.0.1:{port}",
         "-w", str(args.workers), *kind, "--log-level", "warning"],
        cwd=ROOT, env=dict(os.environ))
    time.sleep(3)

    requests = []
    for game in games:
        seats = list(game.seats.filter(alive=True).order_by("number"))
        for seat in seats:
            store = SessionStore()
            store[SESSION_KEY] = str(seat.user.pk)
            store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
            store[HASH_SESSION_KEY] = seat.user.get_session_auth_hash()
            store.create()
            # Everything a sender needs is read here: a sender thread that touched the ORM
            # would open its own database connection (200 of them: "too many clients").
            requests.append({"game": game, "seat": seat, "session": store.session_key,
                             "csrf": _get_new_csrf_string(), "target": seats[0].number,
                             "phase": game.current_phase.seq})
    # The baseline, on the same server before the votes: the same 200 senders on the same
    # schedule asking for the trivial view (/healthz) with the same sessions, so the votes'
    # latency can be read as a ratio to what any request costs on this machine now.
    base_start = time.time() + 1.0
    baseline = [{"session": r["session"], "send_at": base_start + (args.window + 1.0) * i / len(requests)}
                for i, r in enumerate(requests)]

    def trivial(b):
        time.sleep(max(0.0, b["send_at"] - time.time()))
        b["sent"] = time.time()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", "/healthz", headers={"Cookie": f"sessionid={b['session']}",
                                                 "Host": f"127.0.0.1:{port}"})
        response = conn.getresponse()
        response.read()
        b["status"] = response.status
        b["done"] = time.time()

    base_threads = [threading.Thread(target=trivial, args=(b,)) for b in baseline]
    for t in base_threads:
        t.start()
    for t in base_threads:
        t.join(120)
    # The deadline is set once the sessions exist (making 200 of them takes seconds on a
    # busy machine, which used to eat the whole window: every vote was sent after T).
    deadline = timezone.now() + dt.timedelta(seconds=args.window + 4)
    for game in games:
        Game.objects.filter(pk=game.pk).update(deadline=deadline)
        Phase.objects.filter(pk=game.current_phase_id).update(deadline=deadline)
    T = deadline.timestamp()
    n = len(requests)
    for i, r in enumerate(requests):
        r["send_at"] = T - args.window + (args.window + 1.0) * i / n
    requests.sort(key=lambda r: r["send_at"])

    def fire(r):
        time.sleep(max(0.0, r["send_at"] - time.time()))
        r["sent"] = time.time()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        body = urlencode({"target": r["target"], "phase": r["phase"],
                          "csrfmiddlewaretoken": r["csrf"]})
        conn.request("POST", f"/games/{r['game'].pk}/vote/", body, {
            "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json",
            "Cookie": f"sessionid={r['session']}; csrftoken={r['csrf']}",
            "Referer": f"http://127.0.0.1:{port}/", "Host": f"127.0.0.1:{port}"})
        response = conn.getresponse()
        r["status"] = response.status
        r["body"] = response.read().decode()
        r["done"] = time.time()

    stop = threading.Event()

    def sweeper():
        while not stop.is_set():
            services.sweep()
            time.sleep(0.2)

    sweep_thread = threading.Thread(target=sweeper)
    threads = [threading.Thread(target=fire, args=(r,)) for r in requests]
    sweep_thread.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    time.sleep(settings.SWEEP_GRACE_SECONDS + 1)
    stop.set()
    sweep_thread.join()
    server.terminate()
    server.wait(10)

    ok = [r for r in requests if r.get("status") == 200]
    refused = [r for r in requests if r.get("status") == 409]
    other = [r for r in requests if r.get("status") not in (200, 409)]
    logged = {(a.game_id, a.seat.number): a for a in Action.objects.filter(
        game__in=games, kind="vote").select_related("seat")}
    lost = [r for r in ok if (r["game"].pk, r["seat"].number) not in logged]
    late = [a for a in logged.values() if a.received_at >= deadline]
    early_refused = [r for r in refused if r["sent"] < T - 0.3]
    advances = [Action.objects.filter(game=g, actor="clock").count() for g in games]
    latency = sorted((r["done"] - r["sent"]) * 1000 for r in requests if "done" in r)
    print(f"votes sent: {n} over [T-{args.window:g}s, T+1s], gunicorn workers={args.workers} "
          f"x {args.threads} threads, PostgreSQL, cache {os.environ.get('REDIS_URL', 'database')}")
    print(f"accepted: {len(ok)}  refused: {len(refused)}  other statuses: {len(other)}")
    print(f"sent before T: {sum(r['sent'] < T for r in requests)}, "
          f"after T: {sum(r['sent'] >= T for r in requests)}")
    print(f"accepted but missing from the log (lost): {len(lost)}")
    print(f"in the log but arrived after the deadline (late): {len(late)}")
    print(f"refused although sent >300 ms before T: {len(early_refused)}")
    reasons = {}
    for r in refused:
        key = ("before T: " if r["sent"] < T else "after T: ") + r["body"][:80]
        reasons[key] = reasons.get(key, 0) + 1
    for key, count in sorted(reasons.items()):
        print(f"  refused {count:3d} × {key}")
    print(f"clock steps per game (day ended): min {min(advances)}, max {max(advances)}")
    base_latency = sorted((b["done"] - b["sent"]) * 1000 for b in baseline if "done" in b)

    def p95(values):
        return values[int(len(values) * .95) - 1]

    print(f"latency ms p50 {statistics.median(latency):.0f}, "
          f"p95 {p95(latency):.0f}, max {latency[-1]:.0f}  (target p95 < 500)")
    print(f"baseline, the same schedule to /healthz signed in: p50 "
          f"{statistics.median(base_latency):.0f}, p95 {p95(base_latency):.0f} ms; "
          f"ratio vote p95 / baseline p95: {p95(latency) / max(p95(base_latency), 0.1):.1f}")
    Game.objects.filter(name__startswith="burst-").delete()
    if any(b.get("status") != 200 for b in baseline):
        sys.exit("the baseline's trivial view did not answer 200")
    if lost or late or early_refused or other or max(advances) != 2:
        sys.exit(1)


if __name__ == "__main__":
    main()
