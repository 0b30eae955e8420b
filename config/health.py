"""Readiness: is this instance able to serve, and is the game clock running?

`/healthz` says the process is alive and touches neither the database nor Redis. `/readyz`
(config/views.py) checks what a game needs; each check answers None (fine) or a short reason,
and none of them raises, whatever is down:
1. `database`: the database answers `SELECT 1`;
2. `broker`: the Celery broker answers a PING over the app's own broker connection (the
   transport's Redis client, BROKER_TIMEOUT seconds to connect and to answer): a step's emails
   and the beat's ticks go through it, and a connection object that merely exists proves
   nothing;
3. `sweep`: the beat sweeper completed a sweep recently. `games.sweep` records its completion
   time (`record_sweep_completed`), and the check fails when the last one is older than
   READY_SWEEP_INTERVALS (3) x SWEEP_INTERVAL_SECONDS, when none was ever recorded, or when
   the record cannot be read: games silently stop advancing when beat or the workers are
   dead, and nothing else would notice.

`/readyz` and `/healthz` are answered by `ProbeMiddleware`, ahead of the session and user
middleware: a probe that carries a session cookie (a browser's, a load balancer's sticky
one) would otherwise have the database read for its session before any check ran, and
meet the generic "database unavailable" 503 page, which names no check (and takes a live
instance out of a load balancer), whenever the database is down.

The completion time (the heartbeat) lives in the cache (Redis, under `SWEEP_KEY`), never in
the database, so an idle sweep still costs one query and reading it is a cache read, not a query.
`clock()` is the one reader, and it never raises. The pages that warn people of a stopped
clock (the game's page and the 天神 console, games/web/clock.py) read through the cache as
configured, which answers a miss while Redis is away (config/cache.py) and so costs them
nothing then; `/readyz` reads strictly, through the Redis backend's own `get`, so that an
unreachable Redis is reported as such and not as "no sweep recorded".

A failing check logs its reason at most once a minute per check (config.logs.log_once_per,
with the number of probes held back), and Django's line for the probe's 503 is dropped
(config.logs.SkipOutageAnswers): a load balancer asking every few seconds during an outage
writes a line a minute, not one per probe.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.db import connection
from django.http import HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from .logs import log_once_per

log = logging.getLogger(__name__)
SWEEP_KEY = "health:sweep-completed"
READY_SWEEP_INTERVALS = 3
BROKER_TIMEOUT = 1.0  # seconds, to connect to the broker and again for its answer


def record_sweep_completed(at: float | None = None) -> None:
    """Called by the sweep task after a sweep finished (whatever it advanced)."""
    caches["default"].set(SWEEP_KEY, time.time() if at is None else at, timeout=7 * 86_400)


@dataclass(frozen=True)
class Clock:
    """What the heartbeat says about the game clock.

    `age`: seconds since the last completed sweep (None: none recorded, or unreadable);
    `unreadable`: the cache could not be read (Redis down: then the broker, the same
    Redis, is down too, and no deadline advances); `limit`: the age past which the clock
    counts as stopped (READY_SWEEP_INTERVALS sweep intervals). A clock that cannot be seen
    to run counts as stopped."""

    age: float | None
    limit: float
    unreadable: bool = False

    @property
    def stopped(self) -> bool:
        return self.unreadable or self.age is None or self.age > self.limit

    @property
    def problem(self) -> str | None:
        """The reason `/readyz` gives (None: the clock runs)."""
        if self.unreadable:
            return "heartbeat unreadable (health cache unreachable)"
        if self.age is None:
            return "no sweep recorded"
        if self.age > self.limit:
            return f"last sweep {self.age:.0f} s ago (limit {self.limit:.0f} s)"
        return None


def clock(now: float | None = None, *, strict: bool = False) -> Clock:
    """The game clock's state from the heartbeat: one cache read, never a query, never an
    exception. `strict`: read through the Redis backend's own `get`, which raises when Redis
    cannot answer (`unreadable`), where the configured cache answers a miss (an absent
    heartbeat: `age` None)."""
    limit = READY_SWEEP_INTERVALS * settings.SWEEP_INTERVAL_SECONDS
    cache = caches["default"]
    try:
        at = RedisCache.get(cache, SWEEP_KEY) if strict else cache.get(SWEEP_KEY)
    except Exception as exc:  # redis-py raises several kinds; any means "cannot be read"
        log_once_per(60, log, "game clock: the heartbeat cannot be read: %r", exc)
        return Clock(age=None, limit=limit, unreadable=True)
    if at is None:
        return Clock(age=None, limit=limit)
    return Clock(age=max((time.time() if now is None else now) - float(at), 0.0), limit=limit)


def check_database() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure means "not ready"; the reason goes to the log
        log_once_per(60, log, "readyz: database: %s", " ".join(str(exc).split()))
        return "unreachable"
    return None


def check_broker() -> str | None:
    """A PING over a fresh connection to the app's broker (`broker_url`, also a Unix socket
    spelt `redis+socket://path?virtual_host=N`), answered within BROKER_TIMEOUT seconds."""
    from config.celery import app

    # The Redis client's own timeouts, and no retry by kombu before the channel opens (its
    # default is to retry without limit).
    timeouts = {"socket_connect_timeout": BROKER_TIMEOUT, "socket_timeout": BROKER_TIMEOUT,
                "max_retries": 0, "connect_retries_timeout": BROKER_TIMEOUT}
    try:
        with app.connection_for_write(transport_options=timeouts) as conn:
            answered = conn.default_channel.client.ping()
    except Exception as exc:  # kombu and redis-py raise several kinds; all mean "not ready"
        log_once_per(60, log, "readyz: broker: %s", exc)
        return "unreachable"
    if not answered:
        log_once_per(60, log, "readyz: broker: PING answered %r", answered)
        return "no answer"
    return None


def check_sweep(now: float | None = None) -> str | None:
    return clock(now, strict=True).problem


CHECKS = {"database": check_database, "broker": check_broker, "sweep": check_sweep}


def readiness() -> tuple[bool, dict[str, str]]:
    """(ready, {check: "ok" or what is wrong}) for database, broker and sweep. Each check
    catches its own failures; a check that raises all the same counts as failing (the
    probe answers 503, never 500)."""
    results = {}
    for name, check in CHECKS.items():
        try:
            results[name] = check()
        except Exception:
            log.exception("readyz: %s: the check itself failed", name)
            results[name] = "check failed"
    return (all(v is None for v in results.values()),
            {name: problem or "ok" for name, problem in results.items()})


class ProbeMiddleware:
    """Answers `/readyz` (readyz below: 200 or 503 JSON naming the failing checks)
    and `/healthz` (healthz below: "ok") before the middleware that reads the
    session and the user, so that nothing but the checks touches the database or Redis.
    Placed after the security middleware, whose headers the answers still get."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.probes = {"/readyz": readyz, "/healthz": healthz}

    def __call__(self, request):
        probe = self.probes.get(request.path_info)
        if probe is not None:
            return probe(request)
        return self.get_response(request)


@never_cache
def healthz(request):
    """Liveness: answers without touching the database (the benchmarks' trivial baseline)."""
    return HttpResponse("ok", content_type="text/plain")


@never_cache
@require_safe
def readyz(request):
    """Readiness (config/health.py): 200 when the database, the broker and the beat sweeper
    are all fine, else 503; the body names each check's result and the failing ones. Never a
    500: every check catches its own failure (Redis or the database down included)."""
    ready, checks = readiness()
    return JsonResponse({"ready": ready, "checks": checks,
                         "failing": [name for name, result in checks.items() if result != "ok"]},
                        status=200 if ready else 503)
