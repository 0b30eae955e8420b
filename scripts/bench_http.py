#!/usr/bin/env python
"""Requests per second of the busiest read pages vs a trivial view, under gunicorn.

Pages: a thread page (50 posts, the third page of a 1,000-post thread) read anonymously
and by a signed-in reader (a page navigation, so it marks reading), a board list (30 threads
with their last posts and read marks, signed in) and a running game's home page. Every page
and the trivial view (/healthz) are measured in one run against the same server, in rounds
(each page for a slice of every round), so a machine that gets busier or quieter moves them
alike; the ratio to /healthz is what to read, absolute numbers depend on the machine.

Then two timings of pages read just after their thread changed (so nothing kept for them can
be used: a GM's edit of post #1, made through the service before each request, moves the
thread's version), one request at a time, medians:
- the signed-in thread page (page 3 of the 1,000-post thread), in milliseconds;
- the last page against page 2 of a 10,000-post thread, signed in, as a ratio (paging by
  floor number: a deep page costs what an early one does). Uses PostgreSQL: DATABASE_URL if set, else
postgres://postgres@127.0.0.1:5432/killinggames_bench (created if missing).

    .venv/bin/python scripts/bench_http.py [--seconds 10] [--workers 2*CPUs+1] [--clients 8]
        [--posts 1000] [--misses 15] [--deep-posts 10000]

A figure is worth something only if every request was answered: the run stops at once,
non-zero, naming the page, when a page answers anything but 200, when a request fails (a
socket timeout under load) or when a client process dies. Whatever ends it (that, Ctrl-C,
SIGTERM or SIGHUP), the gunicorn it started is stopped, with every process of its group, and
so are the client processes. Only SIGKILL cannot be caught: then stop it by hand
(`kill -- -PID` with the process id printed at its start).
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing as mp
import os
import queue
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/killinggames_bench"
NAVIGATE = {"Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}


def ensure_database(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("select 1 from pg_database where datname=%s", (name,)).fetchone():
            conn.execute(f'create database "{name}"')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class BenchFailed(Exception):
    """A page answered an error, a request failed or a client died: no figure stands."""


def client(port: int, path: str, headers: dict, seconds: float, out: mp.Queue,
           die: bool = False) -> None:
    """Ask for `path` for `seconds` on one connection; put ("ok", count) on `out`, or
    ("error", what) at the first answer that is not 200 or the first failure. `die`: exit
    at once without a word (--kill-a-client)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's; it stops us
    for sig in (signal.SIGTERM, signal.SIGHUP):  # not the parent's handler: die quietly
        signal.signal(sig, signal.SIG_DFL)
    if die:
        os._exit(3)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    count = 0
    end = time.perf_counter() + seconds
    try:
        while time.perf_counter() < end:
            conn.request("GET", path, headers=headers)
            response = conn.getresponse()
            body = response.read()
            if response.status != 200:
                out.put(("error", f"{path} answered {response.status}: {body[:300]!r}"))
                return
            count += 1
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which stops the run
        out.put(("error", f"{path}: the request failed ({type(exc).__name__}: {exc})"))
        return
    out.put(("ok", count))


def measure(port: int, path: str, headers: dict, seconds: float, clients: int,
            kill_one: bool = False) -> float:
    """Requests per second of `path` from `clients` processes for `seconds`. Raises
    BenchFailed at a client's first error, or when one dies without its count (or none
    has answered a minute past the end); the clients still running are stopped."""
    out: mp.Queue = mp.Queue()
    procs = [mp.Process(target=client, args=(port, path, headers, seconds, out,
                                              kill_one and i == 0), daemon=True)
             for i in range(clients)]
    start = time.perf_counter()
    deadline = time.monotonic() + seconds + 60  # a request's own timeout is 30 s
    for p in procs:
        p.start()
    counts: list[int] = []
    try:
        while len(counts) < len(procs):
            try:
                kind, value = out.get(timeout=0.2)
            except queue.Empty:
                died = [p for p in procs if p.exitcode not in (None, 0)]
                if died:
                    raise BenchFailed(f"a client process measuring {path} died (exit code "
                                      f"{died[0].exitcode}) without its count") from None
                if time.monotonic() > deadline:
                    raise BenchFailed(f"the clients measuring {path} had not finished "
                                      f"{seconds + 60:g} s after they started") from None
                continue
            if kind == "error":
                raise BenchFailed(value)
            counts.append(value)
    finally:
        for p in procs:
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join(5)
    return sum(counts) / (time.perf_counter() - start)


