"""Signed-in sessions made on the server for simulated players (the load test, the soak): a
bot carries the session and CSRF cookies and never signs in through the form."""

from __future__ import annotations


def sessions_for(users) -> dict[int, tuple[str, str]]:
    """{user id: (session key, CSRF secret)} for each of `users`, stored in the database.
    Precondition: Django is set up and sessions are stored in the database."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from django.middleware.csrf import _get_new_csrf_string

    assert issubclass(import_module(settings.SESSION_ENGINE).SessionStore, SessionStore), \
        "sessions must be stored in the database"
    made = {}
    for user in users:
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        made[user.pk] = (store.session_key, _get_new_csrf_string())
    return made
