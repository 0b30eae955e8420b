"""GET /live/: the Server-Sent Events stream of an open page (the fan-out is config/live.py).

A page's script opens `/live/?t=TOKEN&game=7.93&thread=42.17`: the subscription token its
page gave it (config/live_token.py: signed by the page, naming what it may follow and its
reader) and the objects it follows with the version it showed (an id, a dot, the version;
the version may be left out), at most `MAX_OBJECTS`. Opening a stream costs no database
work, so a reconnect storm (every open page at once, after a restart of the live server)
is not a storm of PostgreSQL connections: `LiveASGIHandler` serves /live/ before Django's
middleware (which would read the session and the user from the database), and the stream
1. admits the attempt or not (`Admission`: at most `CONNECTS_PER_SECOND` a second per
   process in bursts of `CONNECTS_BURST`, and `ADDRESS_PER_SECOND` per client address in
   bursts of `ADDRESS_BURST`). A refused attempt is answered 200 with only `retry:` (a
   delay that grows with the crowd already told to come back, with jitter) and a `: busy`
   comment, and ends: the browser's EventSource comes back by itself after that delay. Not a
   204 (EventSource stops for good) nor a 503 (EventSource fails and does not come back);
2. reads the query (bad input: 400 with a sentence) and checks the token without the
   database (`live_token.check`): its signature, its age, the session cookie's digest for a
   signed-in reader, and every object the query names must be in the token. Forged, expired,
   another browser's, an object not in it: 403, nothing streamed (the script then loads its
   page again for a new token, with back-off);
3. for a signed-in reader, compares the token's access version with the one Redis holds
   (one read, config/feed.access_key): their rights changed since the page was shown (they
   started or stopped watching a game), 403. Redis cannot answer: refused for now, as in 1;
4. registers the page with the process's hub, waits (at most `READY_SECONDS`) for the hub's
   subscription, then reads the versions the feed keeps in Redis (config/feed.version_key,
   one read): an object newer than the version the page (or its last event, Last-Event-ID)
   had gets an event at once, so a page that reconnects misses nothing committed while it
   was away (the feed keeps each version longer than a token lives, and a page away longer
   loads itself anew for a token);
5. sends each event as it comes (`id:` holds every version the page has, for the browser's
   Last-Event-ID), a heartbeat comment every `HEARTBEAT_SECONDS`, and ends after
   `LIFETIME_SECONDS` (with some jitter): the browser reconnects by itself with the same
   token, which spreads pages over the workers again. It ends with a `renew` event when the
   token runs out, or at once when the reader's rights change (a `user` event "access"):
   the script loads its page again (the page's own checks) for a new token.
A signed-in reader's token also opens ("user", own id), their unread notices; a `user` the
query names is ignored, so no page hears another user's events. Served by a server that is
not ASGI (runserver, gthread), the view answers 204 at once: the browser's EventSource
stops, and pages work as they do without script. Redis down: a stream already open carries
heartbeats. Never a 500.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import random
import time
import weakref

from django.conf import settings
from django.core.handlers.asgi import ASGIHandler, ASGIRequest
from django.http import HttpRequest, HttpResponse, QueryDict, StreamingHttpResponse
from django.utils.translation import gettext as _

from . import feed, live, live_token
from .inputs import InputError, parse_int
from .logs import log_once_per

log = logging.getLogger(__name__)

PATH = "/live/"
MAX_OBJECTS = 8
HEARTBEAT_SECONDS = 25.0
LIFETIME_SECONDS = 600.0
READY_SECONDS = 2.0
RETRY_MS = 3000  # the browser's wait before it reconnects after a stream's end
# Admission, per process (each uvicorn worker): see `Admission`.
CONNECTS_PER_SECOND = 200.0
CONNECTS_BURST = 200
ADDRESS_PER_SECOND = 10.0
ADDRESS_BURST = 50
ADDRESSES_KEPT = 10_000
REDIS_AWAY_SECONDS = 10.0  # how long a refusal for want of Redis asks the browser to wait
PAGE_KINDS = live_token.PAGE_KINDS


class Admission:
    """Connection attempts let in per process: a token bucket for the process (`rate` a
    second, `burst` at once) and one per client address (`per_address`, `address_burst`).

    A refused attempt is told when to come back (`admit`'s answer): the refused ones are
    given successive slots at the process's rate after the slots already given (a queue kept
    as one number, `promised`), plus up to a second of jitter, so a crowd refused at once
    comes back spread over the time the process needs to let it in, and a crowd that keeps
    coming waits longer and longer. The addresses kept are bounded (`kept`, the least
    recently seen forgotten first: forgetting one only gives it a full bucket again); a
    flood from one address is refused at its rate and costs a dict entry, nothing more."""

    def __init__(self, *, rate: float, burst: int, per_address: float, address_burst: int,
                 kept: int = ADDRESSES_KEPT, clock=time.monotonic) -> None:
        self.rate, self.burst = rate, burst
        self.per_address, self.address_burst = per_address, address_burst
        self.kept = kept
        self.clock = clock
        self.tokens = float(burst)
        self.at = clock()
        self.addresses: collections.OrderedDict[str, tuple[float, float]] = (
            collections.OrderedDict())
        self.promised = 0.0
        self.refused = 0

    def admit(self, address: str) -> float:
        """0 when the attempt from `address` is let in, else the seconds it should wait."""
        now = self.clock()
        self.tokens = min(float(self.burst), self.tokens + (now - self.at) * self.rate)
        self.at = now
        tokens, at = self.addresses.pop(address, (float(self.address_burst), now))
        tokens = min(float(self.address_burst), tokens + (now - at) * self.per_address)
        if tokens < 1:
            self._keep(address, tokens, now)
            self.refused += 1
            return (1 - tokens) / self.per_address + random.uniform(0.5, 1.5)
        if self.tokens < 1:
            self._keep(address, tokens, now)
            self.refused += 1
            self.promised = max(now, self.promised) + 1 / self.rate
            return self.promised - now + random.uniform(0.5, 1.5)
        self.tokens -= 1
        self._keep(address, tokens - 1, now)
        return 0.0

    def _keep(self, address: str, tokens: float, now: float) -> None:
        self.addresses[address] = (tokens, now)
        while len(self.addresses) > self.kept:
            self.addresses.popitem(last=False)


_admissions: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def admission() -> Admission:
    """This process's admission (one per event loop, as the hub: each test's loop its own)."""
    loop = asyncio.get_running_loop()
    found = _admissions.get(loop)
    if found is None:
        found = _admissions[loop] = Admission(
            rate=CONNECTS_PER_SECOND, burst=CONNECTS_BURST, per_address=ADDRESS_PER_SECOND,
            address_burst=ADDRESS_BURST)
    return found


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


def _number(raw: bytes | None) -> int | None:
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


async def current_versions(keys: set[live.Key]) -> dict[live.Key, int]:
    """The last version the feed published for each of `keys` (config/feed.py keeps them in
    Redis): Thread.version, Board.version, Game.page_version, a user's unread notices. A key
    with nothing kept has not changed for longer than a token lives. One MGET; raises when
    Redis cannot answer."""
    ordered = sorted(keys)
    values = await live.hub().read([feed.version_key(kind, pk) for kind, pk in ordered])
    return {key: v for key, raw in zip(ordered, values, strict=True)
            if (v := _number(raw)) is not None}


async def access_version(user_id: int) -> int | None:
    """The user's access version as Redis holds it (None: none kept); raises when Redis
    cannot answer."""
    (raw,) = await live.hub().read([feed.access_key(user_id)])
    return _number(raw)


def _release_worker_thread() -> None:
    """Let the request's worker thread go while the stream waits.

    Under ASGI Django runs a request's synchronous parts (here the request_started signal's
    receivers) in a thread of the request's own (asgiref's ThreadSensitiveContext), kept
    until the request ends: for a stream, as long as the page is open, one idle thread per
    page (measured: 1,000 pages, 1,001 threads). The stream has no synchronous work left, so
    the thread is let go now; were any needed before the end (Django's request_finished),
    asgiref starts another for it. Where asgiref keeps its threads otherwise, nothing is
    done."""
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
    response = HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")
    response["Cache-Control"] = "no-store"
    return response


def _forbidden(reason: str) -> HttpResponse:
    """403 for a token that opens nothing here. The body is for operators and scripts (a
    browser's EventSource shows nobody an answer), so it is a reason, not a sentence:
    "forged", "expired", "foreign" (another session's), "not in the token" (an object the
    token does not name), "access changed" (the reader's rights changed since)."""
    return _refusal(f"403 {reason}\n", 403)


def _come_back(seconds: float) -> HttpResponse:
    """A refused attempt (see the module, 1): the browser's EventSource reconnects after
    `retry` ms; `Retry-After` says the same to anything else."""
    ms = max(1000, int(seconds * 1000))
    response = HttpResponse(f"retry: {ms}\n: busy\n\n".encode(),
                            content_type="text/event-stream")
    response["Cache-Control"] = "no-cache, no-store"
    response["Retry-After"] = str(-(-ms // 1000))
    return response


async def live_stream(request: HttpRequest) -> HttpResponse:
    if not isinstance(request, ASGIRequest):
        return HttpResponse(status=204)  # a thread-per-request server: no streams there
    if request.method not in ("GET", "HEAD"):
        return _refusal(_("This address only answers GET."), 405)
    wait = admission().admit(request.META.get("REMOTE_ADDR") or "")
    if wait:
        return _come_back(wait)
    try:
        asked = wanted(request.GET, request.headers.get("Last-Event-ID"))
    except InputError as refused:
        return _refusal(refused.message, 400)
    try:
        grant = live_token.check(request.GET.get("t", ""),
                                 session_key=request.COOKIES.get(settings.SESSION_COOKIE_NAME))
    except live_token.Refused as refused:
        return _forbidden(refused.reason)
    # The user's own version from Last-Event-ID (a page never names a user in its query).
    own_seen = {pk: v for (kind, pk), v in asked.items() if kind == "user"}
    asked = {key: v for key, v in asked.items() if key[0] != "user"}
    if not set(asked) <= grant.channels:
        return _forbidden("not in the token")
    keys = set(asked)
    if grant.user_id is not None:
        try:
            held = await access_version(grant.user_id)
        except Exception as exc:  # noqa: BLE001 - Redis away: come back later, never a 500
            log_once_per(60, log, "live: Redis cannot answer at connect (%r); pages are told "
                         "to come back", exc)
            return _come_back(REDIS_AWAY_SECONDS * random.uniform(1, 2))
        if held is None or held != grant.access:
            return _forbidden("access changed")
        keys.add(("user", grant.user_id))
        asked[("user", grant.user_id)] = own_seen.get(grant.user_id)
    if not keys:
        return HttpResponse(status=204)  # nothing to follow: nothing would ever come
    if request.method == "HEAD":
        return HttpResponse(content_type="text/event-stream")
    response = StreamingHttpResponse(_stream(keys, asked, grant.expires),
                                     content_type="text/event-stream")
    response["Cache-Control"] = "no-cache, no-store"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    return response


async def _stream(keys: set[live.Key], have: dict[live.Key, int | None], expires: float):
    hub = live.hub()
    listener = live.Listener(keys)
    hub.add(listener)
    try:
        try:
            await asyncio.wait_for(hub.ready.wait(), READY_SECONDS)
        except TimeoutError:
            pass  # Redis away: heartbeats until the hub subscribes again
        try:
            now = await current_versions(keys)
        except Exception:  # noqa: BLE001 - Redis away: no catch-up (nothing kept to read)
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
        # The first lines come once the page listens and has caught up (tests wait for them).
        yield f"retry: {RETRY_MS}\n\n".encode() + b"".join(
            live.message(event, versions) for event in catch_up)
        _release_worker_thread()
        loop = asyncio.get_running_loop()
        lifetime = LIFETIME_SECONDS * random.uniform(0.9, 1.1)
        token_left = expires - time.time()
        ends = loop.time() + min(lifetime, token_left)
        while True:
            left = ends - loop.time()
            if left <= 0:
                if token_left <= lifetime:
                    yield live.RENEW  # the token ran out: the page asks for a new one
                return
            events = await listener.wait(min(HEARTBEAT_SECONDS, left))
            if not events:
                yield live.HEARTBEAT
                continue
            for event in events:
                key = (event["t"], event["id"])
                if event["t"] == "user" and event.get("what") == "access":
                    yield live.RENEW  # what the reader may read changed: a new page, a token
                    return
                if event["t"] == "user":
                    versions[key] = event["v"]
                elif event["v"] <= versions.get(key, -1):
                    continue  # the page has this version already
                else:
                    versions[key] = event["v"]
                yield live.message(event, versions)
    finally:
        hub.remove(listener)


class LiveASGIHandler(ASGIHandler):
    """Django's ASGI handler, serving /live/ before the middleware: the session, the user
    and their profile are read from the database there, which a stream never needs (its
    token says who it is for). Everything else goes through the middleware as usual."""

    async def get_response_async(self, request):
        if request.path_info == PATH:
            response = await live_stream(request)
            response._resource_closers.append(request.close)
            return response
        return await super().get_response_async(request)


def asgi_application() -> LiveASGIHandler:
    """config/asgi.py's application (Django set up first, as get_asgi_application does)."""
    import django

    django.setup(set_prefix=False)
    return LiveASGIHandler()
