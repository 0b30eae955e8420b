"""/readyz (database, broker, the beat sweeper's last completed sweep), log
lines with time, level and logger, ADMINS from the environment, optional Sentry.

/readyz answers 200 or 503 with JSON naming each check's result and the failing ones, never
a 500, whatever is down: the broker is asked for a PING (a connection that opens is not an
answer), and the heartbeat is a cache read that may fail like any other."""

from __future__ import annotations

import gzip
import http.server
import re
import threading
import time

import brotli
import pytest
from django.core.cache import caches

from config import health
from config.env import SettingError, env_admins
from config.health import SWEEP_KEY, record_sweep_completed
from tests.proof.test_security import PRODUCTION, settings_subprocess

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_heartbeat():
    caches["default"].delete(SWEEP_KEY)
    yield
    caches["default"].delete(SWEEP_KEY)


def test_ready_when_the_database_the_broker_and_a_recent_sweep_are_fine(client):
    record_sweep_completed()
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"ready": True, "checks": {"database": "ok", "broker": "ok",
                                                         "sweep": "ok"}, "failing": []}
    assert "no-cache" in response["Cache-Control"]


def test_not_ready_before_the_first_sweep(client):
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["sweep"] == "no sweep recorded"
    assert response.json()["failing"] == ["sweep"]


def test_not_ready_when_beat_has_not_swept_for_three_intervals(client, settings):
    settings.SWEEP_INTERVAL_SECONDS = 20
    record_sweep_completed(time.time() - 59)
    assert client.get("/readyz").status_code == 200
    record_sweep_completed(time.time() - 61)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["sweep"] == "last sweep 61 s ago (limit 60 s)"
    assert response.json()["failing"] == ["sweep"]


def test_the_sweep_task_records_its_completion(db):
    from games.tasks import sweep

    before = time.time()
    assert sweep() == {"advanced": 0}
    assert caches["default"].get(SWEEP_KEY) >= before


def readyz_with_broker(client, url: str):
    """/readyz with the Celery app's broker at `url`."""
    from config.celery import app

    record_sweep_completed()
    previous = app.conf.broker_url
    app.conf.broker_url = url
    try:
        return client.get("/readyz")
    finally:
        app.conf.broker_url = previous


def test_not_ready_when_the_broker_is_down(client):
    response = readyz_with_broker(client, "redis://127.0.0.1:1/0")  # nothing listens on port 1
    assert response.status_code == 503
    assert response.json()["checks"]["broker"] == "unreachable"
    assert response.json()["failing"] == ["broker"]


def test_not_ready_when_the_brokers_unix_socket_is_gone(client, tmp_path):
    """The devstack's spelling of a Redis on a Unix socket (config/devstack.py broker_url)."""
    response = readyz_with_broker(client, f"redis+socket://{tmp_path}/redis.sock?virtual_host=2")
    assert response.status_code == 503
    assert response.json()["failing"] == ["broker"]


@pytest.mark.parametrize("family", ["tcp", "unix"])
def test_not_ready_when_the_broker_accepts_but_never_answers(client, tmp_path, family):
    """A socket that accepts connections and says nothing: only a round trip (a PING with a
    timeout) tells it from a broker; the probe answers within the broker timeout."""
    import socket

    if family == "tcp":
        silent = socket.socket()
        silent.bind(("127.0.0.1", 0))
        url = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"
    else:
        silent = socket.socket(socket.AF_UNIX)
        silent.bind(str(tmp_path / "silent.sock"))
        url = f"redis+socket://{tmp_path}/silent.sock?virtual_host=0"
    silent.listen(5)
    try:
        started = time.monotonic()
        response = readyz_with_broker(client, url)
        took = time.monotonic() - started
    finally:
        silent.close()
    assert response.status_code == 503
    assert response.json()["failing"] == ["broker"]
    assert took < 3 * health.BROKER_TIMEOUT


def test_not_ready_but_no_error_when_the_health_cache_cannot_be_read(client, settings):
    """Redis gone from under the heartbeat (its alias pointed at a port nothing listens on):
    a 503 naming the sweep with a clear reason, not a 500, and not "no sweep recorded"
    (the configured cache would answer a miss)."""
    record_sweep_completed()
    settings.CACHES = {**settings.CACHES,
                       "default": {**settings.CACHES["default"],
                                   "LOCATION": "redis://127.0.0.1:1/0"}}
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["sweep"] == "heartbeat unreadable (health cache unreachable)"
    assert response.json()["failing"] == ["sweep"]


def test_a_check_that_raises_all_the_same_is_a_503(client, monkeypatch):
    record_sweep_completed()

    def broken():
        raise RuntimeError("a bug in a check")

    monkeypatch.setitem(health.CHECKS, "database", broken)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["database"] == "check failed"
    assert response.json()["failing"] == ["database"]


PROBE = """
import json
from django.test import Client
client = Client(raise_request_exception=False, SERVER_NAME="localhost")
ready, alive = client.get("/readyz"), client.get("/healthz")
print(json.dumps([ready.status_code, ready.content.decode()[:400], alive.status_code]))
"""


def probe(**env) -> tuple[int, dict, int]:
    """/readyz and /healthz answered by a process started with `env` (what is down)."""
    import json

    status, body, alive = json.loads(settings_subprocess(PROBE, **env).splitlines()[-1])
    assert status != 500, body
    return status, json.loads(body), alive


