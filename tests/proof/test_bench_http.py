"""`make bench` (scripts/bench_http.py) fails loudly and cleans up: a client process that
dies stops the run at once, non-zero, with a sentence naming the page, and neither the
gunicorn it started (nor any process of its group) nor a client is left behind; nor are they
when the bench itself is killed (SIGTERM) while it runs."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings

from tests.proof.test_devstack import live_processes

ROOT = Path(settings.BASE_DIR)


def start_bench(tmp_path, *options: str) -> subprocess.Popen:
    """The bench against the test database with a tiny seed (three-post threads) and one
    gunicorn worker."""
    from django.db import connection

    db = connection.settings_dict
    url = (f"postgres://{db['USER'] or 'postgres'}@{quote(db['HOST'] or '127.0.0.1', safe='')}"
           f"{':' + str(db['PORT']) if db['PORT'] else ''}/{db['NAME']}")
    return subprocess.Popen(
        [sys.executable, "scripts/bench_http.py", "--workers", "1", "--clients", "2",
         "--posts", "3", "--deep-posts", "3", *options],
        cwd=ROOT, env=dict(os.environ, DATABASE_URL=url, VAR_DIR=str(tmp_path)),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


@needs_proc
@pytest.mark.django_db(transaction=True)
def test_a_client_that_dies_fails_the_bench_and_leaves_no_gunicorn(tmp_path):
    """--kill-a-client: the first client of the first measure exits at once with code 3.
    Before, the parent waited for its count forever."""
    bench = start_bench(tmp_path, "--kill-a-client", "--seconds", "1")
    try:
        out, err = bench.communicate(timeout=120)
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.wait()
    assert bench.returncode == 1, out + err
    assert ("bench_http: FAILED, no figures: a client process measuring /healthz died "
            "(exit code 3) without its count") in err, out + err
    gunicorn = int(re.search(r"gunicorn: process (\d+) ", out).group(1))
    assert live_processes(lambda fields: int(fields[2]) == gunicorn) == []  # its group
    assert live_processes(lambda fields: int(fields[1]) == bench.pid) == []  # its clients


@needs_proc
@pytest.mark.django_db(transaction=True)
def test_a_bench_killed_while_it_measures_stops_its_gunicorn(tmp_path):
    """SIGTERM (`kill PID`) once gunicorn answers: the bench stops it, its whole group, and
    says why. Before, the bench died at once and its gunicorn served on."""
    bench = start_bench(tmp_path, "--seconds", "60")
    try:
        found = re.search(r"gunicorn: process (\d+) .* on 127\.0\.0\.1:(\d+)",
                          bench.stdout.readline())
        assert found, bench.stdout.read()
        gunicorn, port = int(found.group(1)), found.group(2)
        end = time.monotonic() + 60
        while True:  # gunicorn answers: the bench is seeding or measuring
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                    break
            except OSError:
                assert time.monotonic() < end and bench.poll() is None
                time.sleep(0.1)
        bench.send_signal(signal.SIGTERM)
        out, err = bench.communicate(timeout=60)
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.wait()
    assert bench.returncode == 1 and "stopped by signal SIGTERM" in err, out + err
    assert live_processes(lambda fields: int(fields[2]) == gunicorn) == []
    assert live_processes(lambda fields: int(fields[1]) == bench.pid) == []


def test_a_page_that_answers_an_error_stops_the_measure_with_its_status(monkeypatch):
    """In process, against a server whose every answer is a 500: the first client's first
    answer ends the measure with the page and the status, long before its seconds."""
    import http.server
    import threading

    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    import bench_http

    class Broken(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the standard library's name)
            self.send_response(500)
            self.send_header("Content-Length", "4")
            self.end_headers()
            self.wfile.write(b"oops")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Broken)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    began = time.monotonic()
    try:
        with pytest.raises(bench_http.BenchFailed, match=r"^/broken answered 500: b'oops'$"):
            bench_http.measure(server.server_port, "/broken", {}, 30, 2)
    finally:
        server.shutdown()
    assert time.monotonic() - began < 10
