"""Sessions in the database, as Django's `db` engine keeps them, read as naming the backends
of `accounts.backends` (issue 17 item 1).

Sessions written before those backends existed (and the ones benchmarks, drills and browser
tests make by hand) name Django's `ModelBackend` or allauth's `AuthenticationBackend`; they
are read as naming ours, the same authentication with the profile joined to the user, so
nobody is signed out by the change and every signed-in request reads the user and their
profile in one query.

Not cached (`cached_db`): a sign-out while Redis is unreachable deletes the database row but
not the cached copy, which would sign the session in again once Redis is back.
"""

from __future__ import annotations

from django.contrib.auth import BACKEND_SESSION_KEY
from django.contrib.sessions.backends import db

UPGRADED_BACKENDS = {
    "django.contrib.auth.backends.ModelBackend": "accounts.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend":
        "accounts.backends.AuthenticationBackend",
}


class SessionStore(db.SessionStore):
    def load(self):
        data = super().load()
        backend = data.get(BACKEND_SESSION_KEY)
        if backend in UPGRADED_BACKENDS:
            data[BACKEND_SESSION_KEY] = UPGRADED_BACKENDS[backend]
        return data