def test_with_redis_stopped_readyz_is_a_503_naming_broker_and_sweep_and_healthz_answers():
    dead = "redis://127.0.0.1:1/0"
    status, body, alive = probe(REDIS_URL=dead, CELERY_BROKER_URL=dead,
                                CELERY_RESULT_BACKEND=dead)
    assert status == 503 and body["ready"] is False
    assert body["checks"]["broker"] == "unreachable"
    assert body["checks"]["sweep"] == "heartbeat unreadable (health cache unreachable)"
    assert alive == 200


def test_with_the_database_down_readyz_is_a_503_naming_it_and_healthz_answers():
    status, body, alive = probe(DATABASE_URL="postgres://postgres@127.0.0.1:1/nothing")
    assert status == 503 and body["checks"]["database"] == "unreachable"
    assert "database" in body["failing"]
    assert alive == 200


def test_readyz_answers_only_reads(client):
    assert client.post("/readyz").status_code == 405


def test_log_line_format_seen_on_stderr():
    import os
    import subprocess
    import sys

    from django.conf import settings

    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_ALLOW_ASYNC_UNSAFE",)}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    script = ("import django; django.setup()\nimport logging\n"
              "logging.getLogger('games.services').warning('advance failed for game %s', 7)")
    result = subprocess.run([sys.executable, "-c", script], cwd=settings.BASE_DIR, env=env,
                            capture_output=True, text=True, timeout=60)
    line = result.stderr.strip().splitlines()[-1]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ WARNING games\.services "
                        r"advance failed for game 7", line), line


def test_admins_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("ADMINS", "Ada <ada@example.org>, ops@example.org")
    assert env_admins("ADMINS") == [("Ada", "ada@example.org"), ("ops", "ops@example.org")]
    monkeypatch.setenv("ADMINS", "")
    assert env_admins("ADMINS") == []


@pytest.mark.parametrize("raw", ["ada", "Ada <ada>", "ada@example.org; bob@example.org",
                                 "<>", "Ada <ada@example.org"])
def test_a_malformed_admin_stops_the_process(monkeypatch, raw):
    monkeypatch.setenv("ADMINS", raw)
    with pytest.raises(SettingError):
        env_admins("ADMINS")


def test_settings_read_admins_and_refuse_bad_ones():
    out = settings_subprocess("from django.conf import settings; print(settings.ADMINS)",
                              ADMINS="Ada <ada@example.org>", **PRODUCTION)
    assert out.strip() == "[('Ada', 'ada@example.org')]"
    with pytest.raises(AssertionError, match="is not an email address"):
        settings_subprocess("pass", ADMINS="not-an-address")


def test_sentry_is_on_only_with_a_dsn():
    code = ("import sentry_sdk\nclient = sentry_sdk.get_client()\n"
            "print(client.is_active(), sorted(getattr(client, 'integrations', {})))")
    off = settings_subprocess(code)
    assert off.split()[0] == "False"
    on = settings_subprocess(code, SENTRY_DSN="https://public@sentry.example.invalid/1")
    assert on.split()[0] == "True"
    assert "'celery'" in on and "'django'" in on
    with pytest.raises(AssertionError, match="SENTRY_DSN"):
        settings_subprocess("pass", SENTRY_DSN="not-a-dsn")


class _SentryStub(http.server.BaseHTTPRequestHandler):
    """A Sentry ingest endpoint on 127.0.0.1: keeps each envelope it receives, unzipped."""

    received: list[bytes] = []

    def do_POST(self):  # noqa: N802 (the standard library's name)
        body = self.rfile.read(int(self.headers["Content-Length"]))
        encoding = self.headers.get("Content-Encoding")
        if encoding == "gzip":
            body = gzip.decompress(body)
        elif encoding == "br":
            body = brotli.decompress(body)
        self.received.append(body)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_an_uncaught_error_reaches_sentry_without_personal_data():
    """The settings start with the sentry-sdk a fresh install gets, and an error raised
    where a request would carry a signed-in account reaches a Sentry endpoint (a stub on
    127.0.0.1) with its exception, and without the account's email or the frame's locals."""
    _SentryStub.received = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _SentryStub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    code = ("import sentry_sdk\n"
            "sentry_sdk.set_user({'email': 'ada@example.org', 'id': 7})\n"
            "def act():\n"
            "    hand = 'SECRET-HAND-KILLER'\n"
            "    raise RuntimeError('boom in act')\n"
            "try:\n    act()\nexcept RuntimeError as error:\n"
            "    sentry_sdk.capture_exception(error)\n"
            "sentry_sdk.flush(timeout=10)\n")
    try:
        settings_subprocess(code, SENTRY_DSN=f"http://public@127.0.0.1:{server.server_port}/1")
    finally:
        server.shutdown()
    events = [body for body in _SentryStub.received if b'"type":"event"' in body
              or b'"exception"' in body]
    assert events, _SentryStub.received
    envelope = b"".join(events)
    assert b"boom in act" in envelope and b"RuntimeError" in envelope
    assert b"ada@example.org" not in envelope
    assert b"SECRET-HAND-KILLER" not in envelope
