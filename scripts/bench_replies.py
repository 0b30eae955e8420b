#!/usr/bin/env python
"""Replies to one busy thread at a steady rate over HTTP: p50, p99 and their ratio.

N posters (default 20) reply to the same thread, open loop at a fixed total rate (default
20 replies/s, each poster once a second) for a fixed time (default 60 s), against gunicorn
started here on a free port (the production layout: gthread, 2 × CPUs + 1 workers × 4
threads). A reply's time is from the moment it was due (not the moment a busy client got
round to sending it) to the answer (the POST's 303/302, not the page it redirects to), so a
stall counts for every reply it delays. Before the posters start the database holds a
history of long Chinese posts (`--history`, kept between runs), so the search index has a
realistic size.

The search index (`post_search_terms_gin`, messaging/search.py) can be measured under
several settings in one run (`--variants`): each variant sets the index's options, empties
its pending list, warms up for a few seconds, then measures; the index's options are put
back as they were at the end. A sampler counts the pending list's flushes during each
measurement (pgstattuple's `pgstatginindex`: its pending pages falling). `--serial N` also
times N replies one after another in this process for each variant (no concurrency: the
cost of one reply, and its worst case).

Variants: as-is (the index as the migrations leave it), fastupdate-off, pending-64kB,
pending-256kB (fastupdate on with that `gin_pending_list_limit`), fastupdate-on (the
PostgreSQL default: on, 4 MB).

Old code and new code side by side in one run (`--trees`): a server is started from each
checkout named (e.g. a git worktree of the last commit, and this one), and every round
measures each in turn against the same database, so a machine that gets busier or quieter
moves them alike. The database is seeded and migrated by this checkout's code.

Uses DATABASE_URL (default postgres://postgres@127.0.0.1:5432/killinggames_bench_writes,
created if missing) and REDIS_URL (default redis://127.0.0.1:6379/10).

    .venv/bin/python scripts/bench_replies.py [--rate 20] [--posters 20] [--seconds 60]
        [--variants as-is,fastupdate-off] [--serial 300] [--history 50000]
        [--trees old=/tmp/head,new=.] [--rounds 2]

    git worktree add --detach /tmp/head HEAD   # the old code, for --trees old=/tmp/head,new=.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
from serving import wait_until_it_answers  # noqa: E402 - after the path

# Celery's loader puts the working directory in front of the import path while it imports
# (config.celery): run from this checkout, so its code is what runs in this process.
os.chdir(ROOT)
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/killinggames_bench_writes")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/10")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.update(LOG_LEVEL="WARNING", RATE_LIMITS="false", DEBUG="false")

INDEX = "post_search_terms_gin"
BENCH = "bench-writes"
VARIANTS = {
    "as-is": None,
    "fastupdate-off": "fastupdate = off",
    "fastupdate-on": "fastupdate = on, gin_pending_list_limit = 4096",
    "pending-256kB": "fastupdate = on, gin_pending_list_limit = 256",
    "pending-64kB": "fastupdate = on, gin_pending_list_limit = 64",
}
# Characters and words of players' posts, so the index sees the terms a forum's does.
CHARS = ("的一是不了人我在有他这为之大来以个中上们到说和地也子时道出而要于就下得可你年生自会那后能对"
         "着事其里所去行过家十用发天如然作方成者多日都三小二无同么经法当起与好看学进种将还分此心前"
         "面又定见只主没公从知使点意把开头怎样票杀手平民警察狼人查验金水预言家昨晚今天发言怀疑号觉"
         "得投出局死亡夜晚白天遗言守护毒药女巫刀口身份跳站边保护逻辑视角轮次归票弃票notokvote")
WORDS = ["我觉得", "杀手", "平民", "投票", "查杀", "金水", "预言家", "昨晚", "发言", "怀疑",
         "今天", "号", "不是", "没有", "所以", "因为", "但是", "如果", "可能", "应该", "一定"]


def post_text(rng: random.Random) -> str:
    """A player's post: 150-450 characters of words and characters, a seat number or two."""
    out, length = [], rng.randint(150, 450)
    while sum(map(len, out)) < length:
        r = rng.random()
        if r < 0.4:
            out.append(rng.choice(WORDS))
        elif r < 0.45:
            out.append(f"{rng.randint(1, 12)}号")
        elif r < 0.5:
            out.append("，" if rng.random() < 0.7 else "。\n")
        else:
            out.append("".join(rng.choice(CHARS) for _ in range(rng.randint(1, 4))))
    return "".join(out)


