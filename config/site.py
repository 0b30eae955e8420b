"""The address the site is served on, for links written outside a request (emails, calendar
feeds): `site_url()`.

It comes from configuration only, never from a request (a Host header is the visitor's
word, and remembering it cost every process a cache write on its first request):
settings.SITE_URL, which is
1. `SITE_URL` from the environment: production requires it (settings refuse to start
   without it; behind a proxy, the public address may be known nowhere else); `make run`
   sets it to http://HOST:PORT of the server it starts (config/devstack.py);
2. otherwise, in development and tests only, http:// the first ALLOWED_HOSTS name
   ("http://127.0.0.1").

Every process (web, worker, beat) reads the same settings, so each writes the same links;
nothing here is a hard-coded address and nothing asks the cache.
"""

from __future__ import annotations

from django.conf import settings


def site_url() -> str:
    """"https://games.example.org" (no trailing slash)."""
    return settings.SITE_URL
