"""Errors reach operators without flooding them (config/logs.py, config/middleware.py,
docs/operations.md "Error reporting"):
- a database outage answered 503 is two WARNING lines per process (it began, it ended), with
  no traceback, no ERROR and no mail to ADMINS, however many requests it answered;
- an unhandled error is mailed to ADMINS from a thread that is not the request's, at most
  once per distinct error per period, and the period's count of the others follows;
- Redis away: the change feed and /readyz's checks write a line a minute, not one (with a
  traceback) per event or probe.
"""

from __future__ import annotations

import logging
import threading
import time
import types

import pytest
import redis
from django.core import mail
from django.db import connection
from django.test import Client

from config import feed, logs
from config.health import record_sweep_completed
from config.middleware import database_outage

ADMINS = [("Ops", "ops@example.org")]
DEAD_REDIS = "redis://127.0.0.1:1/0"  # nothing listens on port 1


def admin_mail_handler() -> logs.AdminMailHandler:
    [handler] = [h for h in logging.getLogger("django").handlers
                 if isinstance(h, logs.AdminMailHandler)]
    return handler


class Clock:
    """config/logs.py's clock (its `time.monotonic`), moved by the test instead of waited
    for: it starts at the real one and stands still until `advance`."""

    def __init__(self, monkeypatch) -> None:
        self.now = time.monotonic()
        monkeypatch.setattr(logs, "time", types.SimpleNamespace(
            monotonic=lambda: self.now, gmtime=time.gmtime))

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture(autouse=True)
def fresh_counts():
    """No outage, no error seen and no line held back before or after each test."""
    handler = admin_mail_handler()

    def forget():
        handler.flush()
        with handler.seen_lock:
            handler.seen.clear()
        database_outage.since, database_outage.count = None, 0
        logs.forget_held_lines()

    forget()
    yield
    forget()


@pytest.fixture
def mail_threads(monkeypatch):
    """The threads mail_admins was called in (it goes on to send as usual)."""
    from django.core import mail as django_mail

    seen: list[threading.Thread] = []
    send = django_mail.mail_admins

    def mail_admins(*args, **kwargs):
        seen.append(threading.current_thread())
        return send(*args, **kwargs)

    monkeypatch.setattr(django_mail, "mail_admins", mail_admins)
    return seen


@pytest.mark.django_db(transaction=True)
def test_a_database_outage_is_one_warning_when_it_begins_one_when_it_ends_and_no_mail(
        settings, monkeypatch, caplog, mail_threads):
    """Twelve requests while the database cannot be reached: anonymous ones (the view meets
    it: DatabaseUnavailableMiddleware) and ones with a session cookie (the session read
    meets it first: config.views.server_error). Every one is a 503; the log has one line
    saying so, then one when a connection opens again; nothing at ERROR, no traceback, no
    mail, though ADMINS is set."""
    settings.ADMINS = ADMINS
    anonymous = Client(raise_request_exception=False)
    with_session = Client(raise_request_exception=False)
    with_session.cookies["sessionid"] = "s" * 32
    caplog.set_level(logging.INFO)
    connection.close()
    monkeypatch.setitem(connection.settings_dict, "HOST", "127.0.0.1")
    monkeypatch.setitem(connection.settings_dict, "PORT", "1")
    for i in range(12):
        response = (anonymous if i % 2 else with_session).get("/games/")
        assert response.status_code == 503 and response["Retry-After"] == "30"
    connection.close()
    monkeypatch.undo()
    assert Client().get("/games/").status_code == 200
    admin_mail_handler().flush()

    lines = [(r.levelname, r.name, r.getMessage()) for r in caplog.records
             if r.levelno >= logging.WARNING]
    assert [line[:2] for line in lines] == [("WARNING", "config.middleware")] * 2, lines
    assert lines[0][2].startswith("database unavailable; answering 503: connection ")
    assert "port 1 failed" in lines[0][2] and "\n" not in lines[0][2]
    assert lines[1][2].startswith("database back after ")
    assert lines[1][2].endswith("; 12 requests answered without it meanwhile")
    assert not any(r.exc_info for r in caplog.records)
    assert mail.outbox == [] and mail_threads == []


