#!/usr/bin/env python
"""Drill: PostgreSQL stopped mid-game for a while, then started again. Requests fail cleanly
(a 503 page with Retry-After, never a 500 or a traceback) and the service recovers by itself.

1. A private PostgreSQL server (initdb under VAR_DIR, run as the postgres user, on a free
   port), three toy games, gunicorn with 2 workers.
2. Players read their pages and send steps for a few seconds; PostgreSQL is stopped (fast
   shutdown) for --down seconds (default 20) while they go on; then it is started again.
3. Counted: answers before, during and after; the first good answer after the restart;
   every game is still its log's replay and no phase ended twice.

`--system` restarts the machine's cluster (`pg_ctlcluster <version> main restart`) instead:
a quiet machine only, every other user of PostgreSQL loses it meanwhile.

    .venv/bin/python scripts/drills/postgres_restart.py [--down 20] [--system]
"""

from __future__ import annotations

import argparse
import collections
import glob
import http.client
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

import common


def pg_bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not found:
        raise SystemExit(f"{name} not found under /usr/lib/postgresql")
    return found[-1]


class OwnPostgres:
    """A throwaway cluster under VAR_DIR, run as the postgres user (initdb refuses root)."""

    def __init__(self, port: int):
        self.port = port
        self.dir = Path(os.environ["VAR_DIR"]) / "pgdata"
        self.dir.parent.chmod(0o755)
        self.dir.mkdir()
        shutil.chown(self.dir, "postgres", "postgres")
        self._as_postgres(pg_bin("initdb"), "-D", str(self.dir), "-U", "postgres",
                          "--auth=trust", "-E", "UTF8")

    def _as_postgres(self, *args: str) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", *args], check=True,
                       stdout=subprocess.DEVNULL)

    def start(self) -> None:
        self._as_postgres(pg_bin("pg_ctl"), "-D", str(self.dir), "-w", "-l",
                          str(self.dir / "server.log"), "-o",
                          f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1", "start")

    def stop(self) -> None:
        self._as_postgres(pg_bin("pg_ctl"), "-D", str(self.dir), "-w", "-m", "fast", "stop")


class SystemPostgres:
    def __init__(self):
        self.version = sorted(os.listdir("/etc/postgresql"))[0]

    def start(self) -> None:
        subprocess.run(["pg_ctlcluster", self.version, "main", "start"], check=True)

    def stop(self) -> None:
        subprocess.run(["pg_ctlcluster", self.version, "main", "stop", "-m", "fast"],
                       check=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--down", type=float, default=20)
    parser.add_argument("--system", action="store_true",
                        help="restart the machine's cluster (quiet machine only)")
    args = parser.parse_args()
    from bench_http import free_port

    if args.system:
        db = SystemPostgres()
    else:
        port = free_port()
        db = OwnPostgres(port)
        db.start()
        os.environ["DATABASE_URL"] = f"postgres://postgres@127.0.0.1:{port}/killinggames_drill"
    common.setup_django()
    from django.db import connections
    from loadtest.bot_sessions import sessions_for

    games = common.toy_games("pgrestart-", 3, minutes=60)
    seats = [(g.pk, s.number, s.user, g.state["secret"]["wolf"], g.current_phase.seq)
             for g in games for s in g.seats.select_related("user")]
    sessions = sessions_for({user for _game, _number, user, _wolf, _seq in seats})
    connections.close_all()
    web_port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    web = subprocess.Popen([sys.executable, "-m", "gunicorn", "config.wsgi", "-b",
                            f"127.0.0.1:{web_port}", "-w", "2", "--log-level", "warning"],
                           cwd=common.ROOT, env=env, stderr=subprocess.DEVNULL)
    common.PROCESSES.append(web)
    time.sleep(3)

    def request(method: str, path: str, user, data: dict | None = None) -> tuple[int, str]:
        session, csrf = sessions[user.pk]
        conn = http.client.HTTPConnection("127.0.0.1", web_port, timeout=30)
        body = urlencode(dict(data, csrfmiddlewaretoken=csrf)) if data else None
        conn.request(method, path, body, {
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"sessionid={session}; csrftoken={csrf}",
            "Referer": f"http://127.0.0.1:{web_port}/", "Host": f"127.0.0.1:{web_port}"})
        response = conn.getresponse()
        text = response.read().decode("utf-8", "replace")
        conn.close()
        return response.status, text

    answers: dict[str, collections.Counter] = {p: collections.Counter()
                                               for p in ("before", "down", "after")}
    tracebacks = 0
    first_good_after = None

    def round_of_requests(period: str) -> None:
        nonlocal tracebacks, first_good_after
        for game, number, user, wolf, seq in seats:
            calls = [("GET", f"/games/{game}/", None), ("GET", f"/games/{game}/act/", None)]
            if number == wolf:
                calls.append(("POST", f"/games/{game}/act/", {
                    "choice": f'{{"kind": "kill", "params": {{"target": {(wolf + 1) % 5}}}}}',
                    "phase": str(seq)}))
            for method, path, data in calls:
                try:
                    status, text = request(method, path, user, data)
                except OSError:
                    status, text = 0, ""
                answers[period][f"{method} {status}"] += 1
                tracebacks += "Traceback" in text
                if period == "after" and status in (200, 302) and first_good_after is None:
                    first_good_after = time.time()

    try:
        end = time.time() + 5
        while time.time() < end:
            round_of_requests("before")
        db.stop()
        end = time.time() + args.down
        while time.time() < end:
            round_of_requests("down")
            time.sleep(0.5)
        db.start()
        started = time.time()
        end = started + 20
        while time.time() < end:
            round_of_requests("after")
            time.sleep(0.5)
    finally:
        common.stop_all()
    connections.close_all()
    result = common.check_games(games)
    if not args.system:
        db.stop()
    recovery = (first_good_after - started) if first_good_after else None
    print(f"PostgreSQL stopped for {args.down:g} s ({'the machine' if args.system else 'own'} "
          f"server) under gunicorn with 2 workers:")
    for period, counter in answers.items():
        print(f"  {period:6s} {dict(counter)}")
    print(f"  answers showing a traceback: {tracebacks}")
    print(f"  first good answer {recovery:.1f} s after the restart" if recovery is not None
          else "  no good answer after the restart")
    print(f"  games not their log's replay: {len(result['bad'])}, phases ended twice: "
          f"{result['double advances']}")
    down_ok = all(k.endswith((" 503",)) for k in answers["down"])
    survived = (down_ok and not tracebacks and recovery is not None and not result["bad"]
                and not any(k.endswith(" 500") for c in answers.values() for k in c))
    print("SURVIVED: clean 503s, then recovery" if survived else "FAILED")
    return 0 if survived else 1


if __name__ == "__main__":
    sys.exit(main())
