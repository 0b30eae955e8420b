from django.http import HttpResponse
from django.views.decorators.cache import never_cache


@never_cache
def healthz(request):
    """Liveness: answers without touching the database (the benchmarks' trivial baseline)."""
    return HttpResponse("ok", content_type="text/plain")


def csrf_failure(request, reason=""):
    """A readable page for a POST without a valid CSRF token (nothing was stored)."""
    from django.shortcuts import render

    return render(request, "403_csrf.html", {"reason": reason}, status=403)
