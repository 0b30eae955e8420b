"""The cache backend of every alias: Django's own Redis backend, degrading when Redis is not
there (`DegradingRedisCache`).

Redis holds nothing that is not also in PostgreSQL (docs/operations.md "Production layout"),
so a stopped, hung or read-only Redis must cost a page its cached parts, never the page:

1. Any operation that fails for want of Redis (`UNAVAILABLE`: a refused or dropped
   connection, a timeout, a replica that refuses writes, a full server) answers as a miss or
   does nothing: `get` returns the default, `get_many` {}, `add`/`touch`/`delete`/`has_key`
   False, `set` and `delete_many` nothing, `set_many` every key (none was stored), `incr` (and
   `decr`) ValueError as for a missing key, `clear` False. Django's other methods
   (`get_or_set`, `incr_version` …) are built on these and degrade with them.
2. After such a failure the process leaves Redis alone for `RETRY_SECONDS` (every alias on
   the same server, every thread): each operation in that time is a miss at once. A hung
   Redis then costs one request the socket timeout (config/settings.py: 1 s), not every
   cache operation of every request its second.
3. The failure is logged as a warning at most once per `LOG_EVERY_SECONDS` per server, with
   the number of operations that went without Redis since the last warning; the first
   success afterwards is logged once ("reachable again").

What a caller must not take from the cache while Redis is down: a count it relies on. The
rate limits decide for themselves what an uncounted write means (config/ratelimit.py,
docs/operations.md "Rate limits"). Errors that are not about Redis being there (a wrong
type, a value that cannot be pickled) still raise.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import ConnectionError, OutOfMemoryError, ReadOnlyError, TimeoutError

log = logging.getLogger(__name__)

# What "Redis is not there" looks like from redis-py (BusyLoadingError, an authentication
# refusal and a full connection pool are ConnectionErrors too).
UNAVAILABLE = (ConnectionError, TimeoutError, ReadOnlyError, OutOfMemoryError)
RETRY_SECONDS = 5.0
LOG_EVERY_SECONDS = 60.0


@dataclass
class _Server:
    """What this process knows of one Redis server (shared by every alias and thread)."""
    skip_until: float = 0.0      # monotonic time before which nobody asks it
    logged_at: float = -1e9      # when the last warning was written
    missed: int = 0              # operations answered without Redis since that warning
    failing: bool = False        # a failure was logged and no success has followed


_servers: dict[str, _Server] = {}
_lock = threading.Lock()


def _server(location: str) -> _Server:
    with _lock:
        return _servers.setdefault(location, _Server())


def reset() -> None:
    """Forget every failure (tests: the next operation asks Redis again)."""
    with _lock:
        _servers.clear()


class DegradingRedisCache(RedisCache):
    """Django's `RedisCache`; an operation Redis cannot answer is a miss (see the module)."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._location = server if isinstance(server, str) else ",".join(server)

    def _try(self, operation, fallback, *args, **kwargs):
        state = _server(self._location)
        now = time.monotonic()
        if now < state.skip_until:
            state.missed += 1
            return fallback()
        try:
            result = operation(*args, **kwargs)
        except UNAVAILABLE as exc:
            self._failed(state, exc)
            return fallback()
        if state.failing:
            state.failing = False
            log.info("Redis at %s is reachable again; the cache is used again",
                     _safe(self._location))
        return result

    def _failed(self, state: _Server, exc: Exception) -> None:
        now = time.monotonic()
        state.skip_until = now + RETRY_SECONDS
        state.missed += 1
        if now - state.logged_at >= LOG_EVERY_SECONDS:
            log.warning("Redis at %s unavailable (%s: %s): pages are served without the "
                        "cache; operations answered without it since the last warning: %d; "
                        "next try in %g s", _safe(self._location), type(exc).__name__, exc,
                        state.missed, RETRY_SECONDS)
            state.logged_at = now
            state.missed = 0
            state.failing = True

    # The public operations of RedisCache, each with its answer when Redis is not there.

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._try(super().add, lambda: False, key, value, timeout, version)

    def get(self, key, default=None, version=None):
        return self._try(super().get, lambda: default, key, default, version)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._try(super().set, lambda: None, key, value, timeout, version)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._try(super().touch, lambda: False, key, timeout, version)

    def delete(self, key, version=None):
        return self._try(super().delete, lambda: False, key, version)

    def get_many(self, keys, version=None):
        return self._try(super().get_many, dict, keys, version)

    def has_key(self, key, version=None):
        return self._try(super().has_key, lambda: False, key, version)

    def incr(self, key, delta=1, version=None):
        def missing():
            raise ValueError(f"Key '{key}' not found (Redis unavailable).")

        return self._try(super().incr, missing, key, delta, version)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        return self._try(super().set_many, lambda: list(data), data, timeout, version)

    def delete_many(self, keys, version=None):
        return self._try(super().delete_many, lambda: None, keys, version)

    def clear(self):
        return self._try(super().clear, lambda: False)


def _safe(location: str) -> str:
    """The server's address without a password ("redis://:secret@host" -> "redis://host")."""
    scheme, sep, rest = location.partition("://")
    return scheme + sep + rest.rpartition("@")[2] if sep else location
