#!/usr/bin/env python
"""What open live pages cost the serving processes and the other pages, and how fast an
event reaches them, in one run (`make bench-live`).

The site is served as docs/operations.md ("Production layout", "Live pages") lays it out,
both servers started here on free ports: the pages by gunicorn gthread (config.wsgi,
2 × CPUs + 1 workers × 4 threads), /live/ by gunicorn with uvicorn workers (config.asgi,
`--workers`, default 2, DB_CONN_MAX_AGE=0). Then:

(a) `--pages` idle live pages (default 1,000: event streams to /live/ following one quiet
    thread, anonymous, plain sockets, one connection each like EventSource, held by a
    process of their own): the live server's memory (RSS and PSS summed over gunicorn's
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
    (`--no-http` prints the command instead).

Uses DATABASE_URL (default postgres://postgres@127.0.0.1:5432/killinggames_bench_live,
created if missing, its data kept between runs) and REDIS_URL (default
redis://127.0.0.1:6379/10).

    .venv/bin/python scripts/bench_live.py [--pages 1000] [--workers 2] [--rounds 5]
        [--posts 200] [--phases 50] [--page-rate 10] [--page-seconds 20] [--no-http]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import multiprocessing as mp
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
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


def connections_held(pid: int) -> int:
    """The database connections (TCP to the database's port) that the process `pid` and its
    children hold."""
    import psutil
    from django.conf import settings

    port = int(settings.DATABASES["default"].get("PORT") or 5432)
    top = psutil.Process(pid)
    held = 0
    for proc in [top, *top.children(recursive=True)]:
        try:
            held += sum(1 for c in proc.net_connections(kind="tcp")
                        if c.raddr and c.raddr.port == port)
        except psutil.Error:
            continue
    return held


def wait_for(port: int) -> None:
    for _ in range(300):
        try:
            probe = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            probe.request("GET", "/healthz")
            if probe.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"the server on port {port} did not answer /healthz")


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

async def _open_stream(port: int, query: str):
    """An open /live/ stream (reader, writer), its headers read; None if not 200."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=2**16)
    writer.write((f"GET /live/?{query} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                  "Accept: text/event-stream\r\nCache-Control: no-cache\r\n\r\n").encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    if b" 200 " not in head.split(b"\r\n", 1)[0]:
        writer.close()
        return None
    return reader, writer


def hold_pages(port: int, query: str, count: int, pipe) -> None:
    """A process holding `count` streams to /live/?`query`, reading what they send, opened at
    up to 200 a second, reopened if the server ends one (a stream's lifetime). Commands on
    `pipe`: "count" → (open, failed); ("arm", version) → "armed", then each stream notes
    when it reads that version; "arrivals" → [arrival times]; "close" → "closed", and ends."""

    async def main() -> None:
        state = {"open": 0, "failed": 0, "marker": None, "arrivals": []}

        async def one() -> None:
            while True:
                try:
                    stream = await _open_stream(port, query)
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
        for _ in range(count):
            tasks.append(asyncio.create_task(one()))
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
        stream = await _open_stream(port, query)
        if stream is None:
            raise SystemExit("the measuring stream was refused")
        reader, _writer = stream
        ready.set()
        buffer = b""
        while True:
            chunk = await reader.read(65536)
            if not chunk:  # its lifetime is over: the browser would reconnect
                reader, _writer = await _open_stream(port, query)
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
                        args=(port, f"thread={made['busy']}&game={made['game']}", events, ready))
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
    servers = [
        subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "config.wsgi", "-b", f"127.0.0.1:{page_port}",
             "-k", "gthread", "-w", str(2 * (os.cpu_count() or 1) + 1), "--threads", "4",
             "--log-level", "warning"], cwd=ROOT, env=dict(os.environ)),
        subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "config.asgi", "-b", f"127.0.0.1:{live_port}",
             "-k", "uvicorn_worker.UvicornWorker", "-w", str(args.workers),
             "--graceful-timeout", "5", "--log-level", "warning"],
            cwd=ROOT, env=dict(os.environ, DB_CONN_MAX_AGE="0")),
    ]
    live = servers[1]
    pages = [f"/t/{made['busy']}/", f"/b/{made['board']}/", f"/games/{made['game']}/"]
    holder = None
    try:
        wait_for(page_port)
        wait_for(live_port)
        page_latencies(page_port, pages, args.page_rate, 3)  # warm the page workers
        ours, theirs = mp.Pipe()
        query = f"thread={made['quiet']}"
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