def seed(history: int, posters: int) -> dict:
    """The history (kept between runs), the posters with a session each, the thread."""
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.sessions.backends.db import SessionStore
    from django.db import connection
    from django.middleware.csrf import _get_new_csrf_string
    from django.utils.html import escape

    from accounts.models import Profile
    from messaging import search, services
    from messaging.models import Board, Post, PostSearch, Thread

    User = get_user_model()
    rng = random.Random(17)
    people = []
    for i in range(max(posters, 20)):
        user = User.objects.get_or_create(username=f"{BENCH}-{i}")[0]
        Profile.objects.get_or_create(user=user, defaults={"display_name": f"写手{i}"})
        people.append(user)
    board = Board.objects.get_or_create(slug=BENCH, defaults={"title": "写入", "kind": "game"})[0]
    have = Post.objects.filter(thread__board=board).count()
    if have < history:
        t0 = time.perf_counter()
        threads = list(Thread.objects.filter(board=board, key__startswith="history-"))
        for i in range(len(threads), 50):
            threads.append(Thread.objects.create(board=board, kind="discussion", key=f"history-{i}",
                                                 title=f"第{i}天讨论", author=people[0]))
        numbers = dict(Thread.objects.filter(board=board).values_list("pk", "last_number"))
        titles = {t.pk: t.title for t in threads}

        def index(made: list) -> None:
            """The posts' search rows (messaging.search), as the services write them."""
            rows = []
            for post in made:
                fields = search.fields_for(
                    body=post.body, title=titles[post.thread_id] if post.number == 1 else "")
                rows.append(PostSearch(post=post, text=fields["search_text"],
                                       terms=fields["search_terms"]))
            PostSearch.objects.bulk_create(rows)

        batch = []
        for _ in range(history - have):
            thread = rng.choice(threads)
            n = numbers[thread.pk] = numbers[thread.pk] + 1
            body = post_text(rng)
            batch.append(Post(thread=thread, number=n, author=rng.choice(people), body=body,
                              html=f"<p>{escape(body)}</p>"))
            if len(batch) == 5000:
                index(Post.objects.bulk_create(batch))
                batch = []
        index(Post.objects.bulk_create(batch))
        with connection.cursor() as c:
            c.execute("""UPDATE messaging_thread t SET last_number = s.n, post_count = s.c,
                         last_post_at = now(), last_post_id = s.last
                         FROM (SELECT thread_id, max(number) n, count(*) c, max(id) last
                               FROM messaging_post GROUP BY thread_id) s
                         WHERE s.thread_id = t.id""")
        print(f"seeded {history - have} posts of history in {time.perf_counter() - t0:.0f} s")
    with connection.cursor() as c:
        c.execute(f"SELECT gin_clean_pending_list('{INDEX}'::regclass)")
        c.execute("VACUUM ANALYZE messaging_post")
    thread = Thread.objects.filter(board=board, key="busy").first() or services.start_thread(
        board=board, author=people[0], kind="discussion", title="第一天大讨论",
        body=post_text(rng), key="busy", enforce_rate_limit=False)
    sessions = []
    for user in people[:posters]:
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        sessions.append((store.session_key, _get_new_csrf_string()))
    return {"thread": thread.pk, "sessions": sessions, "people": people,
            "history": Post.objects.filter(thread__board=board).count()}


class Sampler(threading.Thread):
    """Every 20 ms on its own connection: the pending list's flushes (its pages falling) and
    the most pending pages seen; and the backends of this database waiting for a lock (the
    replies queued behind the thread's row), the most seen and their mean over the
    samples."""

    def __init__(self, url: str):
        super().__init__(daemon=True)
        import psycopg

        self.conn = psycopg.connect(url, autocommit=True)
        self.conn.execute("CREATE EXTENSION IF NOT EXISTS pgstattuple")
        self.stop, self.flushes, self.most = threading.Event(), 0, 0
        self.waiting: list[int] = []

    def sample(self) -> tuple[int, int]:
        return self.conn.execute(
            f"SELECT (SELECT pending_pages FROM pgstatginindex('{INDEX}')), "
            "(SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock')").fetchone()

    def run(self) -> None:
        last = self.sample()[0]
        while not self.stop.wait(0.02):
            now, waiting = self.sample()
            self.flushes += now < last
            self.most, last = max(self.most, now), now
            self.waiting.append(waiting)


