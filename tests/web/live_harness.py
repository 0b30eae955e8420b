"""Driving /live/ in the test process as production serves it: an ASGI request to
config.live_view.LiveASGIHandler (config/asgi.py's application, /live/ before the
middleware), the stream read in the background, events sent through the real feed (Redis
pub/sub, with what the feed keeps of them).

A reader is a browser: its session cookie (signed in with Django's test client, or none)
and the subscription tokens its pages would give it (`Reader.token`, minted as a page
mints them: config.live_token.mint with the reader's session and access version).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import re
from html import unescape
from urllib.parse import urlencode

import orjson
from asgiref.sync import async_to_sync
from django.conf import settings
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client

from config import feed, live, live_token
from config.live_view import LiveASGIHandler

_handler: LiveASGIHandler | None = None


def handler() -> LiveASGIHandler:
    global _handler
    if _handler is None:
        _handler = LiveASGIHandler()
    return _handler


def run(coroutine_function):
    """Run `coroutine_function()` on an event loop of its own, then drop that loop's hub.

    As Django's test clients do, the request signals do not close database connections
    meanwhile: under `async_to_sync` the handler's synchronous parts run in the test's own
    thread, whose connection holds the test's transaction."""
    async def main():
        try:
            return await coroutine_function()
        finally:
            await live.hub().close()

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        return async_to_sync(main)()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


_addresses = itertools.count(1)


class Reader:
    """A browser: signed in as `user` (None: nobody), from `address` (one of its own unless
    given: the live server admits so many attempts a second per address)."""

    def __init__(self, user=None, address: str | None = None) -> None:
        self.user = user
        n = next(_addresses)
        self.address = address or f"10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}"
        self.client = Client()
        if user is not None:
            self.client.force_login(user)
        self.session_key = self.client.cookies[settings.SESSION_COOKIE_NAME].value \
            if user is not None else None

    @property
    def cookie(self) -> str:
        return (f"{settings.SESSION_COOKIE_NAME}={self.session_key}"
                if self.session_key else "")

    def token(self, *channels) -> str:
        """The token a page showing `channels` ((kind, id) each) gives this reader."""
        if self.user is None:
            return live_token.mint(channels=channels)
        return live_token.mint(channels=channels, user_id=self.user.pk,
                               session_key=self.session_key,
                               access=live_token.access_version(self.user.pk))

    def page(self, path: str) -> dict:
        """The page at `path` as this reader gets it: status, and its live script's token
        and channels (#live-texts; None when it gives none)."""
        response = self.client.get(path)
        html = response.content.decode()
        texts = re.search(r'<div id="live-texts"[^>]*>', html)
        found = {"status": response.status_code, "token": None, "channels": None}
        if texts:
            for name in ("token", "channels"):
                value = re.search(rf'data-{name}="([^"]*)"', texts.group(0))
                found[name] = unescape(value.group(1)) if value else None
        return found

    def query(self, token: str | None, *objects: str) -> str:
        """"?t=…&thread=42.17…" for `objects` ("thread=42.17" each)."""
        parts = [urlencode({"t": token})] if token is not None else []
        return "?" + "&".join([*parts, *objects])


class Stream:
    """One /live/ request: its answer's status, headers and what has come so far."""

    def __init__(self, query: str, reader: Reader | None, headers: dict,
                 method: str = "GET") -> None:
        reader = reader or Reader()
        sent = [(b"host", b"testserver")]
        if reader.cookie:
            sent.append((b"cookie", reader.cookie.encode()))
        sent += [(name.lower().encode(), value.encode()) for name, value in headers.items()]
        self.scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": method,
            "scheme": "http", "path": "/live/", "raw_path": b"/live/",
            "query_string": query.lstrip("?").encode(), "root_path": "", "headers": sent,
            "client": (reader.address, 50000), "server": ("testserver", 80)}
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.chunks: list[bytes] = []
        self.ended = asyncio.Event()
        self.started = asyncio.Event()
        self.task: asyncio.Task | None = None

    async def _receive(self):
        return await self.inbox.get()

    async def _send(self, message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = {k.decode().lower(): v.decode() for k, v in message["headers"]}
            self.started.set()
        elif message["type"] == "http.response.body":
            if message.get("body"):
                self.chunks.append(bytes(message["body"]))
            if not message.get("more_body", False):
                self.ended.set()

    async def start(self) -> Stream:
        await self.inbox.put({"type": "http.request", "body": b"", "more_body": False})
        self.task = asyncio.get_running_loop().create_task(
            handler()(self.scope, self._receive, self._send))
        await asyncio.wait_for(self.started.wait(), 10)
        # A stream yields its first lines once it listens and has caught up.
        for _ in range(100):
            if self.chunks or self.ended.is_set():
                break
            await asyncio.sleep(0.01)
        return self

    @property
    def text(self) -> str:
        return b"".join(self.chunks).decode()

    def events(self) -> list[dict]:
        return [orjson.loads(line[len("data: "):]) for line in self.text.splitlines()
                if line.startswith("data: ") and line != "data: {}"]

    def ids(self) -> list[str]:
        return [line[len("id: "):] for line in self.text.splitlines() if line.startswith("id: ")]

    async def close(self) -> None:
        if self.task is not None and not self.task.done():
            await self.inbox.put({"type": "http.disconnect"})
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.task, 5)


async def connect(query: str, reader: Reader | None = None, method: str = "GET",
                  **headers) -> Stream:
    """A /live/ request, whatever it answers (see `open_stream` for a stream that opens)."""
    return await Stream(query, reader, dict(headers), method).start()


async def open_stream(query: str, reader: Reader | None = None, **headers) -> Stream:
    stream = await connect(query, reader, **headers)
    assert stream.status == 200, (stream.status, stream.text)
    assert stream.headers["content-type"] == "text/event-stream"
    assert ": busy" not in stream.text, stream.text
    return stream


async def subscribed(seconds: float = 5.0) -> None:
    """Wait until this loop's hub listens to the feed."""
    await asyncio.wait_for(live.hub().ready.wait(), seconds)


async def settle(seconds: float = 0.4) -> None:
    await asyncio.sleep(seconds)


def send(kind: str, pk: int, version: int, what: str = "") -> None:
    """An event as a service sends it, at once (no transaction to wait for)."""
    feed.publish(feed.event(kind, pk, version, what))
