"""When the database is down, answer 503 with a readable page instead of a traceback."""

from __future__ import annotations

import logging

from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import HttpResponse
from django.template.loader import render_to_string

log = logging.getLogger(__name__)


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
