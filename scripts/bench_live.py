#!/usr/bin/env python
"""What open live pages cost the serving processes and the other pages, and how fast an
event reaches them, in one run (`make bench-live`).

The site is served as docs/operations.md ("Production layout", "Live pages") lays it out,
both servers started here on free ports: the pages by gunicorn gthread (config.wsgi,
2 × CPUs + 1 workers × 4 threads), /live/ by gunicorn with uvicorn workers (config.asgi,
`--workers`, default 2, DB_CONN_MAX_AGE=0). Then:

(a) `--pages` idle live pages (default 1,000: event streams to /live/ following one quiet
    thread, anonymous, with the subscription token its page would give them, each from an
    address of its own as the proxy names it, plain sockets, one connection each like
    EventSource, held by a process of their own): the live server's memory (RSS and PSS summed over gunicorn's
    master and its workers) and threads with one page and with all of them open; the
    database connections it holds while they are open (none is expected); the p99 of
    ordinary page requests (a thread page, a board list and a game's home, anonymous, open
    loop at `--page-rate` requests/s, timed from when each was due) with none open and with
    all open, printed as a ratio; and the time until an event published on the feed
    reaches every open page (median and slowest of `--rounds`);
(b) delivery while those pages are open: from the commit of a write to the event read by a
    client following that page, p50/p99 over `--posts` replies to a thread (200) and
    `--phases` phase changes of a running game (50); commits are stamped by an on-commit
    hook registered before the write's own work, arrivals by the client (the same clock);
(c) the read pages' ratios to a trivial view: scripts/bench_http.py, run after the rest
    (`--no-http` prints the command instead);
(d) a reconnect storm, as after a restart of the live server: `--burst` pages (default
    1,000; signed in as `--burst-users` readers, one page in ten anonymous) all connect at
    once, each behaving as the browser's EventSource and static/js/live.js do (a refusal
    that carries `retry:` reconnects after that many ms; a 204 ends the page's live updates
    for good; any other answer retries after live.js's back-off). Printed: the time until
    every page is open and the connects per second that makes, the answers met on the way,
    and the most database connections the live server held or was opening at any moment
    and the most the database served (sampled every 50 ms). Each page's subscription token
    is the one its page gives it (the quiet thread's page read from the page server once
    per reader); `--burst-only` runs (d) alone.

Uses DATABASE_URL (default postgres://postgres@127.0.0.1:5432/killinggames_bench_live,
created if missing, its data kept between runs) and REDIS_URL (default
redis://127.0.0.1:6379/10).

    .venv/bin/python scripts/bench_live.py [--pages 1000] [--workers 2] [--rounds 5]
        [--posts 200] [--phases 50] [--page-rate 10] [--page-seconds 20] [--no-http]
        [--burst 1000] [--burst-users 100] [--burst-only]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import multiprocessing as mp
import os
import random
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
from serving import wait_until_it_answers  # noqa: E402 - after the path

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/killinggames_bench_live")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/10")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.update(LOG_LEVEL="WARNING", RATE_LIMITS="false", DEBUG="false",
                  EXTRA_RULESETS="tests.toy:register")

BENCH = "bench-live"
# The version the fan-out rounds publish for the quiet thread: far above any it reaches.
FANOUT_VERSION = 10_000_000


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


# --- the site's data -----------------------------------------------------------------------

def seed() -> dict:
    """A board with a busy thread (100 posts) and a quiet one, and a running toy game; kept
    between runs."""
    from django.contrib.auth import get_user_model

    from accounts.models import Profile
    from games import services as games
    from games.models import Game
    from messaging import services as forum
    from messaging.models import Board, Thread

    User = get_user_model()
    author = User.objects.get_or_create(username=f"{BENCH}-author")[0]
    Profile.objects.get_or_create(user=author, defaults={"display_name": "直播写手"})
    board = Board.objects.get_or_create(slug=BENCH, defaults={"title": "直播", "kind": "lobby"})[0]
    busy = Thread.objects.filter(board=board, key="busy").first()
    if busy is None:
        busy = forum.start_thread(board=board, author=author, kind="discussion", key="busy",
                                  title="第一天讨论", body="开始", enforce_rate_limit=False)
        for i in range(99):
            forum.reply(thread=busy, author=author, body=f"第{i}楼：我觉得3号是杀手",
                        enforce_rate_limit=False)
    quiet = Thread.objects.filter(board=board, key="quiet").first() or forum.start_thread(
        board=board, author=author, kind="discussion", key="quiet", title="安静的帖子",
        body="无事", enforce_rate_limit=False)
    gm = User.objects.get_or_create(username=f"{BENCH}-gm", defaults={"is_staff": True})[0]
    game = Game.objects.filter(name=f"{BENCH}-game", status=Game.Status.RUNNING).first()
    if game is None:
        players = [User.objects.get_or_create(username=f"{BENCH}-p{i}")[0] for i in range(8)]
        game = games.create_game(name=f"{BENCH}-game", ruleset="toy", gm=gm, seat_count=8,
                                 early_end=False)
        games.start_game(game_id=game.pk, users=players)
    return {"board": board.slug, "busy": busy.pk, "quiet": quiet.pk, "game": game.pk,
            "gm": gm, "author": author}


# --- the serving processes -----------------------------------------------------------------

def memory(pid: int) -> tuple[float, float, int]:
    """(RSS MB, PSS MB, threads) summed over the process `pid` and its children."""
    import psutil

    top = psutil.Process(pid)
    rss = pss = threads = 0
    for proc in [top, *top.children(recursive=True)]:
        try:
            info = proc.memory_full_info()
            threads += proc.num_threads()
        except psutil.Error:
            continue
        rss += info.rss
        pss += getattr(info, "pss", info.rss)
    return rss / 2**20, pss / 2**20, threads


def connections_held(pid: int, opening: bool = False) -> int:
    """The database connections (TCP to the database's port) that the process `pid` and its
    children hold (established; with `opening`, those being opened too)."""
    import psutil
    from django.conf import settings

    port = int(settings.DATABASES["default"].get("PORT") or 5432)
    states = {psutil.CONN_ESTABLISHED} | ({psutil.CONN_SYN_SENT} if opening else set())
    top = psutil.Process(pid)
    held = 0
    for proc in [top, *top.children(recursive=True)]:
        try:
            held += sum(1 for c in proc.net_connections(kind="tcp")
                        if c.raddr and c.raddr.port == port and c.status in states)
        except psutil.Error:
            continue
    return held


def token(*channels) -> str:
    """A subscription token for a reader who is not signed in, following `channels`
    ((kind, id) each), as the pages showing them mint it (config/live_token.py)."""
    from config import live_token

    return live_token.mint(channels=channels)


# --- ordinary pages, open loop ---------------------------------------------------------------

def page_latencies(port: int, paths: list[str], rate: float, seconds: float) -> list[float]:
    """GET `paths` in turn at `rate` per second for `seconds`; each request's time in ms from
    when it was due to its whole answer (a stalled server counts for every request it
    delays). A status other than 200 fails the run."""
    count = int(rate * seconds)
    start = time.perf_counter() + 0.2
    times: list[float] = []
    bad: list[int] = []

    def get(i: int) -> None:
        due = start + i / rate
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", paths[i % len(paths)], headers={"Accept-Language": "zh-hans"})
        response = conn.getresponse()
        response.read()
        conn.close()
        times.append((time.perf_counter() - due) * 1000)
        if response.status != 200:
            bad.append(response.status)

    with ThreadPoolExecutor(max_workers=int(rate * 4) + 8) as pool:
        for i in range(count):
            time.sleep(max(0.0, start + i / rate - time.perf_counter()))
            pool.submit(get, i)
    if bad:
        raise SystemExit(f"page requests answered {sorted(set(bad))}")
    return times


# --- live pages ----------------------------------------------------------------------------

async def _open_stream(port: int, query: str, address: str = "127.0.0.1"):
    """An open /live/ stream (reader, writer), its headers read; None if not 200, or if the
    live server said to come back later (then after waiting as long as it said). `address`:
    the browser's, as the proxy names it (X-Forwarded-For): the live server admits so many
    attempts a second per address."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=2**16)
    writer.write((f"GET /live/?{query} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                  "Accept: text/event-stream\r\nCache-Control: no-cache\r\n"
                  f"X-Forwarded-For: {address}\r\n\r\n").encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    if b" 200 " not in head.split(b"\r\n", 1)[0]:
        writer.close()
        return None
    if b"Retry-After" in head:  # refused for now: the browser's EventSource waits `retry`
        body = await reader.read(4096)
        writer.close()
        retry = re.search(rb"retry: (\d+)", body)
        await asyncio.sleep(int(retry.group(1)) / 1000 if retry else 3)
        return None
    return reader, writer


def hold_pages(port: int, query: str, count: int, pipe) -> None:
    """A process holding `count` streams to /live/?`query`, reading what they send, opened at
    up to 200 a second, reopened if the server ends one (a stream's lifetime). Commands on
    `pipe`: "count" → (open, failed); ("arm", version) → "armed", then each stream notes
    when it reads that version; "arrivals" → [arrival times]; "close" → "closed", and ends."""

    async def main() -> None:
        state = {"open": 0, "failed": 0, "marker": None, "arrivals": []}

        async def one(address: str) -> None:
            while True:
                try:
                    stream = await _open_stream(port, query, address)
                except OSError:
                    stream = None
                if stream is None:
                    state["failed"] += 1
                    await asyncio.sleep(1)
                    continue
                reader, writer = stream
                state["open"] += 1
                noted = None
                try:
                    while chunk := await reader.read(4096):
                        marker = state["marker"]
                        if marker is not None and marker != noted and marker in chunk:
                            state["arrivals"].append(time.time())
                            noted = marker
                except OSError:
                    pass
                finally:
                    state["open"] -= 1
                    writer.close()

        tasks = []
        for n in range(count):
            tasks.append(asyncio.create_task(one(f"10.3.{n // 256}.{n % 256}")))
            await asyncio.sleep(1 / 200)
        loop = asyncio.get_running_loop()
        while True:
            command = await loop.run_in_executor(None, pipe.recv)
            if command == "count":
                pipe.send((state["open"], state["failed"]))
            elif isinstance(command, tuple) and command[0] == "arm":
                state["arrivals"] = []
                state["marker"] = f'"v":{command[1]}'.encode()
                pipe.send("armed")
            elif command == "arrivals":
                pipe.send(list(state["arrivals"]))
            elif command == "close":
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                pipe.send("closed")
                return

    asyncio.run(main())


def follow(port: int, query: str, events, ready) -> None:
    """A process reading one stream to /live/?`query`; puts (kind, id, version, arrival
    time) of each event on `events`."""
    import orjson

    async def main() -> None:
        stream = None
        for _ in range(10):
            stream = stream or await _open_stream(port, query)
        if stream is None:
            raise SystemExit("the measuring stream was refused")
        reader, _writer = stream
        ready.set()
        buffer = b""
        while True:
            chunk = await reader.read(65536)
            if not chunk:  # its lifetime is over: the browser would reconnect
                stream = None
                while stream is None:
                    stream = await _open_stream(port, query)
                reader, _writer = stream
                continue
            now = time.time()
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                line = line.strip()
                if line.startswith(b"data: "):  # chunk sizes and blank lines are not
                    event = orjson.loads(line[6:])
                    events.put((event["t"], event["id"], event["v"], now))

    asyncio.run(main())


def fan_out(pipe, made: dict, rounds: int, pages: int) -> list[float]:
    """Seconds until an event for the quiet thread, published on the feed, has reached every
    open page, per round."""
    from config import feed

    timings = []
    for round_ in range(rounds):
        version = FANOUT_VERSION + int(time.time()) % 1_000_000 * 10 + round_
        pipe.send(("arm", version))
        pipe.recv()
        sent = time.time()
        feed.publish(feed.event("thread", made["quiet"], version))
        arrivals: list[float] = []
        for _ in range(100):  # at most 10 s
            time.sleep(0.1)
            pipe.send("arrivals")
            arrivals = pipe.recv()
            if len(arrivals) >= pages:
                break
        timings.append((max(arrivals) - sent) if len(arrivals) >= pages else float("inf"))
        time.sleep(0.3)
    return timings


def delivery(port: int, made: dict, posts: int, phases: int, gap: float) -> dict:
    """Commit → arrival in ms for `posts` replies to the busy thread and `phases` phase
    changes of the game, read by a client following both."""
    from django.db import transaction

    from games import services as games
    from games.models import Game
    from messaging import services as forum
    from messaging.models import Thread

    events: mp.Queue = mp.Queue()
    ready = mp.Event()
    client = mp.Process(target=follow, daemon=True,
                        args=(port, f"t={quote(token(('thread', made['busy']), ('game', made['game'])))}"
                              f"&thread={made['busy']}&game={made['game']}", events, ready))
    client.start()
    if not ready.wait(30):
        raise SystemExit("the measuring stream did not open")
    time.sleep(1)
    committed: dict[tuple, float] = {}
    thread = Thread.objects.get(pk=made["busy"])

    def stamped(write) -> float:
        stamp: dict = {}
        with transaction.atomic():
            # First among the transaction's on-commit work: the commit's own moment.
            transaction.on_commit(lambda: stamp.setdefault("t", time.time()))
            write()
        return stamp["t"]

    for i in range(posts):
        at = stamped(lambda i=i: forum.reply(thread=thread, author=made["author"],
                                             body=f"直播第{i}楼", enforce_rate_limit=False))
        version = Thread.objects.values_list("version", flat=True).get(pk=made["busy"])
        committed[("thread", made["busy"], version)] = at
        time.sleep(gap)
    for _ in range(phases):
        at = stamped(lambda: games.end_phase_now(game_id=made["game"], gm=made["gm"]))
        version = Game.objects.values_list("page_version", flat=True).get(pk=made["game"])
        committed[("game", made["game"], version)] = at
        time.sleep(gap)
    time.sleep(2)
    arrived: dict[tuple, float] = {}
    while not events.empty():
        kind, pk, version, at = events.get()
        arrived.setdefault((kind, pk, version), at)
    client.terminate()
    result = {}
    for kind in ("thread", "game"):
        mine = {k: t for k, t in committed.items() if k[0] == kind}
        result[kind] = {"sent": len(mine),
                        "ms": [(arrived[k] - t) * 1000 for k, t in mine.items() if k in arrived]}
    return result


# --- a reconnect storm ---------------------------------------------------------------------

def readers(count: int) -> list[str]:
    """The session cookies of `count` signed-in readers (their accounts are kept between
    runs; each run signs them in anew)."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )

    from accounts.models import Profile

    store = import_module(settings.SESSION_ENGINE).SessionStore
    User = get_user_model()
    cookies = []
    for i in range(count):
        user = User.objects.get_or_create(username=f"{BENCH}-reader{i}")[0]
        Profile.objects.get_or_create(user=user, defaults={"display_name": f"读者{i}"})
        session = store()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        cookies.append(f"{settings.SESSION_COOKIE_NAME}={session.session_key}")
    return cookies


def page_token(port: int, path: str, cookie: str) -> str | None:
    """The subscription token the page at `path` gives its live script (#live-texts'
    data-token), read as the reader of `cookie` ("" for nobody); None if it gives none."""
    import html

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", path, headers={"Cookie": cookie} if cookie else {})
    response = conn.getresponse()
    body = response.read().decode()
    conn.close()
    if response.status != 200:
        raise SystemExit(f"{path} answered {response.status}")
    found = re.search(r'data-token="([^"]+)"', body)
    return html.unescape(found.group(1)) if found else None


def storm(port: int, pages: list[tuple[str, str, str]], out) -> None:
    """A process opening every page of `pages` ((query, cookie, the browser's address) each)
    at once, each as the browser would (see the module, (d)), through the proxy (which names
    the browser's address in X-Forwarded-For, as docs/operations.md's nginx block does);
    puts on `out` the seconds until each page was open, the answers met and how many pages
    were refused for good (a 204)."""
    from collections import Counter

    async def main() -> None:
        start = time.perf_counter()
        opened: list[float] = []
        answers: Counter = Counter()
        lost = 0
        held = []

        async def one(query: str, cookie: str, address: str) -> None:
            nonlocal lost
            failures = 0
            while True:
                answers["attempts"] += 1
                try:
                    reader, writer = await asyncio.open_connection("127.0.0.1", port)
                    writer.write((f"GET /live/?{query} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                                  "Accept: text/event-stream\r\nCache-Control: no-cache\r\n"
                                  f"X-Forwarded-For: {address}\r\n"
                                  + (f"Cookie: {cookie}\r\n" if cookie else "")
                                  + "\r\n").encode())
                    await writer.drain()
                    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 60)
                    status = int(head.split(b" ", 2)[1])
                    body = b""
                    if status == 200:
                        while b"\n\n" not in body:
                            chunk = await asyncio.wait_for(reader.read(4096), 60)
                            if not chunk:
                                break
                            body += chunk
                except (OSError, asyncio.IncompleteReadError, TimeoutError):
                    answers["connection failed"] += 1
                    await asyncio.sleep(random.uniform(0.5, 1.5))
                    continue
                if status == 200 and b": busy" not in body:
                    opened.append(time.perf_counter() - start)
                    held.append(writer)
                    return
                writer.close()
                if status == 200:  # refused for now: EventSource waits `retry` ms
                    answers["200 busy (retry)"] += 1
                    retry = re.search(rb"retry: (\d+)", body)
                    await asyncio.sleep(int(retry.group(1)) / 1000 if retry else 3)
                elif status == 204:  # EventSource stops for good: the page is not live
                    answers["204"] += 1
                    lost += 1
                    return
                else:  # EventSource fails; live.js tries again after its back-off
                    answers[str(status)] += 1
                    failures += 1
                    await asyncio.sleep(min(300.0, 5 * 2 ** failures) * random.uniform(0.5, 1))

        tasks = [asyncio.create_task(one(*page)) for page in pages]
        done, pending = await asyncio.wait(tasks, timeout=240)
        for task in pending:
            task.cancel()
        out.put({"opened": sorted(opened), "answers": dict(answers), "lost": lost,
                 "pending": len(pending)})
        await asyncio.sleep(1)
        for writer in held:
            writer.close()

    asyncio.run(main())


def database_backends() -> int:
    """Connections open to the benchmark's database (every process's), from PostgreSQL."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("select count(*) from pg_stat_activity where datname = current_database()"
                       " and pid <> pg_backend_pid()")
        return cursor.fetchone()[0]


def burst(live_pid: int, page_port: int, live_port: int, made: dict, count: int,
          users: int) -> dict:
    """(d): `count` pages connect at once; what it took (see the module)."""
    from django.db import connections

    cookies = readers(users)
    path = f"/t/{made['quiet']}/"
    tokens = {cookie: page_token(page_port, path, cookie) for cookie in [""] + cookies}
    from messaging.models import Thread

    version = Thread.objects.values_list("version", flat=True).get(pk=made["quiet"])
    pages = []
    for n in range(count):
        # A reader's pages come from their address; each anonymous page from its own.
        reader = n % len(cookies)
        cookie = "" if n % 10 == 0 else cookies[reader]
        address = f"10.1.{n // 256}.{n % 256}" if not cookie else f"10.2.0.{reader}"
        token = tokens[cookie]
        query = (f"t={quote(token)}&" if token else "") + f"thread={made['quiet']}.{version}"
        pages.append((query, cookie, address))
    out: mp.Queue = mp.Queue()
    client = mp.Process(target=storm, args=(live_port, pages, out), daemon=True)
    peak_live = peak_all = 0
    client.start()
    while client.is_alive() and out.empty():
        peak_live = max(peak_live, connections_held(live_pid, opening=True))
        peak_all = max(peak_all, database_backends())
        time.sleep(0.05)
    result = out.get(timeout=300)
    client.join(30)
    connections.close_all()
    result.update(peak_live=peak_live, peak_all=peak_all, count=count, users=users,
                  tokens=sum(1 for t in tokens.values() if t))
    return result


def print_burst(result: dict, workers: int) -> None:
    opened, count = result["opened"], result["count"]
    print(f"\n(d) a reconnect storm: {count} pages ({result['users']} signed-in readers, one "
          f"page in ten anonymous) connect at once to a live server just started "
          f"({workers} uvicorn workers); tokens from their pages: "
          f"{'yes' if result['tokens'] else 'none given'}")
    if opened:
        last = opened[-1]
        print(f"open: {len(opened)} of {count}; half after {percentile(opened, 50):.1f} s, "
              f"90 % after {percentile(opened, 90):.1f} s, the last after {last:.1f} s "
              f"({len(opened) / last:.0f} connects/s)")
    print(f"refused for good (204, the page's live updates end until a reload): "
          f"{result['lost']}; still trying at the end: {result['pending']}")
    print("answers on the way: " + ", ".join(f"{k} {v}" for k, v in
                                             sorted(result["answers"].items())))
    print(f"database connections, most at any moment: the live server held or was opening "
          f"{result['peak_live']}; the database served {result['peak_all']} (every process's)")


# --- the run -------------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=1000, help="idle live pages to open")
    parser.add_argument("--workers", type=int, default=2, help="of the live server")
    parser.add_argument("--rounds", type=int, default=5, help="of the fan-out to every page")
    parser.add_argument("--posts", type=int, default=200)
    parser.add_argument("--phases", type=int, default=50)
    parser.add_argument("--gap", type=float, default=0.1, help="seconds between writes in (b)")
    parser.add_argument("--page-rate", type=float, default=10)
    parser.add_argument("--page-seconds", type=float, default=20)
    parser.add_argument("--http-seconds", type=float, default=10,
                        help="measuring time per page of scripts/bench_http.py")
    parser.add_argument("--no-http", action="store_true")
    parser.add_argument("--burst", type=int, default=1000, help="pages of the storm, (d)")
    parser.add_argument("--burst-users", type=int, default=100)
    parser.add_argument("--burst-only", action="store_true", help="run (d) alone")
    args = parser.parse_args()
    from bench_http import ensure_database, free_port

    ensure_database(os.environ["DATABASE_URL"])
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections

    call_command("migrate", interactive=False, verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    made = seed()
    connections.close_all()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    page_port, live_port = free_port(), free_port()

    def live_server() -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "config.asgi", "-b", f"127.0.0.1:{live_port}",
             "-k", "uvicorn_worker.UvicornWorker", "-w", str(args.workers),
             "--graceful-timeout", "5", "--log-level", "warning"],
            cwd=ROOT, env=dict(os.environ, DB_CONN_MAX_AGE="0"))

    servers = [
        subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "config.wsgi", "-b", f"127.0.0.1:{page_port}",
             "-k", "gthread", "-w", str(2 * (os.cpu_count() or 1) + 1), "--threads", "4",
             "--log-level", "warning"], cwd=ROOT, env=dict(os.environ)),
        live_server(),
    ]
    live = servers[1]
    pages = [f"/t/{made['busy']}/", f"/b/{made['board']}/", f"/games/{made['game']}/"]
    holder = None
    stormed = None
    try:
        wait_until_it_answers(page_port)
        wait_until_it_answers(live_port)
        if args.burst_only:
            stormed = burst(live.pid, page_port, live_port, made, args.burst, args.burst_users)
            return
        page_latencies(page_port, pages, args.page_rate, 3)  # warm the page workers
        ours, theirs = mp.Pipe()
        query = f"t={quote(token(('thread', made['quiet'])))}&thread={made['quiet']}"
        # One page per live worker first: each has imported everything and subscribed once.
        holder = mp.Process(target=hold_pages, daemon=True,
                            args=(live_port, query, args.workers, theirs))
        holder.start()
        time.sleep(3)
        rss0, pss0, threads0 = memory(live.pid)
        none = page_latencies(page_port, pages, args.page_rate, args.page_seconds)
        ours.send("close")
        ours.recv()
        holder.join(10)
        holder = mp.Process(target=hold_pages, daemon=True,
                            args=(live_port, query, args.pages, theirs))
        started = time.perf_counter()
        holder.start()
        while True:
            time.sleep(1)
            ours.send("count")
            open_now, failed = ours.recv()
            if open_now >= args.pages or time.perf_counter() - started > 180:
                break
        connect_seconds = time.perf_counter() - started
        time.sleep(3)
        rss1, pss1, threads1 = memory(live.pid)
        held = connections_held(live.pid)
        during = page_latencies(page_port, pages, args.page_rate, args.page_seconds)
        fanned = fan_out(ours, made, args.rounds, open_now)
        delivered = delivery(live_port, made, args.posts, args.phases, args.gap)
        ours.send("count")
        still_open, failed = ours.recv()
        ours.send("close")
        ours.recv()
        holder.join(10)
        holder = None
        time.sleep(2)
        none += page_latencies(page_port, pages, args.page_rate, args.page_seconds)
        if args.burst:  # (d), after a restart of the live server
            live.terminate()
            live.wait(30)
            live = servers[1] = live_server()
            wait_until_it_answers(live_port)
            stormed = burst(live.pid, page_port, live_port, made, args.burst, args.burst_users)
    finally:
        if holder is not None:
            holder.kill()
        for server in servers:
            server.terminate()
        for server in servers:
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
        if stormed is not None and args.burst_only:
            print_burst(stormed, args.workers)

    print(f"\npages: gunicorn gthread {2 * (os.cpu_count() or 1) + 1} × 4 (config.wsgi); "
          f"/live/: gunicorn with {args.workers} uvicorn workers (config.asgi); PostgreSQL, "
          f"Redis {os.environ['REDIS_URL']}; load average {os.getloadavg()[0]:.1f}")
    print(f"\n(a) {open_now} of {args.pages} idle live pages open after {connect_seconds:.0f} s, "
          f"opened at up to 200 a second ({failed} attempts refused or failed meanwhile and "
          f"tried again a second later; {still_open} still open after (b))")
    print(f"{'the live server':32} {'RSS MB':>8} {'PSS MB':>8} {'threads':>8}")
    print(f"{f'{args.workers} pages (one per worker)':32} {rss0:8.1f} {pss0:8.1f} {threads0:8}")
    print(f"{f'{open_now} pages':32} {rss1:8.1f} {pss1:8.1f} {threads1:8}")
    if open_now > args.workers:
        extra = open_now - args.workers
        print(f"per page: {(rss1 - rss0) * 1024 / extra:.1f} kB RSS, "
              f"{(pss1 - pss0) * 1024 / extra:.1f} kB PSS")
    print(f"database connections held by the live server while they are open: {held}")
    print(f"\nordinary pages ({', '.join(pages)}) from the page server, {args.page_rate:g}/s "
          "open loop, ms from due:")
    print(f"{'':32} {'count':>6} {'p50':>6} {'p99':>6} {'max':>6}")
    for name, values in (("no live page open", none), (f"{open_now} live pages open", during)):
        print(f"{name:32} {len(values):6} {percentile(values, 50):6.0f} "
              f"{percentile(values, 99):6.0f} {max(values):6.0f}")
    print(f"p99 with them / without: {percentile(during, 99) / percentile(none, 99):.2f} "
          f"(p50: {percentile(during, 50) / percentile(none, 50):.2f})")
    print(f"one event to all {open_now} pages, median / slowest of {args.rounds}: "
          f"{percentile(fanned, 50) * 1000:.0f} ms / {max(fanned) * 1000:.0f} ms")
    print(f"\n(b) delivery, commit → event read by a client (ms), {still_open} idle pages open:")
    print(f"{'':32} {'sent':>6} {'read':>6} {'p50':>6} {'p99':>6} {'max':>6}")
    for kind, label in (("thread", "replies (thread events)"), ("game", "phase changes (game)")):
        got = delivered[kind]
        ms = got["ms"] or [float("nan")]
        print(f"{label:32} {got['sent']:6} {len(got['ms']):6} {percentile(ms, 50):6.1f} "
              f"{percentile(ms, 99):6.1f} {max(ms):6.1f}")
    if stormed is not None:
        print_burst(stormed, args.workers)
    command = [sys.executable, str(ROOT / "scripts" / "bench_http.py"),
               "--seconds", f"{args.http_seconds:g}"]
    if args.no_http:
        print(f"\n(c) the read pages' ratios: {' '.join(command)}")
        return
    print("\n(c) the read pages' ratios (scripts/bench_http.py, its own database):", flush=True)
    env = dict(os.environ, DATABASE_URL=os.environ["DATABASE_URL"].rsplit("/", 1)[0]
               + "/killinggames_bench")
    subprocess.run(command, cwd=ROOT, env=env, check=True)


if __name__ == "__main__":
    main()
