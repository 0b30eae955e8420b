"""Live pages, the serving side of the change feed (config/feed.py): one Redis pub/sub
subscription per serving process, fanned out to the pages that process holds open.

1. A page opens `/live/` (config/live_view.py), naming the objects it shows and the
   subscription token its page gave it (config/live_token.py); the view checks the token
   and registers a `Listener` with the keys it may hear: ("game", 7), ("thread", 42)… and
   ("user", own id) for a signed-in reader.
2. The process's `Hub` (one per event loop, so one per uvicorn worker) holds ONE
   subscription to `feed.channel()`, made when the first page connects and kept while the
   process lives. Each message is parsed and checked (`parse`): a known kind, an id and a
   version as integers, at most one short word of what changed; anything else is dropped.
3. The event goes to the listeners of its key only (a dict lookup, whatever the number of
   pages open), never to the others: a `user` event reaches that user's pages alone.
4. A listener keeps, per key, the newest event not yet sent (`pending`), not a queue: a
   page that reads slowly gets the latest version of each object, and its memory is bounded
   by the number of objects it watches however busy the feed is.
5. Redis down, or the subscription lost: the hub logs it once, waits (1 s, doubling to 30 s)
   and subscribes again; meanwhile pages get only their heartbeats. Events sent while it was
   away are lost, as the feed allows: a page catches up by version when it reconnects.
6. The hub also reads for the pages what the feed keeps in Redis (`read`: versions and
   access versions, config/feed.py) on ONE connection: the reads asked for while one MGET
   is on its way wait for the next, which asks for all of them at once, so a thousand pages
   connecting together cost a few round trips to Redis, not a thousand connections.

Nothing here reads the database or knows who may read what: the token decides the keys.
"""

from __future__ import annotations

import asyncio
import logging
import re
import weakref
from collections.abc import Iterable

import orjson

from . import feed

log = logging.getLogger(__name__)

Key = tuple[str, int]

# What may stand in an event's `what`: one short lower-case word.
_WORD = re.compile(r"[a-z][a-z_]{0,23}")
FIRST_RETRY = 1.0
LAST_RETRY = 30.0
READ_SECONDS = 5.0


def parse(raw: bytes | str) -> dict | None:
    """The feed event in `raw`, as the pages get it, or None if it is not one: a known kind,
    a positive id, a version as an integer and at most one short word (anything else in the
    message is dropped, so nothing but these four fields ever reaches a page)."""
    try:
        data = orjson.loads(raw)
    except (orjson.JSONDecodeError, TypeError):
        return None
    if not isinstance(data, dict):
        return None
    kind, pk, version, what = data.get("t"), data.get("id"), data.get("v"), data.get("what")
    if kind not in feed.KINDS:
        return None
    if type(pk) is not int or type(version) is not int or pk <= 0 or version < 0:
        return None
    event = {"t": kind, "id": pk, "v": version}
    if isinstance(what, str) and _WORD.fullmatch(what):
        event["what"] = what
    return event


class Listener:
    """One open page: the keys it may hear and the newest event of each not yet sent."""

    def __init__(self, keys: Iterable[Key]) -> None:
        self.keys = frozenset(keys)
        self.pending: dict[Key, dict] = {}
        self.woken = asyncio.Event()

    def offer(self, event: dict) -> None:
        key = (event["t"], event["id"])
        if key not in self.keys:  # never: the hub looks listeners up by key
            return
        held = self.pending.get(key)
        # A user's version is their count of unread notices, which goes down as well as up:
        # the last one sent is the one that holds. Other objects' versions only go up.
        if held is None or event["t"] == "user" or event["v"] >= held["v"]:
            self.pending[key] = event
        self.woken.set()

    def take(self) -> list[dict]:
        """The events waiting, oldest key first, and forget them."""
        events = list(self.pending.values())
        self.pending.clear()
        self.woken.clear()
        return events

    async def wait(self, seconds: float) -> list[dict]:
        """The events that arrive within `seconds` ([] when none did: time for a heartbeat)."""
        if not self.pending:
            try:
                await asyncio.wait_for(self.woken.wait(), seconds)
            except TimeoutError:
                return []
        return self.take()