def set_index(url: str, options: str | None, original: list[str] | None = None) -> list[str]:
    """Apply `options` to the index (or put back `original`), empty its pending list; the
    options it had before."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        before = conn.execute("SELECT coalesce(reloptions, '{}') FROM pg_class WHERE relname = %s",
                              (INDEX,)).fetchone()[0]
        if original is not None:
            conn.execute(f"ALTER INDEX {INDEX} RESET (fastupdate, gin_pending_list_limit)")
            if original:
                conn.execute(f"ALTER INDEX {INDEX} SET ({', '.join(original)})")
        elif options:
            conn.execute(f"ALTER INDEX {INDEX} SET ({options})")
        conn.execute(f"SELECT gin_clean_pending_list('{INDEX}'::regclass)")
        return list(before)


def index_options(url: str) -> str:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        options = conn.execute("SELECT reloptions FROM pg_class WHERE relname = %s",
                               (INDEX,)).fetchone()[0]
        return ", ".join(options or []) or "defaults (fastupdate on, the server's limit)"


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def load(port: int, made: dict, rate: float, seconds: float, rng: random.Random) -> list[dict]:
    """Replies at `rate` per second for `seconds`, open loop: reply i is due at start + i/rate
    and goes out then whatever the earlier ones are doing, from poster i mod N."""
    count = int(rate * seconds)
    sessions = made["sessions"]
    bodies = [post_text(rng) for _ in range(count)]
    start = time.perf_counter() + 0.5
    results: list[dict] = []

    def send(i: int) -> None:
        due = start + i / rate
        session, csrf = sessions[i % len(sessions)]
        sent = time.perf_counter()
        status = 0
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            conn.request("POST", f"/t/{made['thread']}/reply/",
                         urlencode({"body": bodies[i], "csrfmiddlewaretoken": csrf}),
                         {"Content-Type": "application/x-www-form-urlencoded",
                          "Cookie": f"sessionid={session}; csrftoken={csrf}"})
            response = conn.getresponse()
            response.read()
            status = response.status
            conn.close()
        except OSError:
            pass
        results.append({"due": due, "sent": sent, "done": time.perf_counter(), "status": status})

    # Enough senders that none waits for a free one even when replies stall for a second.
    with ThreadPoolExecutor(max_workers=int(rate * 3) + 10) as pool:
        for i in range(count):
            time.sleep(max(0.0, start + i / rate - time.perf_counter()))
            pool.submit(send, i)
    return results


def serial(made: dict, count: int, rng: random.Random) -> tuple[list[float], ...]:
    """`count` replies one after another through the service in this process: each reply's
    time; how long it held the thread's row (from its `SELECT … FOR UPDATE` to its commit:
    what every reply queued behind it waits for); and, where the search row is written after
    the commit (messaging.search.index_post), that write's time (how long search lags behind
    the post); in ms."""
    from django.db import connection

    from messaging import search, services
    from messaging.models import Thread

    thread = Thread.objects.get(pk=made["thread"])
    times, held, lags, statements = [], [], [], []
    locked: list[float] = []

    def watch(execute, sql, params, many, context):
        if sql.startswith("SELECT") and "FOR UPDATE" in sql \
                and '"messaging_thread"' in sql.split(" FROM ", 1)[1][:40]:
            locked[:] = [time.perf_counter()]
            statements.append(0)
        elif locked:
            statements[-1] += 1
        return execute(sql, params, many, context)

    commit = connection.commit

    def committed():
        commit()
        if locked:
            held.append((time.perf_counter() - locked.pop()) * 1000)

    index_post = getattr(search, "index_post", None)
    if index_post is not None:
        def timed(post_id: int) -> None:
            t = time.perf_counter()
            index_post(post_id)
            lags.append((time.perf_counter() - t) * 1000)

        search.index_post = timed
    connection.ensure_connection()
    connection.commit = committed
    try:
        with connection.execute_wrapper(watch):
            for i in range(count):
                body = post_text(rng)
                t = time.perf_counter()
                services.reply(thread=thread, author=made["people"][i % len(made["people"])],
                               body=body, enforce_rate_limit=False)
                times.append((time.perf_counter() - t) * 1000)
    finally:
        del connection.commit
        if index_post is not None:
            search.index_post = index_post
    if statements:
        print(f"statements under the thread's lock, after the lock itself: median "
              f"{statistics.median(statements):g}, most {max(statements)}")
    return times, held, lags


def trees_named(text: str) -> dict[str, Path]:
    """{name: checkout} from "old=/tmp/head,new=." (a bare path is named by its folder)."""
    trees = {}
    for item in (part.strip() for part in text.split(",")):
        if item:
            name, _eq, path = item.rpartition("=")
            tree = Path(path).resolve()
            trees[name or tree.name] = tree
    return trees


def describe(tree: Path) -> str:
    """The commit a checkout is at, and whether its files differ from it."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(tree), *args], capture_output=True,
                              text=True).stdout.strip()

    changed = git("status", "--porcelain", "--untracked-files=no")
    return f"{git('rev-parse', '--short', 'HEAD')}{' with changes' if changed else ''}"


