"""The change feed: after a transaction commits, each version a service bumped is published
as a small event on Redis pub/sub, so that caches and open pages learn what changed.

An event names an object and its new version, and at most one word of what changed:

    {"t": "thread", "id": 42, "v": 17}
    {"t": "game", "id": 7, "v": 93, "what": "phase"}
    {"t": "user", "id": 5, "v": 3, "what": "notices"}

It carries no content and no secret: a page that hears that its object changed asks the
ordinary, permission-checked view for the new part, as that viewer. Publishing is best
effort: with Redis down the event is lost (pages catch up by version when they reconnect or
reload), and the writer's transaction is never affected.

Writers call `changed()` inside the transaction that bumped the version; the event leaves
only when (and if) that transaction commits. In-process listeners (`listen`) hear the same
event at the same moment, before it is published: a cache that keys something on an object
forgets it there (messaging.blocks, the anonymous thread page).
"""

from __future__ import annotations

import logging
from functools import lru_cache

import orjson
from django.conf import settings
from django.db import transaction

from config.logs import log_once_per

log = logging.getLogger(__name__)

# One channel for the whole site: a reader process subscribes once and fans events out to
# its open pages (config/live.py), so Redis holds one subscription per process, not per page.
CHANNEL_SUFFIX = "feed"

# The kinds of object an event may name (a page subscribes to some of them).
KINDS = frozenset({"game", "thread", "board", "user"})


def channel() -> str:
    """The pub/sub channel, under the site's cache prefix and its Redis database number
    (test workers do not hear each other's events; nor do two sites, or two test runs,
    sharing one Redis server on different databases: pub/sub channels belong to the
    server, not to a database)."""
    from redis.connection import parse_url

    prefix = settings.CACHES["default"].get("KEY_PREFIX") or "kg"
    db = parse_url(settings.REDIS_URL).get("db", 0)
    return f"{prefix}:{db}:{CHANNEL_SUFFIX}"


@lru_cache(maxsize=1)
def _client():
    import redis

    return redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=1, socket_timeout=1)


def event(kind: str, pk: int, version: int, what: str = "") -> dict:
    """The event for object `kind` `pk` at `version` (`what`: one word, or nothing)."""
    if kind not in KINDS:
        raise ValueError(f"unknown feed kind {kind!r}")
    out = {"t": kind, "id": int(pk), "v": int(version)}
    if what:
        out["what"] = what
    return out


# {kind: [listener(pk, version)]}: called once the writer's transaction commits.
_listeners: dict[str, list] = {}


def listen(kind: str, listener) -> None:
    """Call `listener(pk, version)` whenever a committed transaction moved a `kind`'s
    version (once per `changed`). A listener that raises is logged and skipped."""
    if kind not in KINDS:
        raise ValueError(f"unknown feed kind {kind!r}")
    if listener not in _listeners.setdefault(kind, []):
        _listeners[kind].append(listener)


def _committed(payload: dict) -> None:
    for listener in _listeners.get(payload["t"], ()):
        try:
            listener(payload["id"], payload["v"])
        except Exception:  # noqa: BLE001 - a listener's fault never fails the writer
            log.warning("change feed: listener %r failed on %s", listener, payload,
                        exc_info=True)
    publish(payload)


def publish(payload: dict) -> None:
    """Send one event now; a Redis fault is logged and swallowed."""
    try:
        _client().publish(channel(), orjson.dumps(payload))
    except Exception as exc:  # noqa: BLE001 - the feed is optional: never fail a write for it
        log_once_per(60, log, "change feed: could not publish %s (%r)", payload, exc)


def changed(kind: str, pk: int, version: int, what: str = "") -> None:
    """Publish that `kind` `pk` reached `version`, once the current transaction commits
    (at once outside a transaction)."""
    payload = event(kind, pk, version, what)
    transaction.on_commit(lambda: _committed(payload), robust=True)
