from pathlib import Path

from django.http import HttpResponse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

FAVICON = Path(__file__).resolve().parent.parent / "static" / "favicon.ico"


@require_safe
@cache_control(max_age=86400, public=True)
def favicon(request):
    """/favicon.ico, which browsers ask for whatever the page's <link rel="icon"> says."""
    return HttpResponse(FAVICON.read_bytes(), content_type="image/x-icon")


def csrf_failure(request, reason=""):
    """A readable page for a POST without a valid CSRF token (nothing was stored)."""
    from django.shortcuts import render

    return render(request, "403_csrf.html", {"reason": reason}, status=403)


def server_error(request):
    """handler500: a database that cannot be reached gets the readable 503 page (whichever
    layer first touched it: a view or a middleware), anything else the 500 page. Renders
    without the database and without context processors."""
    import sys

    from django.db import InterfaceError, OperationalError
    from django.template.loader import render_to_string

    exc = sys.exc_info()[1]
    if isinstance(exc, (OperationalError, InterfaceError)):
        response = HttpResponse(render_to_string("503.html"), status=503)
        response["Retry-After"] = "30"
        return response
    return HttpResponse(render_to_string("500.html"), status=500)