def timed_get(port: int, path: str, headers: dict) -> float:
    """One request on a fresh connection; its time in milliseconds (it must answer 200)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    start = time.perf_counter()
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        response.read()
    except (OSError, http.client.HTTPException) as exc:
        raise BenchFailed(f"{path}: the request failed ({type(exc).__name__}: {exc})") from exc
    finally:
        conn.close()
    elapsed = (time.perf_counter() - start) * 1000
    if response.status != 200:
        raise BenchFailed(f"{path} answered {response.status}")
    return elapsed


class Gunicorn:
    """The gunicorn under test, in a process group of its own (its workers with it), so that
    `stop` ends all of it and a Ctrl-C in the terminal reaches only this script."""

    def __init__(self, port: int, workers: int) -> None:
        self.port = port
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "config.wsgi", "-b", f"127.0.0.1:{port}",
             "-w", str(workers), "--log-level", "warning"], cwd=ROOT, env=dict(os.environ),
            start_new_session=True)
        print(f"gunicorn: process {self.proc.pid} (its group too) on 127.0.0.1:{port}",
              flush=True)

    def wait_until_it_answers(self, seconds: float = 60) -> None:
        end = time.monotonic() + seconds
        while True:
            if self.proc.poll() is not None:
                raise BenchFailed(f"gunicorn exited with code {self.proc.returncode} "
                                  "before answering")
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                conn.request("GET", "/healthz")
                if conn.getresponse().status == 200:
                    return
            except (OSError, http.client.HTTPException):
                pass
            if time.monotonic() > end:
                raise BenchFailed(f"gunicorn did not answer /healthz within {seconds:g} s")
            time.sleep(0.1)

    def stop(self) -> None:
        """SIGTERM to the group (gunicorn's graceful stop), then, after the master is gone or
        30 s, SIGKILL to whatever of the group is left. Safe to call twice."""
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()


def _stop_on(signum, frame) -> None:
    """SIGTERM and SIGHUP end the run as Ctrl-C does: through the `finally` that stops
    gunicorn."""
    raise SystemExit(f"bench_http: stopped by signal {signal.Signals(signum).name}")


def missed(port: int, thread_id: int, paths: list[str], headers: dict,
           times: int) -> dict[str, float]:
    """The median time of each of `paths` read just after a GM's edit of `thread_id`'s first
    post (made through the service, so the thread's version moves): what a page costs when
    nothing kept for it can be used."""
    from django.contrib.auth import get_user_model
    from django.db import connections

    from messaging import services as forum
    from messaging.models import Post

    gm = get_user_model().objects.get(username="bench-gm")
    found: dict[str, list[float]] = {path: [] for path in paths}
    for i in range(times):
        for path in paths:
            first = Post.objects.select_related("thread").get(thread_id=thread_id, number=1)
            forum.edit_post(post=first, editor=gm, body=f"first **post**, edit {time.time()} {i}")
            found[path].append(timed_get(port, path, headers))
    connections.close_all()
    return {path: sorted(values)[len(values) // 2] for path, values in found.items()}


def deep_thread(posts: int, author) -> int:
    """A thread of `posts` posts for the deep-page timing, written in bulk (kept between
    runs): its first post through the service, the rest as rows, the counters set."""
    from django.utils import timezone

    from messaging import services as forum
    from messaging.models import Post, Thread
    from messaging.rendering import render_markdown

    key = f"bench-deep-{posts}"
    thread = Thread.objects.filter(key=key).first()
    if thread is not None:
        return thread.pk
    thread = forum.start_thread(board=forum.lobby_board(), author=author, kind="discussion",
                                title="bench deep", body="first **post**", key=key,
                                enforce_rate_limit=False)
    html = render_markdown("reply with *markdown* and a [link](https://example.org)")
    first = thread.posts.get()
    for start in range(2, posts + 1, 2000):
        Post.objects.bulk_create(
            Post(thread=thread, number=i, author=author, body="reply", html=html,
                 quote=first if i % 7 == 0 else None)
            for i in range(start, min(start + 2000, posts + 1)))
    last = thread.posts.order_by("-number").first()
    Thread.objects.filter(pk=thread.pk).update(last_number=posts, post_count=posts,
                                               last_post=last, last_post_at=timezone.now())
    return thread.pk


def seed(posts: int, deep_posts: int) -> dict:
    """The bench's thread, board and running game (kept between runs), and a signed-in
    reader's session."""
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.sessions.backends.db import SessionStore

    from accounts.models import Profile
    from games import services as games
    from games.models import Game
    from messaging import services as forum
    from messaging.models import Thread

    User = get_user_model()
    author = User.objects.get_or_create(username="bench")[0]
    reader = User.objects.get_or_create(username="bench-reader")[0]
    for u in (author, reader):
        Profile.objects.get_or_create(user=u, defaults={"display_name": u.username})
    key = f"bench-{posts}"
    thread = Thread.objects.filter(key=key).first()
    if thread is None:
        thread = forum.start_thread(board=forum.lobby_board(), author=author,
                                    kind="discussion", title="bench", body="first **post**",
                                    key=key, enforce_rate_limit=False)
        for i in range(posts - 1):
            forum.reply(thread=thread, author=author,
                        body=f"reply {i} with *markdown* and a [link](https://example.org)",
                        enforce_rate_limit=False)
    board = forum.lobby_board()
    for i in range(30 - board.threads.count()):
        forum.start_thread(board=board, author=author, kind="discussion",
                           title=f"bench board {i}", body="a thread", enforce_rate_limit=False)
    gm = User.objects.get_or_create(username="bench-gm", defaults={"is_staff": True})[0]
    Profile.objects.get_or_create(user=gm, defaults={"display_name": gm.username})
    game = Game.objects.filter(name="bench-home").first()
    if game is None:
        players = [User.objects.get_or_create(username=f"bench-p{i}")[0] for i in range(8)]
        game = games.create_game(name="bench-home", ruleset="toy", gm=gm, seat_count=8,
                                 early_end=False)
        games.start_game(game_id=game.pk, users=players)
        games.end_phase_now(game_id=game.pk, gm=gm)  # night -> day, with a few events
    store = SessionStore()
    store[SESSION_KEY] = str(reader.pk)
    store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    store[HASH_SESSION_KEY] = reader.get_session_auth_hash()
    store.create()
    return {"thread": thread.pk, "posts": thread.posts.count(), "board": board.slug,
            "game": game.pk, "session": store.session_key,
            "deep": deep_thread(deep_posts, author)}


def run(server: Gunicorn, args) -> None:
    """Migrate and seed (in this process), measure against `server`, print the figures."""
    import django

    django.setup()
    from django.core.management import call_command

    # In-process: call_command skips the system checks, which refuse the toy rule set's
    # generic sentences (the game home page plays the toy, as the tests do).
    call_command("migrate", interactive=False, verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    made = seed(args.posts, args.deep_posts)
    from django.db import connections

    connections.close_all()
    signed_in = {"Cookie": f"sessionid={made['session']}"}
    page = f"/t/{made['thread']}/?page=3"
    pages = [
        ("trivial view (/healthz)", "/healthz", {}),
        # A trivial view through the whole middleware for a signed-in reader: the session and
        # the user with their profile are read (UserPreferencesMiddleware asks for them), as
        # on every signed-in page. /favicon.ico, since /healthz answers before the session
        # is read (config.health.ProbeMiddleware) and so reads nothing signed in either.
        ("trivial view, signed in", "/favicon.ico", signed_in),
        (f"thread page, anonymous (50 of {made['posts']})", page, NAVIGATE),
        (f"thread page, signed in (50 of {made['posts']})", page, {**NAVIGATE, **signed_in}),
        ("board list, signed in (30 threads)", f"/b/{made['board']}/", signed_in),
        ("board list, anonymous", f"/b/{made['board']}/", {}),
        ("game home, anonymous", f"/games/{made['game']}/", {}),
        ("game home, signed in", f"/games/{made['game']}/", signed_in),
    ]
    rates: dict[str, list[float]] = {name: [] for name, _p, _h in pages}
    server.wait_until_it_answers()
    port = server.port
    for i, (_name, path, headers) in enumerate(pages):  # warm up every worker
        measure(port, path, headers, 0.5, args.workers, kill_one=args.kill_a_client and i == 0)
    for _round in range(args.rounds):
        for name, path, headers in pages:
            rates[name].append(measure(port, path, headers, args.seconds / args.rounds,
                                       args.clients))
    signed_nav = {**NAVIGATE, **signed_in}
    miss = missed(port, made["thread"], [page], signed_nav, args.misses)[page]
    deep_paths = [f"/t/{made['deep']}/?page=2", f"/t/{made['deep']}/?page=last"]
    deep = missed(port, made["deep"], deep_paths, signed_nav, args.misses)
    print(f"gunicorn workers={args.workers} clients={args.clients} seconds={args.seconds} "
          f"rounds={args.rounds} database=PostgreSQL")
    base = sum(rates[pages[0][0]]) / args.rounds
    base_signed = sum(rates[pages[1][0]]) / args.rounds
    print("ratio: to /healthz (anonymous, no database); signed-in pages also to the "
          "signed-in trivial view (/favicon.ico: the same session and user reads)")
    print(f"{'page':44} {'req/s':>8} {'ratio':>6} {'signed':>7}")
    for name, _path, headers in pages:
        rps = sum(rates[name]) / args.rounds
        same = f"{rps / base_signed:7.3f}" if "Cookie" in headers else " " * 7
        print(f"{name:44} {rps:8.1f} {rps / base:6.3f} {same}")
    print(f"thread page just changed, signed in (page 3 of {made['posts']}): "
          f"{miss:.1f} ms (median of {args.misses})")
    second, last = (deep[p] for p in deep_paths)
    print(f"{args.deep_posts:,}-post thread just changed, signed in: last page {last:.1f} ms, "
          f"page 2 {second:.1f} ms, last / page 2 = {last / second:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10,
                        help="measuring time per page (split over the rounds)")
    parser.add_argument("--rounds", type=int, default=2)
    # The production layout of docs/operations.md: 2 × CPUs + 1 sync workers.
    parser.add_argument("--workers", type=int, default=2 * (os.cpu_count() or 1) + 1)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--posts", type=int, default=1000)
    parser.add_argument("--misses", type=int, default=15,
                        help="requests per timing of a page read just after a change")
    parser.add_argument("--deep-posts", type=int, default=10_000)
    # Tests of the failure path: the first client of the first measure exits at once.
    parser.add_argument("--kill-a-client", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    os.environ.setdefault("DATABASE_URL", DEFAULT_DB)
    os.environ.update(DEBUG="false", RATE_LIMITS="false", LOG_LEVEL="WARNING",
                      EXTRA_RULESETS="tests.toy:register",
                      DJANGO_SETTINGS_MODULE="config.settings")
    sys.path.insert(0, str(ROOT))
    ensure_database(os.environ["DATABASE_URL"])
    signal.signal(signal.SIGTERM, _stop_on)
    signal.signal(signal.SIGHUP, _stop_on)
    server = None
    try:
        # gunicorn boots (its workers import the project) while this process migrates and
        # seeds: nothing it does before the first request reads the database.
        server = Gunicorn(free_port(), args.workers)
        run(server, args)
    except BenchFailed as failure:
        sys.exit(f"bench_http: FAILED, no figures: {failure}")
    except KeyboardInterrupt:
        sys.exit("bench_http: interrupted")
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
