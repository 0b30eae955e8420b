"""Readiness (issue 16 item 9): is this instance able to serve, and is the clock running?

`/healthz` says the process is alive (no database). `/readyz` checks what a game needs:
1. the database answers `SELECT 1`;
2. the Celery broker accepts a connection (publishing a step's emails and the beat's ticks
   go through it);
3. the beat sweeper completed a sweep recently: `games.sweep` records its completion time
   (`record_sweep_completed`), and readiness fails when the last one is older than
   READY_SWEEP_INTERVALS (3) x SWEEP_INTERVAL_SECONDS, or when none was ever recorded: games
   silently stop advancing when beat is dead, and nothing else would notice.
The completion time lives in the "health" cache (Redis when REDIS_URL is set, else a file
cache under VAR_DIR shared by the processes of one machine), never in the database, so an
idle sweep still costs one query.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.core.cache import caches
from django.db import connection

log = logging.getLogger(__name__)
SWEEP_KEY = "health:sweep-completed"
READY_SWEEP_INTERVALS = 3


def record_sweep_completed(at: float | None = None) -> None:
    """Called by the sweep task after a sweep finished (whatever it advanced)."""
    caches["health"].set(SWEEP_KEY, time.time() if at is None else at, timeout=7 * 86_400)


def last_sweep_age(now: float | None = None) -> float | None:
    """Seconds since the last completed sweep, or None if none is recorded."""
    at = caches["health"].get(SWEEP_KEY)
    if at is None:
        return None
    return max((time.time() if now is None else now) - float(at), 0.0)


def check_database() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure means "not ready"; the reason goes to the log
        log.warning("readyz: database: %s", exc)
        return "unreachable"
    return None


def check_broker() -> str | None:
    from config.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0,
                                   timeout=settings.CELERY_BROKER_CONNECTION_TIMEOUT)
    except Exception as exc:  # kombu raises several kinds; all mean "not ready"
        log.warning("readyz: broker: %s", exc)
        return "unreachable"
    return None


def check_sweep(now: float | None = None) -> str | None:
    age = last_sweep_age(now)
    limit = READY_SWEEP_INTERVALS * settings.SWEEP_INTERVAL_SECONDS
    if age is None:
        return "no sweep recorded"
    if age > limit:
        return f"last sweep {age:.0f} s ago (limit {limit} s)"
    return None


def readiness() -> tuple[bool, dict[str, str]]:
    """(ready, {check: "ok" or what is wrong}) for database, broker and sweep."""
    results = {"database": check_database(), "broker": check_broker(), "sweep": check_sweep()}
    return (all(v is None for v in results.values()),
            {name: problem or "ok" for name, problem in results.items()})
