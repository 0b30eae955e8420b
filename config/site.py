"""The address the site is served on, for links written outside a request (emails, calendar
feeds): `site_url()`.

1. `SITE_URL` from the environment, when set: the operator's word (behind a proxy, the
   public address may be known nowhere else).
2. Otherwise, the origin of the last page request the site answered (scheme and Host, which
   Django has checked against ALLOWED_HOSTS), remembered in the shared "health" cache (Redis, else a file; never a database query) by
   `SiteAddressMiddleware`, so the worker and beat, which serve no requests, write the same
   address: `runserver 0.0.0.0:8005` or `make run PORT=8001` gives links to that port.
3. Before any request: settings.SITE_URL, https:// the first ALLOWED_HOSTS name in
   production (that is where it is served), http:// it elsewhere ("http://127.0.0.1").
   Code that still reads settings.SITE_URL gets that absolute address, never a relative
   link.

Nothing here is a hard-coded address. Each process remembers what it last wrote, so a
request costs no cache access unless the origin changed.
"""

from __future__ import annotations

from django.conf import settings
from django.core.cache import caches
from django.core.exceptions import DisallowedHost

CACHE_KEY = "site-url:seen"
# The cache shared by every process but never the database (Redis, else a file under var/):
# reading the address costs no query, so query budgets of pages and sweeps are unchanged.
CACHE = "health"
_last_written: str | None = None


def site_url() -> str:
    """"https://games.example.org" (no trailing slash)."""
    if settings.SITE_URL_FROM_ENV:
        return settings.SITE_URL_FROM_ENV
    seen = caches[CACHE].get(CACHE_KEY)
    return seen or settings.SITE_URL  # settings' fallback: the first ALLOWED_HOSTS name


def remember(origin: str) -> None:
    """Record `origin` ("http://127.0.0.1:8005") as the site's address, if it changed."""
    global _last_written
    if origin == _last_written:
        return
    caches[CACHE].set(CACHE_KEY, origin, None)
    _last_written = origin


class SiteAddressMiddleware:
    """Remember the origin page requests arrive at (only when SITE_URL is not set)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not settings.SITE_URL_FROM_ENV:
            try:
                remember(f"{request.scheme}://{request.get_host()}")
            except DisallowedHost:  # CommonMiddleware has answered 400 already
                pass
        return self.get_response(request)