def serve(tree: Path, workers: int, threads: int) -> tuple[int, subprocess.Popen]:
    """gunicorn serving the code of checkout `tree` (its own modules before this one's: the
    server's working directory leads the import path), on a free port."""
    from bench_http import free_port

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "-b", f"127.0.0.1:{port}",
         "-k", "gthread", "-w", str(workers), "--threads", str(threads),
         "--log-level", "warning"], cwd=tree, env=dict(os.environ))
    return port, server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=20, help="replies per second in all")
    parser.add_argument("--posters", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure the variants in turn this many times, each for "
                             "seconds/rounds, so a machine that gets busier moves them alike")
    parser.add_argument("--variants", default="as-is",
                        help=f"comma-separated, of: {', '.join(VARIANTS)}")
    parser.add_argument("--serial", type=int, default=0,
                        help="also time this many replies one by one per variant")
    parser.add_argument("--history", type=int, default=50_000)
    parser.add_argument("--workers", type=int, default=2 * (os.cpu_count() or 1) + 1)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--trees", default="",
                        help="comma-separated NAME=PATH checkouts to serve the replies from, "
                             "each measured in turn every round (default: this one)")
    args = parser.parse_args()
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variants: {', '.join(unknown)}")
    trees = trees_named(args.trees) if args.trees else {"this": ROOT}
    for name, tree in trees.items():
        if not (tree / "config" / "wsgi.py").exists():
            parser.error(f"{name}={tree}: not a checkout of this project")
    from bench_http import ensure_database

    url = os.environ["DATABASE_URL"]
    ensure_database(url)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections

    call_command("migrate", interactive=False, verbosity=0)
    made = seed(args.history, args.posters)
    connections.close_all()
    # Stopped with SIGTERM (a timeout, Ctrl-C's cousin): leave through `finally`, which stops
    # the servers and puts the index's options back.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    servers: dict[str, tuple[int, subprocess.Popen]] = {}
    rng = random.Random(29)
    original = set_index(url, None)
    try:
        for name, tree in trees.items():
            servers[name] = serve(tree, args.workers, args.threads)
        for port, _server in servers.values():
            wait_until_it_answers(port)
        # One row per checkout and variant, measured in that order every round.
        rows = [(name, variant) for variant in variants for name in trees]
        measured = {key: {"ms": [], "late": [], "bad": 0, "flushes": 0, "most": 0,
                          "serial": [], "held": [], "lag": [], "load": [], "waiting": []}
                    for key in rows}
        shown = {}
        for round_ in range(args.rounds):
            for name, variant in rows:
                row = measured[name, variant]
                port = servers[name][0]
                set_index(url, None, original)
                set_index(url, VARIANTS[variant])
                shown[variant] = index_options(url)
                if args.serial and round_ == 0 and name == next(iter(trees)):
                    row["serial"], row["held"], row["lag"] = serial(made, args.serial, rng)
                    connections.close_all()
                load(port, made, args.rate, args.warmup, rng)
                set_index(url, None)  # every measurement starts with an empty pending list
                sampler = Sampler(url)
                sampler.start()
                results = load(port, made, args.rate, args.seconds / args.rounds, rng)
                sampler.stop.set()
                sampler.join()
                row["ms"] += [(r["done"] - r["due"]) * 1000 for r in results]
                row["late"] += [(r["sent"] - r["due"]) * 1000 for r in results]
                row["bad"] += sum(r["status"] not in (302, 303) for r in results)
                row["flushes"] += sampler.flushes
                row["most"] = max(row["most"], sampler.most)
                row["waiting"] += sampler.waiting
                row["load"].append(os.getloadavg()[0])
                ms = [(r["done"] - r["due"]) * 1000 for r in results]
                p50, p99 = percentile(ms, 50), percentile(ms, 99)
                waiting = statistics.mean(sampler.waiting or [0])
                print(f"round {round_ + 1}, {name} {variant}: p50 {p50:.0f} ms, p99 {p99:.0f} "
                      f"ms, p99/p50 {p99 / p50:.2f}, waiting {waiting:.1f}, load average "
                      f"{os.getloadavg()[0]:.1f}", flush=True)
    finally:
        for _port, server in servers.values():
            server.terminate()
        for _port, server in servers.values():
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        set_index(url, None, original)
    print()
    print(f"{args.posters} posters, {args.rate:g} replies/s open loop for {args.seconds:g} s "
          f"(after {args.warmup:g} s of warm-up) to one thread; gunicorn gthread "
          f"{args.workers} × {args.threads}; PostgreSQL with {made['history']:,} posts of "
          f"history; the reply POST timed from when it was due to its redirect")
    for name, tree in trees.items():
        print(f"{name}: {tree} ({describe(tree)})")
    print(f"{'code':8} {'variant':16} {'replies':>7} {'p50':>6} {'p90':>6} {'p99':>6} "
          f"{'max':>6} {'p99/p50':>7} {'waiting':>9} {'flushes':>7} {'pending':>7} "
          f"{'errors':>6} {'load':>5}  index options")
    for (name, variant), row in measured.items():
        ms, waiting = row["ms"], row["waiting"] or [0]
        p50, p99 = percentile(ms, 50), percentile(ms, 99)
        print(f"{name:8} {variant:16} {len(ms):7} {p50:6.0f} {percentile(ms, 90):6.0f} "
              f"{p99:6.0f} {max(ms):6.0f} {p99 / p50:7.2f} "
              f"{statistics.mean(waiting):4.1f}/{max(waiting):<4} {row['flushes']:7} "
              f"{row['most']:7} {row['bad']:6} {statistics.mean(row['load']):5.1f}  "
              f"{shown[variant]}")
    if args.serial:
        print()
        print("one reply after another in this process (ms), this checkout's code: no "
              "concurrency, the reply's own cost")
        print(f"{'variant':16} {'replies':>7} {'mean':>6} {'p50':>6} {'p99':>6} {'max':>6}"
              "   thread locked: p50 p99 max   search row after the commit: p50 p99 max")
        for (_name, variant), row in measured.items():
            serial_ms, held, lag = row["serial"], row["held"], row["lag"]
            if not serial_ms:
                continue
            after = (f"   {percentile(lag, 50):.1f} {percentile(lag, 99):.1f} {max(lag):.1f}"
                     if lag else "   (written with the post)")
            print(f"{variant:16} {len(serial_ms):7} {statistics.mean(serial_ms):6.1f} "
                  f"{percentile(serial_ms, 50):6.1f} {percentile(serial_ms, 99):6.1f} "
                  f"{max(serial_ms):6.1f}   {percentile(held, 50):13.1f} "
                  f"{percentile(held, 99):.1f} {max(held):.1f}{after}")
    lateness = [x for row in measured.values() for x in row["late"]]
    print(f"\nclient lateness (sent after due): p99 {percentile(lateness, 99):.1f} ms "
          f"(the client kept up if this is small)")
    print("waiting: backends waiting for a lock (the replies queued behind the thread's "
          "row), mean/most of the samples every 20 ms; flushes: the times the pending list "
          "was emptied; pending: the most pending-list pages seen; load: the machine's "
          "1-minute load average after each measurement")
    if any(row["bad"] for row in measured.values()):
        sys.exit(1)

if __name__ == "__main__":
    main()
