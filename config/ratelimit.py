"""One limiter for writes: django-ratelimit's counter on the shared cache.

Why django-ratelimit: a small, documented, widely used library whose `get_usage` is exactly
the counter we need (atomic `add`/`incr` on the Django cache, so it holds across worker
processes on Redis; windows staggered per key so every user's minute does not end at once).
allauth's own limiter guards sign-in, sign-up and password reset and stays; its helper is
internal to allauth (`allauth.core.ratelimit`) and keyed on allauth's actions, so it is not
what other apps should build on.

Callers:
- services: `consume(scope=..., who=..., rate=...)` before they write anything; it raises
  `RateLimited` (a sentence and the seconds to wait) when the budget is spent. Messaging
  turns it into `PostingRefused(code="rate_limited")`.
- views: `limit_writes(scope, rate)` decorates a view so that its POSTs by one user (or one
  address, signed out) count against `rate`; beyond it the view is not called at all and the
  answer is the 429 page. `config.middleware.RefusalMiddleware` renders any `RateLimited`
  a view lets escape the same way.
Counting happens before the write and only for a write that will be tried, so a refused
request stores nothing. `RATE_LIMITS=false` (tests of other things, load tests) turns every
limit off (RATELIMIT_ENABLE).

When the cache cannot count (Redis down: config/cache.py answers the count as a miss), the
limiter decides by whom it counts (docs/operations.md "Rate limits"):
- a signed-in person's writes (`who` "user:<id>" or "seat:<id>": steps, votes, posts,
  messages to 神的使者, sign-ups, awards) FAIL OPEN: the write goes on, with every check of
  its service; the limit only guards against floods, and a player's step must not be lost
  to a cache outage;
- an address's writes (signed out, "ip:<address>") FAIL CLOSED. allauth's limits (sign-in,
  sign-up, password reset …) fail closed too: its lock on the cache cannot be taken, so
  allauth refuses; a signed-in session (in PostgreSQL) is not affected.
A refusal for want of the cache is not "too many requests": it answers 503 with
Retry-After and says, in the reader's language, that the site cannot count right now and
that trying again in a few minutes will do (`unavailable`). allauth gives no reason with its
refusal, so its handler (`allauth_refused`, settings' ROOT_URLCONF `handler429`) asks the
cache whether it answers (`cache_counts`).
"""

from __future__ import annotations

import functools
import logging
import uuid
from collections.abc import Callable

from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django_ratelimit.core import get_usage

log = logging.getLogger(__name__)
# Whose writes go on when the cache cannot count them (see the module's docstring).
FAIL_OPEN_KEYS = ("user:", "seat:")


class RateLimited(Exception):
    """Too many writes, or (`outage`) writes that cannot be counted now; `message` is a
    sentence to show, `retry_after` seconds to wait."""

    def __init__(self, message, *, retry_after: int = 60, outage: bool = False):
        super().__init__(str(message))
        self.message = message
        self.retry_after = retry_after
        self.outage = outage


def consume(*, scope: str, who: str, rate: str, message=None) -> None:
    """Count one write by `who` (e.g. "user:12") in `scope` (e.g. "messaging.posts") against
    `rate` ("10/m", "3/h", "20/10m"); RateLimited when it goes over."""
    usage = get_usage(None, group=scope, key=lambda _group, _request: who, rate=rate,
                      increment=True)
    if usage is None or not usage["should_limit"]:
        return
    if uncounted(usage):
        if who.startswith(FAIL_OPEN_KEYS):
            log.debug("%s: not counted (no cache); %s's write goes on", scope, who)
            return
        raise RateLimited(_("The site cannot count requests right now (its cache does not "
                            "answer), so this cannot be sent without signing in. This is not "
                            "something you did: please try again in a few minutes."),
                          retry_after=60, outage=True)
    raise RateLimited(message or _("Too many requests. Please wait a moment and try again."),
                      retry_after=max(int(usage["time_left"]), 1))


def uncounted(usage: dict) -> bool:
    """Whether django-ratelimit could not count (its cache failed): it then answers "limit"
    with time_left -1 (RATELIMIT_FAIL_OPEN unset), which a counted window never has (a
    window ends at or after now)."""
    return usage["time_left"] < 0


def who_is(request: HttpRequest) -> str:
    """The key a request's writes count under: the user, or the address when signed out."""
    if request.user.is_authenticated:
        return f"user:{request.user.pk}"
    return f"ip:{request.META.get('REMOTE_ADDR', '')}"


def too_many_requests(request: HttpRequest, refused: RateLimited) -> HttpResponse:
    """The 429 page with the refusal's sentence and a Retry-After header; for a write that
    could not be counted, the 503 page (`unavailable`)."""
    if refused.outage:
        return unavailable(request, refused.message, retry_after=refused.retry_after)
    response = render(request, "429.html", {"message": refused.message}, status=429)
    response["Retry-After"] = str(refused.retry_after)
    return response


def unavailable(request: HttpRequest, message, *, retry_after: int = 60) -> HttpResponse:
    """503 with Retry-After: the limit could not count (the cache does not answer), said as
    what it is, never as "too many"."""
    response = render(request, "429.html", {"title": _("Not available right now"),
                                            "message": message}, status=503)
    response["Retry-After"] = str(retry_after)
    return response


def cache_counts() -> bool:
    """Whether the cache answers now: a value written is read back. When Redis is away the
    cache answers a miss at once (config/cache.py leaves it alone for a few seconds after a
    failure), so asking costs a refused request nothing more."""
    key = f"rl:probe:{uuid.uuid4().hex}"
    cache.set(key, 1, 10)
    answered = cache.get(key) == 1
    cache.delete(key)
    return answered


def allauth_refused(request: HttpRequest) -> HttpResponse:
    """allauth's refusal of a sign-in, sign-up, password reset or email change. allauth
    refuses both when the budget is spent (the 429 page, as allauth's own) and when it cannot
    take its lock on the cache; in the second case the page says that the site cannot count
    attempts now, which is no fault of the reader's (503, Retry-After)."""
    if cache_counts():
        return render(request, "429.html", status=429)
    log.debug("allauth refused %s: the cache does not answer", request.path)
    return unavailable(request, _(
        "The site cannot count sign-in attempts right now (its cache does not answer). So "
        "that nobody can guess passwords meanwhile, signing in, signing up and password "
        "resets wait until it answers again. This is a fault of the site, not of your "
        "password: please try again in a few minutes. Whoever is signed in already is not "
        "affected."))


def limit_writes(scope: str, rate: str | Callable[[], str], *, message=None):
    """Decorate a view: each POST counts against `rate` (a string, or a function returning
    one, read at request time) for its sender; beyond it, the 429 page."""

    def decorator(view):
        @functools.wraps(view)
        def wrapped(request, *args, **kwargs):
            if request.method == "POST":
                try:
                    consume(scope=scope, who=who_is(request),
                            rate=rate() if callable(rate) else rate, message=message)
                except RateLimited as refused:
                    return too_many_requests(request, refused)
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
