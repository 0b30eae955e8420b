"""When the database is down, answer 503 with a readable page instead of a traceback."""

from __future__ import annotations

import logging

from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import HttpResponse
from django.template.loader import render_to_string

log = logging.getLogger(__name__)


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
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, (OperationalError, InterfaceError)) or (
                isinstance(exception, DatabaseError) and "connection" in str(exception).lower()):
            log.warning("database unavailable: %s", exception)
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
