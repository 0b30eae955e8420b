"""GET /live/: the Server-Sent Events stream of an open page (the fan-out is config/live.py).

A page names what it shows and the version it showed, `?game=7.93&thread=42.17` (an id, a
dot, the version; the version may be left out), at most `MAX_OBJECTS` objects; a signed-in
reader also hears their own `user` events, never anyone else's (a `user` the query names is
ignored). The stream:
1. checks once, in one trip to a worker thread, that the reader may read each object, with
   the pages' own rules: `messaging.rules.can_read_thread` / `can_read_board` (GM boards,
   GM-only threads, draft games' boards) and the game pages' `game_or_404` (a draft game is
   nobody's page). An object the reader may not read, or that does not exist, is left out
   without a word (the answer is the same for both); with nothing left, 204;
2. registers the page with the process's hub and waits (at most `READY_SECONDS`) for the
   hub's subscription, then reads the objects' current versions from the database: an
   object newer than the version the page (or its last event, `Last-Event-ID`) had gets an
   event at once, so a page that reconnects misses nothing committed while it was away;
3. closes the worker thread's database connections before streaming: an open page holds no
   database connection, only its place in the hub;
4. sends each event as it comes (`id:` holds every version the page has, for the browser's
   Last-Event-ID), a heartbeat comment every `HEARTBEAT_SECONDS`, and ends after
   `LIFETIME_SECONDS` (with some jitter), or at once when the reader's rights change (a
   `user` event "access": they stopped or started watching a game): the browser reconnects
   by itself, which spreads pages over the workers again and checks the reader's rights
   again.
Served by a server that is not ASGI (runserver, gthread), the view answers 204 at once: the
browser's EventSource stops, and pages work as they do without script. Redis down: the
stream carries heartbeats (and the catch-up events read from the database); database down
at connect: 204. Bad input: 400 with a sentence. Never a 500.
"""

from __future__ import annotations

import asyncio
import logging
import random

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.db import DatabaseError, connections
from django.http import Http404, HttpRequest, HttpResponse, QueryDict, StreamingHttpResponse
from django.utils.translation import gettext as _

from . import live
from .inputs import InputError, parse_int

log = logging.getLogger(__name__)

MAX_OBJECTS = 8
HEARTBEAT_SECONDS = 25.0
LIFETIME_SECONDS = 600.0
READY_SECONDS = 2.0
RETRY_MS = 3000  # the browser's wait before it reconnects
# Kinds a page may name; `user` comes from the session only.
PAGE_KINDS = ("game", "thread", "board")


def wanted(query: QueryDict, last_event_id: str | None) -> dict[live.Key, int | None]:
    """{(kind, id): the version the page has, or None} from the query and Last-Event-ID
    (the stream's own text, `live.versions_text`: its versions win, they are newer). Ids
    and versions are read as the rest of the site reads numbers (config.inputs)."""
    found: dict[live.Key, int | None] = {}
    for kind in PAGE_KINDS:
        for raw in query.getlist(kind):
            pk, version = _pair(raw, kind)
            found[(kind, pk)] = version
    if len(found) > MAX_OBJECTS:
        raise InputError(_("A page may follow at most %(n)d things at once.")
                         % {"n": MAX_OBJECTS}, field=None)
    if last_event_id:
        seen = QueryDict(last_event_id[:1000])
        for kind in (*PAGE_KINDS, "user"):
            for raw in seen.getlist(kind)[:MAX_OBJECTS]:
                try:
                    pk, version = _pair(raw, kind)
                except InputError:
                    continue  # the browser sends back what we sent; anything else is noise
                if version is not None and (kind == "user" or (kind, pk) in found):
                    found[(kind, pk)] = max(version, found.get((kind, pk)) or 0)
    return found


def _pair(raw: str, kind: str) -> tuple[int, int | None]:
    pk, _dot, version = raw.partition(".")
    return (parse_int(pk, field=kind, minimum=1),
            parse_int(version, field=kind, minimum=0, default=None))


def readable(user, keys: list[live.Key]) -> set[live.Key]:
    """The keys among `keys` whose object `user` may read, by the pages' own rules (see the
    module's docstring, step 1). Runs in a worker thread (the ORM)."""
    from games.web.pages import game_or_404
    from messaging import rules
    from messaging.models import Board, Thread

    ids = {kind: [pk for k, pk in keys if k == kind] for kind in PAGE_KINDS}
    allowed: set[live.Key] = set()
    if ids["thread"]:
        for thread in Thread.objects.select_related("board").filter(pk__in=ids["thread"]):
            if rules.can_read_thread(user, thread):
                allowed.add(("thread", thread.pk))
    if ids["board"]:
        for board in Board.objects.filter(pk__in=ids["board"]):
            if rules.can_read_board(user, board):
                allowed.add(("board", board.pk))
    for pk in ids["game"]:
        try:
            game_or_404(pk)
        except Http404:
            continue
        allowed.add(("game", pk))
    return allowed


