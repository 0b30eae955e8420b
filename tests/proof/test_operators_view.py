"""Issue 16 item 9: /readyz (database, broker, the beat sweeper's last completed sweep), log
lines with time, level and logger, ADMINS from the environment, optional Sentry."""

from __future__ import annotations

import re
import time

import pytest
from django.core.cache import caches

from config.env import SettingError, env_admins
from config.health import SWEEP_KEY, record_sweep_completed
from tests.proof.test_security import PRODUCTION, settings_subprocess

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_heartbeat():
    caches["health"].delete(SWEEP_KEY)
    yield
    caches["health"].delete(SWEEP_KEY)


def test_ready_when_the_database_the_broker_and_a_recent_sweep_are_fine(client):
    record_sweep_completed()
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"ready": True, "checks": {"database": "ok", "broker": "ok",
                                                         "sweep": "ok"}}
    assert "no-cache" in response["Cache-Control"]


def test_not_ready_before_the_first_sweep(client):
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["sweep"] == "no sweep recorded"


def test_not_ready_when_beat_has_not_swept_for_three_intervals(client, settings):
    settings.SWEEP_INTERVAL_SECONDS = 20
    record_sweep_completed(time.time() - 59)
    assert client.get("/readyz").status_code == 200
    record_sweep_completed(time.time() - 61)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["sweep"].startswith("last sweep 61 s ago")


def test_the_sweep_task_records_its_completion(db):
    from games.tasks import sweep

    before = time.time()
    assert sweep() == {"advanced": 0}
    assert caches["health"].get(SWEEP_KEY) >= before


def test_not_ready_when_the_broker_is_down(client, settings):
    from config.celery import app

    record_sweep_completed()
    previous = app.conf.broker_url
    app.conf.broker_url = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    try:
        response = client.get("/readyz")
    finally:
        app.conf.broker_url = previous
    assert response.status_code == 503
    assert response.json()["checks"]["broker"] == "unreachable"


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
