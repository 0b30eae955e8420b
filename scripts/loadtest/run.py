#!/usr/bin/env python
"""The load test: N concurrent games of 猫有n条命 under simulated players.

Against gunicorn (gthread) + PostgreSQL + Redis + a real Celery worker with embedded beat,
all on loopback. Steps:
1. a dedicated database (DATABASE_URL, default `killinggames_load`), migrated; the previous
   run's load games deleted;
2. N games of 6 seats, phases of `--phase-minutes` (night, day and runoff), ending at their
   deadline only (so every phase measures the clock), changes allowed until the deadline;
   one discussion thread per game; a server-side session per seat (no sign-in traffic);
3. gunicorn and `celery worker --beat` (sweep every 2 s, 1 s grace) started;
4. locust, headless, 6 x N users (one per seat) for `--minutes`;
5. a pause for the last overdue phases to advance, then the processes stopped;
6. the figures: requests/s and p50/p95/p99 per page kind (locust's statistics), the phase
   lag (deadline -> phase ended) p50/p99; the checks of check.py. Exits 1 if a check fails.

    .venv/bin/python scripts/loadtest/run.py                       # make loadtest: short
    .venv/bin/python scripts/loadtest/run.py --games 20 --minutes 10   # the long run
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(HERE))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/killinggames_load")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/13")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("VAR_DIR", tempfile.mkdtemp(prefix="kg-load-"))
os.environ.update(LOG_LEVEL="WARNING", RATE_LIMITS="false", DEBUG="false",
                  SWEEP_INTERVAL_SECONDS="2", SWEEP_GRACE_SECONDS="1",
                  EMAIL_URL="consolemail://")

PREFIX = "load-"
SEATS = 6
PROCESSES: list[subprocess.Popen] = []


def start(args: list[str], log: str) -> subprocess.Popen:
    """A process of this run, its output in VAR_DIR/<log>."""
    out = open(Path(os.environ["VAR_DIR"]) / log, "w")
    proc = subprocess.Popen(args, cwd=ROOT, env=dict(os.environ), stdout=out,
                            stderr=subprocess.STDOUT)
    PROCESSES.append(proc)
    return proc


def stop_all() -> None:
    """End the processes this run started (by their handles, never by name)."""
    for proc in PROCESSES:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in PROCESSES:
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


def setup_games(count: int, phase_minutes: float) -> tuple[list[int], list[dict]]:
    """Running games and one record per seat for the locustfile (steps 1-2)."""
    from bot_sessions import sessions_for
    from django.contrib.auth import get_user_model

    from accounts.models import Profile
    from games import services
    from games.models import Game
    from messaging import services as forum
    from messaging.models import Thread

    User = get_user_model()
    Game.objects.filter(name__startswith=PREFIX).delete()
    gm = User.objects.get_or_create(username=f"{PREFIX}gm", defaults={"is_staff": True})[0]
    minutes = {"night": phase_minutes, "day": phase_minutes, "runoff": phase_minutes}
    game_ids, players = [], []
    for g in range(count):
        users = []
        for s in range(SEATS):
            user = User.objects.get_or_create(username=f"{PREFIX}p{g * SEATS + s}")[0]
            Profile.objects.get_or_create(user=user,
                                          defaults={"display_name": f"玩家{g * SEATS + s}"})
            users.append(user)
        game = services.create_game(name=f"{PREFIX}{g}", ruleset="ninelives", gm=gm,
                                    seat_count=SEATS, durations=minutes, early_end=False,
                                    change_cutoff_minutes=0)
        game = services.start_game(game_id=game.pk, users=users)
        thread = forum.start_thread(board=game.board, author=users[0],
                                    kind=Thread.Kind.DISCUSSION, title="讨论",
                                    body="大家好。", enforce_rate_limit=False)
        game_ids.append(game.pk)
        made = sessions_for(users)
        for seat, user in enumerate(users):
            session, csrf = made[user.pk]
            players.append({"session": session, "csrf": csrf, "game": game.pk, "seat": seat,
                            "board": game.board.slug, "thread": thread.pk})
    # Spread each game's seats over the spawn order, so every game gets players early.
    players.sort(key=lambda p: (p["seat"], p["game"]))
    return game_ids, players


def wait_for_port(port: int, seconds: float) -> None:
    import socket

    end = time.time() + seconds
    while time.time() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise SystemExit(f"gunicorn did not listen on {port}")


def stats_rows(prefix: Path) -> list[dict]:
    with open(f"{prefix}_stats.csv", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def report(rows: list[dict], lag: list[float], checks: dict, outcomes: dict, args) -> None:
    from check import percentile

    print(f"\n== Load test: {args.games} games of 猫有n条命 × {SEATS} seats, {args.users} "
          f"players, {args.minutes:g} min, phases of {args.phase_minutes:g} min; gunicorn "
          f"{args.workers}×{args.threads} gthread, PostgreSQL, Redis, 1 Celery worker + beat")
    print(f"{'page kind':<22}{'requests':>9}{'fail':>6}{'req/s':>8}{'p50 ms':>8}"
          f"{'p95 ms':>8}{'p99 ms':>8}")
    for row in rows:
        name = row["Name"] if row["Name"] != "Aggregated" else "all"
        print(f"{name[:21]:<22}{row['Request Count']:>9}{row['Failure Count']:>6}"
              f"{float(row['Requests/s']):>8.1f}{row['50%']:>8}{row['95%']:>8}{row['99%']:>8}")
    p50, p99 = percentile(lag, 50), percentile(lag, 99)

    def fmt(v: float | None) -> str:
        return "—" if v is None else f"{v:.2f} s"

    print(f"phase lag (deadline -> ended), {len(lag)} phases ended by their deadline: "
          f"p50 {fmt(p50)}, p99 {fmt(p99)}, max {fmt(max(lag) if lag else None)}")
    print("steps: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    print(f"checks: {checks['games']} games, {checks['accepted steps']} accepted steps, "
          f"{checks['lost']} lost; {checks['phases ended']} phases ended "
          f"({checks['by deadline']} by deadline), {checks['double advances']} advanced twice")
    for problem in checks["problems"][:30]:
        print("  PROBLEM:", problem)
    print("nothing lost: " + ("yes" if not checks["problems"] else "NO"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--users", type=int, default=None, help="default: 6 per game")
    parser.add_argument("--minutes", type=float, default=2.0, help="how long locust runs")
    parser.add_argument("--phase-minutes", type=float, default=1.0)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn processes")
    parser.add_argument("--threads", type=int, default=4, help="threads per gunicorn process")
    parser.add_argument("--wait", default="1,5", help="seconds between a player's requests")
    parser.add_argument("--out", default=None, help="folder for locust's CSV files")
    args = parser.parse_args()
    args.users = args.users or SEATS * args.games

    from bench_http import ensure_database, free_port

    ensure_database(os.environ["DATABASE_URL"])
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from check import check_games, phase_lag

    out = Path(args.out or os.environ["VAR_DIR"])
    out.mkdir(parents=True, exist_ok=True)
    players_file, accepted_file = out / "players.json", out / "accepted.jsonl"
    port = free_port()
    # A player's connection idles up to the longest wait between requests: gunicorn must keep
    # it open longer (its default is 2 s), or a request sent as the server closes the idle
    # connection is reset - a client/server race, not an answer of the service. A proxy in
    # front of gunicorn in production keeps such connections itself.
    keep_alive = int(float(args.wait.split(",")[-1])) + 5
    # `kill` (SIGTERM) stops this run like Ctrl-C: the finally clause stops the processes.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        start([sys.executable, "-m", "gunicorn", "config.wsgi", "-b", f"127.0.0.1:{port}",
               "-w", str(args.workers), "--worker-class", "gthread", "--threads",
               str(args.threads), "--keep-alive", str(keep_alive), "--log-level", "warning"],
              "gunicorn.log")
        start([sys.executable, "-m", "celery", "-A", "config", "worker", "--beat",
               "--concurrency=1", "--without-gossip", "--without-mingle", "--loglevel=WARNING",
               f"--schedule={Path(os.environ['VAR_DIR']) / 'beat-schedule'}"], "celery.log")
        game_ids, players = setup_games(args.games, args.phase_minutes)
        players_file.write_text(json.dumps(players), encoding="utf-8")
        wait_for_port(port, 30)
        print(f"{len(game_ids)} games running; locust with {args.users} players for "
              f"{args.minutes:g} min (logs in {os.environ['VAR_DIR']})", flush=True)
        locust_log = open(out / "locust.log", "w")
        env = dict(os.environ, LOADTEST_PLAYERS=str(players_file),
                   LOADTEST_ACCEPTED=str(accepted_file), LOADTEST_WAIT=args.wait)
        subprocess.run([str(Path(sys.executable).parent / "locust"), "-f",
                        str(HERE / "locustfile.py"), "--headless", "--only-summary",
                        "-u", str(args.users), "-r", str(max(1, args.users // 10)),
                        "-t", f"{int(args.minutes * 60)}s", "--host",
                        f"http://127.0.0.1:{port}", "--csv", str(out / "locust"),
                        "--loglevel", "WARNING"], cwd=ROOT, env=env, check=False,
                       stdout=locust_log, stderr=subprocess.STDOUT)
        # Step 5: a deadline passed in the last seconds is advanced by the next sweeps.
        time.sleep(2 + 1 + 4)
    finally:
        stop_all()
    accepted, outcomes = [], {}
    for line in accepted_file.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if "outcomes" in record:
            outcomes = record["outcomes"]
        else:
            accepted.append(record)
    checks = check_games(game_ids, accepted)
    report(stats_rows(out / "locust"), phase_lag(game_ids), checks, outcomes, args)
    failures = int(stats_rows(out / "locust")[-1]["Failure Count"])
    with open(out / "locust_exceptions.csv", encoding="utf-8") as f:
        crashes = sum(int(row["Count"]) for row in csv.DictReader(f))
    if crashes:
        print(f"the simulated players crashed {crashes} times: see {out}/locust_exceptions.csv")
    if checks["problems"] or failures or crashes:
        sys.exit(1)


if __name__ == "__main__":
    main()