def current_versions(user, keys: set[live.Key]) -> dict[live.Key, int]:
    """The version each object has now, as the feed numbers it (the columns the services
    bump, config/feed.py): Thread.version, Board.version, Game.page_version; for the reader
    (`user`) their count of unread notices (messaging.notifications.publish_counts)."""
    from games.models import Game
    from messaging.models import Board, Thread

    found: dict[live.Key, int] = {}
    for kind, model, column in (("thread", Thread, "version"), ("board", Board, "version"),
                                ("game", Game, "page_version")):
        ids = [pk for k, pk in keys if k == kind]
        if ids:
            for pk, version in model.objects.filter(pk__in=ids).values_list("pk", column):
                found[(kind, pk)] = version
    if ("user", getattr(user, "pk", None)) in keys:
        from messaging import notifications

        found[("user", user.pk)] = notifications.unread_count(user)
    return found


def _connect(request: HttpRequest, asked: dict[live.Key, int | None]) -> set[live.Key]:
    """Step 1 in the request's own worker thread (the one the middleware used)."""
    try:
        user = request.user
        keys = readable(user, list(asked))
        if user.is_authenticated:
            keys.add(("user", user.pk))
        return keys
    finally:
        _let_go()


def _versions(user, keys: set[live.Key]) -> dict[live.Key, int]:
    try:
        return current_versions(user, keys)
    finally:
        _let_go()


def _let_go() -> None:
    """Close this thread's database connections (step 3), but one inside a transaction:
    that is a caller's (a test's), never a request's (no view runs in a transaction)."""
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close()


def _release_worker_thread() -> None:
    """Let the request's worker thread go while the stream waits (step 3).

    Under ASGI Django runs a request's synchronous parts (the middleware, `_connect`) in a
    thread of the request's own (asgiref's ThreadSensitiveContext), kept until the request
    ends: for a stream, as long as the page is open, one idle thread per page (measured:
    1,000 pages, 1,001 threads). The stream has no synchronous work left, so the thread is
    let go now; were any needed before the end (Django's request_finished), asgiref starts
    another for it. Where asgiref keeps its threads otherwise, nothing is done."""
    from asgiref.sync import SyncToAsync

    context = getattr(SyncToAsync, "thread_sensitive_context", None)
    executors = getattr(SyncToAsync, "context_to_thread_executor", None)
    if context is None or executors is None:
        return
    current = context.get(None)
    executor = executors.pop(current, None) if current is not None else None
    if executor is not None:
        executor.shutdown(wait=False)


def _refusal(message: str, status: int) -> HttpResponse:
    return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")


async def live_stream(request: HttpRequest) -> HttpResponse:
    if not isinstance(request, ASGIRequest):
        return HttpResponse(status=204)  # a thread-per-request server: no streams there
    if request.method not in ("GET", "HEAD"):
        return _refusal(_("This address only answers GET."), 405)
    try:
        asked = wanted(request.GET, request.headers.get("Last-Event-ID"))
    except InputError as refused:
        return _refusal(refused.message, 400)
    # The user's own version from Last-Event-ID (a page never names a user in its query).
    own_seen = {pk: v for (kind, pk), v in asked.items() if kind == "user"}
    asked = {key: v for key, v in asked.items() if key[0] != "user"}
    try:
        keys = await sync_to_async(_connect)(request, asked)
    except DatabaseError:
        log.warning("live: the database is unavailable; no stream", exc_info=True)
        return HttpResponse(status=204)
    if not keys:
        return HttpResponse(status=204)
    for key in keys:
        if key[0] == "user":
            asked[key] = own_seen.get(key[1])
    response = StreamingHttpResponse(_stream(request.user, keys, asked),
                                     content_type="text/event-stream")
    response["Cache-Control"] = "no-cache, no-store"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    return response


async def _stream(user, keys: set[live.Key], have: dict[live.Key, int | None]):
    hub = live.hub()
    listener = live.Listener(keys)
    hub.add(listener)
    try:
        yield f"retry: {RETRY_MS}\n\n".encode()
        try:
            await asyncio.wait_for(hub.ready.wait(), READY_SECONDS)
        except TimeoutError:
            pass  # Redis away: the catch-up below still comes from the database
        try:
            now = await sync_to_async(_versions)(user, keys)
        except DatabaseError:
            now = {}
        versions: dict[live.Key, int] = {}
        catch_up = []
        for key in sorted(keys):
            seen, current = have.get(key), now.get(key)
            if key[0] == "user":
                # The count of unread notices: any difference is news (it goes down too).
                if current is not None and seen is not None and current != seen:
                    catch_up.append({"t": "user", "id": key[1], "v": current})
                versions[key] = current if current is not None else (seen or 0)
                continue
            if current is not None and seen is not None and current > seen:
                catch_up.append({"t": key[0], "id": key[1], "v": current})
            versions[key] = max(v for v in (seen, current, 0) if v is not None)
        for event in catch_up:
            yield live.message(event, versions)
        _release_worker_thread()
        ends = asyncio.get_running_loop().time() + LIFETIME_SECONDS * random.uniform(0.9, 1.1)
        while True:
            left = ends - asyncio.get_running_loop().time()
            if left <= 0:
                return
            events = await listener.wait(min(HEARTBEAT_SECONDS, left))
            if not events:
                yield live.HEARTBEAT
                continue
            for event in events:
                key = (event["t"], event["id"])
                if event["t"] == "user" and event.get("what") == "access":
                    return  # what the reader may read changed: the browser asks again
                if event["t"] == "user":
                    versions[key] = event["v"]
                elif event["v"] <= versions.get(key, -1):
                    continue  # the page has this version already
                else:
                    versions[key] = event["v"]
                yield live.message(event, versions)
    finally:
        hub.remove(listener)
