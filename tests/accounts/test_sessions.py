"""Sessions are Django's own, in the database (docs/operations.md, "Sessions"); sessions
signed in before `accounts.backends` existed are rewritten once to name them (accounts
migration 0006), so their owners stay signed in."""

from __future__ import annotations

from importlib import import_module

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.urls import reverse

pytestmark = pytest.mark.django_db
migration = import_module("accounts.migrations.0006_sessions_name_our_backends")


def old_session(user, backend: str) -> str:
    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = backend
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return store.session_key


def test_sessions_are_djangos_database_sessions():
    assert settings.SESSION_ENGINE == "django.contrib.sessions.backends.db"


@pytest.mark.parametrize("backend", sorted(migration.RENAMED))
def test_a_session_naming_an_original_backend_stays_signed_in(client, make_user, backend):
    user = make_user("老会员")
    key = old_session(user, backend)
    untouched = old_session(make_user("新会员"), settings.AUTHENTICATION_BACKENDS[0])
    assert migration.name_our_backends(apps, None) == 1
    assert migration.name_our_backends(apps, None) == 0  # once
    assert SessionStore(key).load()[BACKEND_SESSION_KEY] == migration.RENAMED[backend]
    assert SessionStore(untouched).load()[BACKEND_SESSION_KEY] == \
        settings.AUTHENTICATION_BACKENDS[0]
    client.cookies[settings.SESSION_COOKIE_NAME] = key
    response = client.get(reverse("profile"))
    assert response.status_code == 200 and "老会员" in response.content.decode()


def test_a_sign_out_deletes_the_session(client, make_user):
    user = make_user("要走的人")
    client.force_login(user)
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    client.post(reverse("account_logout"))
    assert not SessionStore().exists(key)
    assert client.get(reverse("profile")).status_code == 302
