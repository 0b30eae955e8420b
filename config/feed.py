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

The feed also keeps, in the same Redis command as the event (one script, so nobody can see
the event without what it keeps), what a live page needs at connect without the database
(config/live_view.py):
- each object's last version (`version_key`, for `VERSION_SECONDS`; a thread's, board's or
  game's only ever goes up, even when two writers publish out of order; a user's is their
  count of unread notices, the last one published), which a page that reconnects compares
  with the versions it has (the catch-up);
- each user's access version (`access_key`): a `user` event with what="access" (their
  rights changed: games.services.kernel.access_changed) sets it to a new random number
  before the event leaves, which makes every subscription token minted before it
  worthless (config/live_token.py).
Both are Django cache entries (the cache's prefix, integers, which its Redis backend stores
as plain numbers), so the tests' clean-up and the cache's own tools see them.
"""

from __future__ import annotations

import logging
import secrets
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

# How long an object's last version is kept after its last event: longer than a
# subscription token lives (config/live_token.TOKEN_SECONDS), so a page that may still
# connect finds every change since it was shown (a page away longer must load itself anew).
VERSION_SECONDS = 3600
# How long a user's access version is kept after it was made: when it goes, the next page
# makes another and older tokens stop working (their pages load themselves anew).
ACCESS_SECONDS = 7 * 24 * 3600


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


def version_name(kind: str, pk: int) -> str:
    """The cache key of the last version published for `kind` `pk` (module docstring)."""
    return f"feed-version:{kind}:{pk}"


def access_name(user_id: int) -> str:
    """The cache key of user `user_id`'s access version (module docstring)."""
    return f"feed-access:{user_id}"


def version_key(kind: str, pk: int) -> str:
    """`version_name` as Redis holds it (the cache's prefix and version added)."""
    from django.core.cache import cache

    return cache.make_key(version_name(kind, pk))


def access_key(user_id: int) -> str:
    """`access_name` as Redis holds it."""
    from django.core.cache import cache

    return cache.make_key(access_name(user_id))


# KEYS[1]: the key to keep; ARGV: channel, event, value, seconds, "max" or "set". Keeps the
# value ("max": only above the one kept: versions that only go up), then publishes the event.
_PUBLISH = """
if ARGV[5] == 'max' then
  local held = tonumber(redis.call('GET', KEYS[1]))
  if held ~= nil and held > tonumber(ARGV[3]) then
    return redis.call('PUBLISH', ARGV[1], ARGV[2])
  end
end
redis.call('SET', KEYS[1], ARGV[3], 'EX', ARGV[4])
return redis.call('PUBLISH', ARGV[1], ARGV[2])
"""


@lru_cache(maxsize=4)
def _publish_script(client):
    return client.register_script(_PUBLISH)


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
    """Send one event now, with what the feed keeps of it (module docstring: the object's
    last version, or for an "access" event a new access version); a Redis fault is logged
    and swallowed (the event is lost, and so is what it would have kept)."""
    kind, pk = payload["t"], payload["id"]
    if kind == "user" and payload.get("what") == "access":
        key, value, seconds, mode = access_key(pk), secrets.randbits(48), ACCESS_SECONDS, "set"
    else:
        key, value, seconds = version_key(kind, pk), payload["v"], VERSION_SECONDS
        mode = "set" if kind == "user" else "max"
    try:
        script = _publish_script(_client())
        script(keys=[key], args=[channel(), orjson.dumps(payload), value, seconds, mode])
    except Exception as exc:  # noqa: BLE001 - the feed is optional: never fail a write for it
        log_once_per(60, log, "change feed: could not publish %s (%r)", payload, exc)


def changed(kind: str, pk: int, version: int, what: str = "") -> None:
    """Publish that `kind` `pk` reached `version`, once the current transaction commits
    (at once outside a transaction)."""
    payload = event(kind, pk, version, what)
    transaction.on_commit(lambda: _committed(payload), robust=True)
