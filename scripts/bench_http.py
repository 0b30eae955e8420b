#!/usr/bin/env python
"""Requests per second of the thread page (100 posts) vs a trivial view, under gunicorn.

Both are measured in one run against the same server, so the ratio is what to read; absolute
numbers depend on the machine. Uses PostgreSQL: DATABASE_URL if set, else
postgres://postgres@127.0.0.1:5432/killinggames_bench (created if missing).

    .venv/bin/python scripts/bench_http.py [--seconds 10] [--workers 2] [--clients 8]
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


def client(port: int, path: str, seconds: float, out: mp.Queue) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    count = errors = 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        if response.status == 200:
            count += 1
        else:
            errors += 1
    out.put((count, errors))


def measure(port: int, path: str, seconds: float, clients: int) -> tuple[float, int]:
    out: mp.Queue = mp.Queue()
    procs = [mp.Process(target=client, args=(port, path, seconds, out)) for _ in range(clients)]
    start = time.perf_counter()
    for p in procs:
        p.start()
    results = [out.get() for _ in procs]
    for p in procs:
        p.join()
    elapsed = time.perf_counter() - start
    return sum(r[0] for r in results) / elapsed, sum(r[1] for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clients", type=int, default=8)
    args = parser.parse_args()

    env = dict(os.environ)
    env.setdefault("DATABASE_URL", DEFAULT_DB)
    env.update(DEBUG="false", RATE_LIMITS="false", LOG_LEVEL="WARNING")
    ensure_database(env["DATABASE_URL"])
    py = sys.executable
    subprocess.run([py, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run([py, "manage.py", "createcachetable"], cwd=ROOT, env=env, check=True)
    subprocess.run([py, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=env,
                   check=True)
    setup = (
        "from messaging import services as f; from messaging.models import Thread;"
        "from accounts.models import messenger_user;"
        "from django.contrib.auth import get_user_model as g;"
        "u, _ = g().objects.get_or_create(username='bench');"
        "t = Thread.objects.filter(key='bench-100').first()\n"
        "if t is None:\n"
        "    t = f.start_thread(board=f.lobby_board(), author=u, kind='discussion',"
        " title='bench', body='first **post**', key='bench-100', enforce_rate_limit=False)\n"
        "    [f.reply(thread=t, author=u, body=f'reply {i} with *markdown* and a [link](https://example.org)',"
        " enforce_rate_limit=False) for i in range(99)]\n"
        "print(t.pk, t.posts.count())"
    )
    out = subprocess.run([py, "manage.py", "shell", "-c", setup], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    thread_id, posts = out[-2], out[-1]
    port = free_port()
    server = subprocess.Popen(
        [py, "-m", "gunicorn", "config.wsgi", "-b", f"127.0.0.1:{port}", "-w",
         str(args.workers), "--log-level", "warning"], cwd=ROOT, env=env)
    try:
        for _ in range(100):
            try:
                http.client.HTTPConnection("127.0.0.1", port, timeout=1).request("GET", "/healthz")
                break
            except OSError:
                time.sleep(0.1)
        path = f"/t/{thread_id}/"
        measure(port, path, 1, 2)  # warm up both workers
        thread_rps, thread_err = measure(port, path, args.seconds, args.clients)
        trivial_rps, trivial_err = measure(port, "/healthz", args.seconds, args.clients)
    finally:
        server.terminate()
        server.wait(10)
    print(f"gunicorn workers={args.workers} clients={args.clients} seconds={args.seconds} "
          f"database=PostgreSQL")
    print(f"thread page ({posts} posts): {thread_rps:8.1f} req/s  errors={thread_err}")
    print(f"trivial view (/healthz):  {trivial_rps:8.1f} req/s  errors={trivial_err}")
    print(f"ratio thread/trivial:     {thread_rps / trivial_rps:8.3f}")


if __name__ == "__main__":
    main()
