#!/usr/bin/env python
"""The soak test: `make run` as a person starts it, for hours, with games on a short clock.

Not part of CI (it runs for hours); its figures are in docs/operations.md ("Soak").

1. `python -m config.devstack run` (what `make run` runs) in a folder of its own (VAR_DIR,
   default var/soak): its own PostgreSQL and Redis, the web server, a Celery worker and beat,
   supervised. The soak changes nothing in it but three settings: phases end only at their
   deadline, the write rate limits are off (the bots post faster than a person), and the
   logs are at INFO.
2. `--games` games of 猫有n条命 (6 seats, every phase `--phase-minutes` long), a signed-in
   session per seat; a game that ends is replaced by a new one for the same six players, so
   `--games` games run the whole time.
3. Bots (locust, scripts/loadtest/locustfile.py, one per seat) read pages, post, act and vote
   with `--wait` seconds between requests, for `--minutes`.
4. Afterwards: every phase of every game advanced exactly once, at its deadline (lag from the
   deadline to the clock's step under SWEEP_INTERVAL_SECONDS + grace + 5 s), every step a
   bot was told was accepted is in the log (scripts/loadtest/check.py), the supervisor
   restarted nothing, and no log line is an ERROR, a CRITICAL or a traceback. Prints the
   figures; exits 1 if a check failed.

    .venv/bin/python scripts/soak.py                        # 2 hours, 6 games, 3-min phases
    .venv/bin/python scripts/soak.py --minutes 10 --phase-minutes 1    # a short look
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOADTEST = ROOT / "scripts" / "loadtest"
sys.path[:0] = [str(ROOT), str(LOADTEST), str(ROOT / "scripts")]
os.environ.setdefault("VAR_DIR", str(ROOT / "var" / "soak"))
os.environ.pop("DATABASE_URL", None)   # devstack starts the soak's own servers
os.environ.pop("REDIS_URL", None)
os.environ.update(DJANGO_SETTINGS_MODULE="config.settings", RATE_LIMITS="false",
                  LOG_LEVEL="INFO", EMAIL_URL="consolemail://")

from config import devstack  # noqa: E402  (the path above)

BAD_LINE = re.compile(r"\b(ERROR|CRITICAL)\b|Traceback \(most recent call last\)")
SEATS = 6


def log(text: str) -> None:
    print(f"{time.strftime('%H:%M:%SZ', time.gmtime())} {text}", flush=True)


def start_stack(port: int) -> subprocess.Popen:
    """`make run`'s supervisor, its own output (the web server's too) in supervisor.log."""
    var = Path(os.environ["VAR_DIR"])
    var.mkdir(parents=True, exist_ok=True)
    out = open(var / "supervisor.log", "w")
    return subprocess.Popen([sys.executable, "-m", "config.devstack", "run", "--port", str(port)],
                            cwd=ROOT, env=dict(os.environ), stdout=out, stderr=subprocess.STDOUT,
                            start_new_session=True)


def wait_for(port: int, seconds: float) -> float:
    import socket

    began = time.monotonic()
    while time.monotonic() - began < seconds:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return time.monotonic() - began
        time.sleep(0.5)
    raise SystemExit(f"the web server did not listen on {port} within {seconds:.0f} s")


def new_game(users, gm, index: int, phase_minutes: float) -> tuple:
    """A running game of `users` (6) and its discussion thread."""
    from games import services
    from messaging import services as forum
    from messaging.models import Thread

    minutes = {"night": phase_minutes, "day": phase_minutes, "runoff": phase_minutes}
    game = services.create_game(name=f"soak-{index}", ruleset="ninelives", gm=gm,
                                seat_count=SEATS, durations=minutes, early_end=False,
                                change_cutoff_minutes=0)
    game = services.start_game(game_id=game.pk, users=users)
    thread = forum.start_thread(board=game.board, author=users[0], kind=Thread.Kind.DISCUSSION,
                                title="讨论", body="大家好。", enforce_rate_limit=False)
    return game, thread


def seat_records(game, thread, users, sessions: dict) -> list[dict]:
    return [{"session": sessions[u.pk][0], "csrf": sessions[u.pk][1], "game": game.pk,
             "seat": seat, "board": game.board.slug, "thread": thread.pk}
            for seat, u in enumerate(users)]


def write_players(path: Path, records: list[dict]) -> None:
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(records), encoding="utf-8")
    temporary.replace(path)  # the bots re-read it whole, never half-written


def bad_lines(folder: Path) -> list[str]:
    found = []
    for path in sorted(folder.glob("*.log")) + sorted((folder / "log").glob("*.log")):
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if BAD_LINE.search(line):
                found.append(f"{path.name}:{n}: {line[:200]}")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--minutes", type=float, default=120.0)
    parser.add_argument("--phase-minutes", type=float, default=3.0)
    parser.add_argument("--wait", default="5,20", help="seconds between a bot's requests")
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    var = Path(os.environ["VAR_DIR"])

    began = time.monotonic()
    stack = start_stack(args.port)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        startup = wait_for(args.port, 300)
        log(f"make run's stack serving after {startup:.1f} s")
        os.environ["DATABASE_URL"] = devstack.database_url()
        os.environ["REDIS_URL"] = devstack.redis_url()
        import django

        django.setup()
        from bot_sessions import sessions_for
        from django.conf import settings
        from django.contrib.auth import get_user_model
        from django.db import close_old_connections

        User = get_user_model()
        gm = User.objects.get_or_create(username="soak-gm", defaults={"is_staff": True})[0]
        groups, games, threads, all_games = [], [], [], []
        for g in range(args.games):
            users = [User.objects.get_or_create(username=f"soak-p{g * SEATS + s}")[0]
                     for s in range(SEATS)]
            groups.append(users)
        sessions = sessions_for([u for users in groups for u in users])
        for g, users in enumerate(groups):
            game, thread = new_game(users, gm, g, args.phase_minutes)
            games.append(game)
            threads.append(thread)
            all_games.append(game.pk)
        players_file, accepted_file = var / "players.json", var / "accepted.jsonl"

        def records() -> list[dict]:
            rows = []
            for game, thread, users in zip(games, threads, groups, strict=True):
                rows += seat_records(game, thread, users, sessions)
            return sorted(rows, key=lambda r: (r["seat"], r["game"]))

        write_players(players_file, records())
        env = dict(os.environ, LOADTEST_PLAYERS=str(players_file), LOADTEST_FOLLOW="1",
                   LOADTEST_ACCEPTED=str(accepted_file), LOADTEST_WAIT=args.wait)
        users = SEATS * args.games
        locust = subprocess.Popen(
            [str(Path(sys.executable).parent / "locust"), "-f", str(LOADTEST / "locustfile.py"),
             "--headless", "--only-summary", "-u", str(users), "-r", "2",
             "-t", f"{int(args.minutes * 60)}s", "--host", f"http://127.0.0.1:{args.port}",
             "--csv", str(var / "locust"), "--loglevel", "WARNING"],
            cwd=ROOT, env=env, stdout=open(var / "locust.log", "w"), stderr=subprocess.STDOUT)
        log(f"{args.games} games, phases of {args.phase_minutes:g} min, {users} bots for "
            f"{args.minutes:g} min (logs in {var})")
        next_note = time.monotonic() + 600
        from games.models import Game

        while locust.poll() is None:
            time.sleep(15)
            close_old_connections()
            for i, game in enumerate(games):
                game.refresh_from_db()
                if not game.is_live:
                    games[i], threads[i] = new_game(groups[i], gm, len(all_games),
                                                    args.phase_minutes)
                    all_games.append(games[i].pk)
                    write_players(players_file, records())
                    log(f"game {game.pk} ended; game {games[i].pk} replaces it")
            if time.monotonic() >= next_note:
                next_note += 600
                ended = Game.objects.filter(pk__in=all_games).values_list("version", flat=True)
                log(f"{len(all_games)} games so far, {sum(ended)} advances")
        # A deadline passed in the last seconds is advanced by the next sweeps.
        time.sleep(settings.SWEEP_INTERVAL_SECONDS + settings.SWEEP_GRACE_SECONDS + 10)
        close_old_connections()
        from check import check_games, percentile, phase_lag

        accepted = [json.loads(line) for line in accepted_file.read_text().splitlines()
                    if "outcomes" not in line]
        checks = check_games(all_games, accepted)
        lag = phase_lag(all_games)
        limit = settings.SWEEP_INTERVAL_SECONDS + settings.SWEEP_GRACE_SECONDS + 5
        late = [x for x in lag if x > limit]
    finally:
        stack.send_signal(signal.SIGINT)
        try:
            stack.wait(120)
        except subprocess.TimeoutExpired:
            stack.kill()
    supervisor = (var / "supervisor.log").read_text(errors="replace")
    restarts = [line for line in supervisor.splitlines() if "restarting" in line]
    bad = bad_lines(var)
    with open(var / "locust_stats.csv", encoding="utf-8") as f:
        total = list(csv.DictReader(f))[-1]
    print(f"\n== Soak: {args.minutes:g} min, {len(all_games)} games of 猫有n条命 "
          f"({args.games} at a time), phases of {args.phase_minutes:g} min, {users} bots")
    print(f"make run serving after {startup:.1f} s; wall time {time.monotonic() - began:.0f} s")
    print(f"requests {total['Request Count']}, failures {total['Failure Count']}, "
          f"p50 {total['50%']} ms, p95 {total['95%']} ms, p99 {total['99%']} ms")
    print(f"phases ended {checks['phases ended']} ({checks['by deadline']} at their deadline), "
          f"advanced twice {checks['double advances']}, accepted steps "
          f"{checks['accepted steps']}, lost {checks['lost']}")
    print(f"phase lag: p50 {percentile(lag, 50)} s, p99 {percentile(lag, 99)} s, max "
          f"{max(lag) if lag else None} s; over {limit} s: {len(late)}")
    print(f"supervisor restarts: {len(restarts)}; error lines in the logs: {len(bad)}")
    for line in (checks["problems"] + restarts + bad)[:40]:
        print("  PROBLEM:", line)
    failed = checks["problems"] or late or restarts or bad or int(total["Failure Count"])
    print("soak: " + ("FAILED" if failed else "passed"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