@pytest.mark.django_db
def test_an_error_is_mailed_from_a_thread_of_its_own_once_then_counted(
        settings, monkeypatch, mail_threads):
    """Five requests meet the same bug: one mail (sent outside the request's thread, with
    the request and the traceback as Django writes it), then, when the period ends, one mail
    with the count of the four others. Another error is mailed at once."""
    import games.web.pages

    settings.ADMINS = ADMINS
    handler = admin_mail_handler()
    clock = Clock(monkeypatch)

    def bug(*args, **kwargs):
        raise RuntimeError("a bug in the games list")

    monkeypatch.setattr(games.web.pages.Game.objects, "exclude", bug)
    client = Client(raise_request_exception=False)
    for _ in range(5):
        assert client.get("/games/").status_code == 500
    handler.flush()
    assert mail_threads and threading.main_thread() not in mail_threads
    [first] = mail.outbox
    assert first.to == ["ops@example.org"]
    assert "Internal Server Error: /games/" in first.subject
    assert "RuntimeError" in first.body and "a bug in the games list" in first.body

    clock.advance(handler.every - 1)
    handler.flush()
    handler.flush()  # the sending thread counts the periods after each flush
    assert len(mail.outbox) == 1, [m.subject for m in mail.outbox]  # the period goes on
    clock.advance(2)  # the period has ended
    handler.flush()
    handler.flush()
    assert len(mail.outbox) == 2, [m.subject for m in mail.outbox]
    assert "4 more of: Internal Server Error: /games/" in mail.outbox[1].subject
    assert "4 more errors like this one" in mail.outbox[1].body

    logging.getLogger("django.request").error("another error", exc_info=ValueError("other"))
    handler.flush()
    assert len(mail.outbox) == 3 and "another error" in mail.outbox[2].subject
    assert threading.main_thread() not in mail_threads


def test_nothing_is_rendered_or_queued_without_admins(settings, mail_threads):
    settings.ADMINS = []
    logging.getLogger("django.request").error("an error", exc_info=RuntimeError("x"))
    handler = admin_mail_handler()
    handler.flush()
    assert handler.seen == {} and mail.outbox == [] and mail_threads == []


def test_the_change_feed_says_once_a_minute_that_it_cannot_publish(monkeypatch, caplog):
    """Redis away: each event a step publishes used to write a warning with a traceback."""
    client = redis.Redis.from_url(DEAD_REDIS, socket_connect_timeout=1)
    monkeypatch.setattr(feed, "_client", lambda: client)
    with caplog.at_level(logging.WARNING, logger="config.feed"):
        for pk in range(10):
            feed.publish(feed.event("game", pk, 1))
    [line] = [r for r in caplog.records if r.name == "config.feed"]
    assert "could not publish" in line.getMessage() and "ConnectionError" in line.getMessage()
    assert line.exc_info is None


@pytest.mark.django_db
def test_readyz_with_redis_away_logs_each_failing_check_once_a_minute(settings, caplog):
    from config.celery import app

    record_sweep_completed()
    settings.CACHES = {alias: {**config, "LOCATION": DEAD_REDIS}
                       for alias, config in settings.CACHES.items()}
    previous, app.conf.broker_url = app.conf.broker_url, DEAD_REDIS
    try:
        with caplog.at_level(logging.INFO):
            for _ in range(5):
                assert Client().get("/readyz").status_code == 503
    finally:
        app.conf.broker_url = previous
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 2, lines  # the broker and the heartbeat, once each; no 503 lines
    assert any(m.startswith("readyz: broker:") for m in lines)
    assert any(m.startswith("game clock: the heartbeat cannot be read") for m in lines)
    assert not any(r.exc_info for r in caplog.records)


def test_a_line_held_back_is_counted_in_the_next_one(caplog, monkeypatch):
    log = logging.getLogger("tests.held")
    clock = Clock(monkeypatch)
    with caplog.at_level(logging.WARNING, logger="tests.held"):
        for i in range(4):
            logs.log_once_per(60, log, "Redis away: %s", i)
        clock.advance(59)
        logs.log_once_per(60, log, "Redis away: %s", "held")
        clock.advance(1.5)
        logs.log_once_per(60, log, "Redis away: %s", "again")
    assert [r.getMessage() for r in caplog.records] == [
        "Redis away: 0", "Redis away: again (4 more like it in the last 60 s)"]
