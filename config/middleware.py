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
