"""Driving /live/ in the test process: an ASGI request through Django's AsyncClient, the
stream read in the background, events sent through the real feed (Redis pub/sub).

The coroutine runs under `async_to_sync`, so the view's thread-sensitive database calls run
in the test's own thread, inside the test's transaction (the plain `db` fixture is enough).
"""

from __future__ import annotations

import asyncio
import contextlib

import orjson
from asgiref.sync import async_to_sync
from django.test import AsyncClient

from config import feed, live


def run(coroutine_function):
    """Run `coroutine_function()` on an event loop of its own, then drop that loop's hub."""
    async def main():
        try:
            return await coroutine_function()
        finally:
            await live.hub().close()

    return async_to_sync(main)()


class Stream:
    """One open /live/ request: its response and what has come so far."""

    def __init__(self, response):
        self.response = response
        self.chunks: list[bytes] = []
        self.task = None

    async def start(self) -> Stream:
        iterator = self.response.streaming_content.__aiter__()

        async def consume():
            with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                async for chunk in iterator:
                    self.chunks.append(bytes(chunk))
        self.task = asyncio.get_running_loop().create_task(consume())
        # The stream registers its page with the hub before it yields its first line.
        for _ in range(100):
            if self.chunks:
                break
            await asyncio.sleep(0.01)
        return self

    @property
    def text(self) -> str:
        return b"".join(self.chunks).decode()

    def events(self) -> list[dict]:
        return [orjson.loads(line[len("data: "):]) for line in self.text.splitlines()
                if line.startswith("data: ")]

    def ids(self) -> list[str]:
        return [line[len("id: "):] for line in self.text.splitlines() if line.startswith("id: ")]

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.wait({self.task}, timeout=5)
        aclose = getattr(self.response.streaming_content, "aclose", None)
        if aclose is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(aclose(), 5)


async def open_stream(client: AsyncClient, query: str = "", **headers) -> Stream:
    response = await client.get(f"/live/{query}", headers=headers)
    assert response.status_code == 200, (response.status_code, response.content)
    assert response["Content-Type"] == "text/event-stream"
    return await Stream(response).start()


async def subscribed(seconds: float = 5.0) -> None:
    """Wait until this loop's hub listens to the feed."""
    await asyncio.wait_for(live.hub().ready.wait(), seconds)


async def settle(seconds: float = 0.4) -> None:
    await asyncio.sleep(seconds)


def send(kind: str, pk: int, version: int, what: str = "") -> None:
    """An event as a service sends it, at once (no transaction to wait for)."""
    feed.publish(feed.event(kind, pk, version, what))
