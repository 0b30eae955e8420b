"""The project's middleware. When the database is down: a readable 503 page instead of a
traceback, and two lines in the log per outage, not one per request (`database_outage`)."""

from __future__ import annotations

import logging
import sys

from django.core.signals import got_request_exception
from django.db import DatabaseError, InterfaceError, OperationalError
from django.db.backends.signals import connection_created
from django.http import HttpResponse
from django.template.loader import render_to_string

from .logs import Outage

log = logging.getLogger(__name__)

# "database unavailable; answering 503: <reason>" at the first 503 of an outage in this
# process, "database back after N s; M requests answered without it meanwhile" at the next
# connection that opens; nothing in between (Django's own line for each 503 is dropped:
# config.logs.SkipOutageAnswers).
database_outage = Outage(log, "database", "answering 503")


def database_unavailable(exception: BaseException | None) -> bool:
    """The errors that mean "the database cannot be reached" (the ones answered 503): what
    psycopg raises for a refused, lost or timed-out connection."""
    return isinstance(exception, (OperationalError, InterfaceError)) or (
        isinstance(exception, DatabaseError) and "connection" in str(exception).lower())


def _answered_503(request, exception: BaseException) -> None:
    """Count a request answered 503 in the outage, once (a request whose user cannot be
    read meets the database again in each middleware that asks for the user)."""
    if request is not None:
        if getattr(request, "database_unavailable", False):
            return
        request.database_unavailable = True
    database_outage.down(exception)


def _request_failed(sender, request=None, **kwargs) -> None:
    """An exception no view caught (raised in a middleware: the session or the user read
    before any view): config.views.server_error answers it 503 when it is the database's;
    count it in the outage here, since that handler logs nothing."""
    exception = sys.exc_info()[1]
    if isinstance(exception, (OperationalError, InterfaceError)):
        _answered_503(request, exception)


def _connected(sender, connection=None, **kwargs) -> None:
    database_outage.up()


class ReceivedAtMiddleware:
    """Stamp each request with the time it reached the application (`request.received_at`),
    before sessions and users are loaded: a step that arrives before a deadline counts as on
    time even when the server is busy and reaches it later (the sweep waits
    SWEEP_GRACE_SECONDS after a deadline for such steps; games/services/steps.py refuses a
    stamp older than the phase it would land in)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        from django.utils import timezone

        request.received_at = timezone.now()
        return self.get_response(request)


class DatabaseUnavailableMiddleware:
    """A view that meets an unreachable database answers the 503 page with Retry-After
    (a middleware that meets it first goes through config.views.server_error, the same
    page). Either way the outage is counted in `database_outage`, which logs its start and
    its end once; the first connection that opens afterwards (Django's `connection_created`)
    is its end."""

    def __init__(self, get_response):
        self.get_response = get_response
        got_request_exception.connect(_request_failed, dispatch_uid="database_outage")
        connection_created.connect(_connected, dispatch_uid="database_outage")

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if database_unavailable(exception):
            _answered_503(request, exception)
            html = render_to_string("503.html", {})
            response = HttpResponse(html, status=503)
            response["Retry-After"] = "30"
            return response
        return None


class ContentSecurityPolicyMiddleware:
    """Send the CSP_DIRECTIVES setting as a header on every response.

    The policy allows scripts from our own origin only, so an injected `<script>` or `on*=`
    attribute would not run even if it got past the Markdown sanitizer (static/js/site.js is
    the only script; no template has an inline one, tests/proof/test_security.py checks it). A
    response that already carries the header (a view with its own policy) keeps it.
    """

    def __init__(self, get_response):
        from django.conf import settings

        self.get_response = get_response
        self.policy = "; ".join(f"{directive} {' '.join(sources)}".strip()
                                for directive, sources in settings.CSP_DIRECTIVES.items())

    def __call__(self, request):
        response = self.get_response(request)
        if self.policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = self.policy
        return response


class RefusalMiddleware:
    """Readable refusals that a view lets escape (nothing was written before they were
    raised: parsing and rate limits come before any write):
    - `config.inputs.InputError` -> 400 with its message;
    - `config.ratelimit.RateLimited` -> 429 with its message and Retry-After.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        from django.shortcuts import render

        from .inputs import InputError
        from .ratelimit import RateLimited, too_many_requests

        if isinstance(exception, InputError):
            return render(request, "400.html", {"message": exception.message}, status=400)
        if isinstance(exception, RateLimited):
            return too_many_requests(request, exception)
        return None


class SecurityHeadersMiddleware:
    """The request hardening every response gets, in one place:
    1. Methods: only GET, HEAD and POST reach a view; TRACE, OPTIONS, PUT, DELETE, PATCH and
       anything else answer 405 with an Allow header (no page of ours uses them).
    2. Permissions-Policy (the PERMISSIONS_POLICY setting): no page may use the camera, the
       microphone, geolocation, payment and the like.
    3. Cache-Control: private, no-store on every response to a signed-in user. Every such
       page shows private data (at least the header's unread count and the user's own name;
       most show a seat's secrets or a conversation), and a middleware cannot forget a page
       the way a per-view decorator can. Pages for anonymous visitors stay cacheable; a
       private page reached without a session (a calendar feed's secret URL) marks itself
       with never_cache.
    """

    ALLOWED_METHODS = ("GET", "HEAD", "POST")

    def __init__(self, get_response):
        from django.conf import settings

        self.get_response = get_response
        self.permissions = ", ".join(f"{feature}=({' '.join(allow)})".replace("( ", "(")
                                     for feature, allow in settings.PERMISSIONS_POLICY.items())

    def __call__(self, request):
        from django.http import HttpResponseNotAllowed
        from django.utils.cache import patch_cache_control

        if request.method not in self.ALLOWED_METHODS:
            response = HttpResponseNotAllowed(self.ALLOWED_METHODS,
                                              content=b"405 Method Not Allowed\n",
                                              content_type="text/plain")
        else:
            response = self.get_response(request)
        if self.permissions and "Permissions-Policy" not in response:
            response["Permissions-Policy"] = self.permissions
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            patch_cache_control(response, private=True, no_store=True)
        return response
