"""/readyz answers 503 naming the failing check, never a 500, with Redis (broker and every
cache alias) or the database unreachable, in this process (tests/proof/test_operators_view.py
does the same in a fresh process started with dead addresses): the settings point at a port
nothing listens on, through override_settings and the Celery app's own configuration, or
the database connection's settings are monkeypatched.

Both with and without a session cookie: a cookie makes the session and user middleware read
the database before the view runs, so a probe that carries one (a browser's) met the generic
"database unavailable" page, which names no check, and /healthz answered 503 (config/health.py
ProbeMiddleware answers both probes before any session is read).
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client

from config.health import record_sweep_completed

DEAD_REDIS = "redis://127.0.0.1:1/0"  # nothing listens on port 1


@pytest.fixture
def redis_down(settings):
    """Every cache alias and the Celery broker at a port nothing listens on."""
    from config.celery import app

    record_sweep_completed()
    settings.CACHES = {alias: {**config, "LOCATION": DEAD_REDIS}
                       for alias, config in settings.CACHES.items()}
    previous = app.conf.broker_url
    app.conf.broker_url = DEAD_REDIS
    yield
    app.conf.broker_url = previous


def signed_in_client(make_user) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(make_user("探针"))
    return client


@pytest.mark.django_db
@pytest.mark.parametrize("signed_in", [False, True], ids=["anonymous", "with-session"])
def test_with_redis_down_readyz_names_the_broker_and_the_sweep(redis_down, make_user,
                                                               signed_in):
    client = signed_in_client(make_user) if signed_in else Client(raise_request_exception=False)
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["checks"] == {"database": "ok", "broker": "unreachable",
                              "sweep": "heartbeat unreadable (health cache unreachable)"}
    assert body["failing"] == ["broker", "sweep"]
    assert client.get("/healthz").status_code == 200


@pytest.fixture
def database_down(monkeypatch, django_db_blocker):
    """The default connection pointed at a port nothing listens on (outside any test
    transaction: the connection is closed before and after)."""
    with django_db_blocker.unblock():
        connection.close()
        monkeypatch.setitem(connection.settings_dict, "HOST", "127.0.0.1")
        monkeypatch.setitem(connection.settings_dict, "PORT", "1")
        try:
            yield
        finally:
            connection.close()


@pytest.mark.parametrize("cookie", [None, "s" * 32], ids=["anonymous", "with-session"])
def test_with_the_database_unreachable_readyz_names_it(database_down, cookie):
    record_sweep_completed()
    client = Client(raise_request_exception=False)
    if cookie:
        client.cookies["sessionid"] = cookie
    response = client.get("/readyz")
    assert response.status_code == 503, response.content[:300]
    body = response.json()
    assert body["checks"]["database"] == "unreachable"
    assert body["failing"] == ["database"]
    assert client.get("/healthz").status_code == 200


@pytest.mark.parametrize("cookie", [None, "s" * 32], ids=["anonymous", "with-session"])
def test_with_everything_down_readyz_names_every_check(database_down, redis_down, cookie):
    client = Client(raise_request_exception=False)
    if cookie:
        client.cookies["sessionid"] = cookie
    response = client.get("/readyz")
    assert response.status_code == 503, response.content[:300]
    assert response.json()["failing"] == ["database", "broker", "sweep"]