class Hub:
    """The process's one subscription to the feed and the listeners it serves."""

    def __init__(self, url: str, channel: str) -> None:
        self.url = url
        self.channel = channel
        self.listeners: dict[Key, set[Listener]] = {}
        self.count = 0
        self.ready = asyncio.Event()  # set while subscribed
        self.task: asyncio.Task | None = None
        self.delivered = 0
        self.reader = None  # redis.asyncio.Redis on one connection, made on the first read
        self.reads: list[tuple[list[str], asyncio.Future]] = []  # waiting for the next MGET
        self.reading: asyncio.Task | None = None

    # --- pages ---------------------------------------------------------------------------

    def add(self, listener: Listener) -> None:
        for key in listener.keys:
            self.listeners.setdefault(key, set()).add(listener)
        self.count += 1
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run(), name="live-feed")

    def remove(self, listener: Listener) -> None:
        for key in listener.keys:
            found = self.listeners.get(key)
            if found is not None:
                found.discard(listener)
                if not found:
                    del self.listeners[key]
        self.count -= 1

    def dispatch(self, raw: bytes | str) -> int:
        """Hand the event in `raw` to the listeners of its key; how many got it."""
        event = parse(raw)
        if event is None:
            log.warning("live: dropped a feed message that is not an event: %.200r", raw)
            return 0
        found = self.listeners.get((event["t"], event["id"]), ())
        for listener in found:
            listener.offer(event)
        self.delivered += len(found)
        return len(found)

    # --- the subscription ----------------------------------------------------------------

    async def _run(self) -> None:
        import redis.asyncio as aioredis

        delay = FIRST_RETRY
        broken = False
        while True:
            client = aioredis.Redis.from_url(self.url, socket_connect_timeout=2,
                                             health_check_interval=30)
            pubsub = client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.channel)
                self.ready.set()
                if broken:
                    log.warning("live: subscribed to the change feed again")
                broken = False
                delay = FIRST_RETRY
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        self.dispatch(message["data"])
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - Redis away: pages keep their heartbeats
                if not broken:
                    log.warning("live: the change feed is unavailable; trying again",
                                exc_info=True)
                broken = True
            finally:
                self.ready.clear()
                # A connection cut mid-command may never answer its close: give up on it.
                try:
                    await asyncio.wait_for(pubsub.aclose(), 2)
                    await asyncio.wait_for(client.aclose(), 2)
                except Exception:  # noqa: BLE001, S110 - closing a connection already gone
                    pass
            await asyncio.sleep(delay)
            delay = min(delay * 2, LAST_RETRY)

    # --- reads -----------------------------------------------------------------------------

    async def read(self, keys: list[str]) -> list[bytes | None]:
        """The values of these Redis keys (None for a key Redis does not hold), read with
        those of every other page asking meanwhile (module docstring, 6). Raises when Redis
        cannot answer within `READ_SECONDS` (a connection refused, a timeout)."""
        if not keys:
            return []
        future = asyncio.get_running_loop().create_future()
        self.reads.append((keys, future))
        if self.reading is None or self.reading.done():
            self.reading = asyncio.get_running_loop().create_task(self._read_all(),
                                                                  name="live-reads")
        return await future

    async def _read_all(self) -> None:
        """One MGET at a time, each for every read waiting when it leaves."""
        if self.reader is None:
            import redis.asyncio as aioredis

            # A loop busy with a crowd of pages reads an answer late: 5 s, not the 1 s the
            # site's other Redis clients allow, before Redis counts as away.
            pool = aioredis.BlockingConnectionPool.from_url(
                self.url, max_connections=1, timeout=READ_SECONDS,
                socket_connect_timeout=READ_SECONDS, socket_timeout=READ_SECONDS)
            self.reader = aioredis.Redis(connection_pool=pool)
        await asyncio.sleep(0)  # the pages connecting in this turn of the loop join in
        while self.reads:
            batch, self.reads = self.reads, []
            names = list(dict.fromkeys(name for keys, _future in batch for name in keys))
            try:
                values = dict(zip(names, await self.reader.mget(names), strict=True))
            except Exception as exc:  # noqa: BLE001 - each page decides what Redis away means
                for _keys, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for keys, future in batch:
                if not future.done():
                    future.set_result([values[name] for name in keys])

    async def close(self) -> None:
        """Stop the subscription (tests; a process that ends simply drops it)."""
        if self.task is not None:
            self.task.cancel()
            await asyncio.wait({self.task}, timeout=5)
            self.task = None
        if self.reading is not None:
            self.reading.cancel()
            await asyncio.wait({self.reading}, timeout=5)
            self.reading = None
        if self.reader is not None:
            reader, self.reader = self.reader, None
            try:
                await asyncio.wait_for(reader.aclose(close_connection_pool=True), 2)
            except Exception:  # noqa: BLE001, S110 - closing a connection already gone
                pass


_hubs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def hub() -> Hub:
    """The hub of the running event loop (a uvicorn worker has one loop, so one hub and one
    Redis subscription; each test's loop gets its own)."""
    from django.conf import settings

    loop = asyncio.get_running_loop()
    found = _hubs.get(loop)
    if found is None:
        found = _hubs[loop] = Hub(settings.REDIS_URL, feed.channel())
    return found


# --- the stream's text (text/event-stream) ------------------------------------------------

def versions_text(versions: dict[Key, int]) -> str:
    """The versions a page has, as the stream's event id and the page's query:
    "game=7.93&thread=42.17" (sorted, so the same versions give the same text)."""
    return "&".join(f"{kind}={pk}.{v}" for (kind, pk), v in sorted(versions.items()))


def message(event: dict, versions: dict[Key, int]) -> bytes:
    """One event of the stream; its id is every version the page has once it got it, which
    the browser sends back as Last-Event-ID when it reconnects."""
    return (f"id: {versions_text(versions)}\ndata: ".encode() + orjson.dumps(event) + b"\n\n")


HEARTBEAT = b": heartbeat\n\n"
# Tells the page's script to load its page again for a new token (static/js/live.js): the
# token ran out, or the reader's rights changed. Nothing after it on this stream.
RENEW = b"event: renew\ndata: {}\n\n"
