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
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing as mp
import os
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


def client(port: int, path: str, headers: dict, seconds: float, out: mp.Queue) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    count = errors = 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        response.read()
        if response.status == 200:
            count += 1
        else:
            errors += 1
    out.put((count, errors))


def measure(port: int, path: str, headers: dict, seconds: float,
            clients: int) -> tuple[float, int]:
    out: mp.Queue = mp.Queue()
    procs = [mp.Process(target=client, args=(port, path, headers, seconds, out))
             for _ in range(clients)]
    start = time.perf_counter()
    for p in procs:
        p.start()
    results = [out.get() for _ in procs]
    for p in procs:
        p.join()
    elapsed = time.perf_counter() - start
    return sum(r[0] for r in results) / elapsed, sum(r[1] for r in results)


def timed_get(port: int, path: str, headers: dict) -> float:
    """One request on a fresh connection; its time in milliseconds (it must answer 200)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    start = time.perf_counter()
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    response.read()
    elapsed = (time.perf_counter() - start) * 1000
    conn.close()
    if response.status != 200:
        raise SystemExit(f"{path} answered {response.status}")
    return elapsed


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
    args = parser.parse_args()

    os.environ.setdefault("DATABASE_URL", DEFAULT_DB)
    os.environ.update(DEBUG="false", RATE_LIMITS="false", LOG_LEVEL="WARNING",
                      EXTRA_RULESETS="tests.toy:register",
                      DJANGO_SETTINGS_MODULE="config.settings")
    sys.path.insert(0, str(ROOT))
    ensure_database(os.environ["DATABASE_URL"])
    py = sys.executable
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
    port = free_port()
    server = subprocess.Popen(
        [py, "-m", "gunicorn", "config.wsgi", "-b", f"127.0.0.1:{port}", "-w",
         str(args.workers), "--log-level", "warning"], cwd=ROOT, env=dict(os.environ))
    rates: dict[str, list[float]] = {name: [] for name, _p, _h in pages}
    errors: dict[str, int] = {name: 0 for name, _p, _h in pages}
    try:
        for _ in range(100):
            try:
                http.client.HTTPConnection("127.0.0.1", port, timeout=1).request("GET", "/healthz")
                break
            except OSError:
                time.sleep(0.1)
        for _name, path, headers in pages:
            measure(port, path, headers, 0.5, args.workers)  # warm up every worker
        for _round in range(args.rounds):
            for name, path, headers in pages:
                rps, err = measure(port, path, headers, args.seconds / args.rounds,
                                   args.clients)
                rates[name].append(rps)
                errors[name] += err
        signed_nav = {**NAVIGATE, **signed_in}
        miss = missed(port, made["thread"], [page], signed_nav, args.misses)[page]
        deep_paths = [f"/t/{made['deep']}/?page=2", f"/t/{made['deep']}/?page=last"]
        deep = missed(port, made["deep"], deep_paths, signed_nav, args.misses)
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    print(f"gunicorn workers={args.workers} clients={args.clients} seconds={args.seconds} "
          f"rounds={args.rounds} database=PostgreSQL")
    base = sum(rates[pages[0][0]]) / args.rounds
    base_signed = sum(rates[pages[1][0]]) / args.rounds
    print("ratio: to /healthz (anonymous, no database); signed-in pages also to the "
          "signed-in trivial view (/favicon.ico: the same session and user reads)")
    print(f"{'page':44} {'req/s':>8} {'ratio':>6} {'signed':>7}  errors")
    for name, _path, headers in pages:
        rps = sum(rates[name]) / args.rounds
        same = f"{rps / base_signed:7.3f}" if "Cookie" in headers else " " * 7
        print(f"{name:44} {rps:8.1f} {rps / base:6.3f} {same}  {errors[name]}")
    print(f"thread page just changed, signed in (page 3 of {made['posts']}): "
          f"{miss:.1f} ms (median of {args.misses})")
    second, last = (deep[p] for p in deep_paths)
    print(f"{args.deep_posts:,}-post thread just changed, signed in: last page {last:.1f} ms, "
          f"page 2 {second:.1f} ms, last / page 2 = {last / second:.2f}")
    if any(errors.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
