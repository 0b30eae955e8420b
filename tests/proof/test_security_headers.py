"""Cache-Control on private pages, Permissions-Policy, Secure on every cookie
in production, and 405 for TRACE and the other methods no page uses."""

from __future__ import annotations

import pytest
from django.urls import reverse

from messaging import services
from messaging.models import Thread
from tests.proof.test_security import PRODUCTION, settings_subprocess

pytestmark = pytest.mark.django_db
PASSWORD = "correct-horse-battery-9"  # tests/conftest.py's make_user password


@pytest.fixture
def thread(make_user):
    return services.start_thread(board=services.lobby_board(), author=make_user("阿丽"),
                                 kind=Thread.Kind.DISCUSSION, title="大家好", body="第一帖")


@pytest.mark.parametrize("method", ["TRACE", "OPTIONS", "PUT", "DELETE", "PATCH", "PROPFIND",
                                    "CONNECT"])
def test_unused_methods_answer_405_and_change_nothing(client, thread, method, make_user):
    client.force_login(make_user("阿博"))
    for url in ("/", reverse("messaging-thread", args=[thread.pk]),
                reverse("messaging-reply", args=[thread.pk]), "/healthz", "/admin/"):
        response = client.generic(method, url, "body=x")
        assert response.status_code == 405, (method, url)
        assert response["Allow"] == "GET, HEAD, POST"
    assert Thread.objects.count() == 1 and thread.posts.count() == 1


def test_every_page_carries_a_permissions_policy(client, thread):
    for url in ("/", reverse("messaging-thread", args=[thread.pk]), "/healthz", "/nowhere/"):
        policy = client.get(url)["Permissions-Policy"]
        assert "camera=()" in policy and "geolocation=()" in policy
        assert "microphone=()" in policy and "payment=()" in policy


def test_pages_for_a_signed_in_user_are_never_stored(client, thread, make_user):
    user = make_user("阿博")
    client.force_login(user)
    for url in ("/", reverse("messaging-thread", args=[thread.pk]),
                reverse("messaging-conversation-home"), reverse("profile"), "/nowhere/"):
        response = client.get(url)
        directives = {d.strip() for d in response["Cache-Control"].split(",")}
        assert {"private", "no-store"} <= directives, url
        assert "public" not in directives


def test_pages_for_anonymous_visitors_may_be_cached(client, thread):
    response = client.get(reverse("messaging-thread", args=[thread.pk]))
    assert "no-store" not in response.get("Cache-Control", "")


def test_production_marks_every_cookie_secure():
    out = settings_subprocess(
        "from django.conf import settings\n"
        "print(settings.SESSION_COOKIE_SECURE, settings.CSRF_COOKIE_SECURE,"
        " settings.LANGUAGE_COOKIE_SECURE)", **PRODUCTION)
    assert out.split() == ["True", "True", "True"]


def test_every_cookie_a_visit_sets_is_secure_with_the_production_flags(client, settings,
                                                                       make_user):
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    settings.LANGUAGE_COOKIE_SECURE = True
    user = make_user("阿博")
    seen, insecure = set(), []
    steps = [
        lambda: client.get(reverse("account_login"), secure=True),
        lambda: client.post(reverse("account_login"), {"login": user.email,
                                                       "password": PASSWORD}, secure=True),
        lambda: client.post(reverse("profile"), {
            "display_name": "阿博", "timezone": "Asia/Shanghai", "language": "en",
            "reminder_hours": "6,1"}, secure=True),
        lambda: client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"},
                            secure=True),
    ]
    for number, step in enumerate(steps):
        response = step()
        assert response.status_code in (200, 302)
        for name, morsel in response.cookies.items():
            seen.add(name)
            if not morsel["secure"]:
                insecure.append((number, name))
    assert {settings.SESSION_COOKIE_NAME, settings.CSRF_COOKIE_NAME,
            settings.LANGUAGE_COOKIE_NAME} <= seen
    assert insecure == []
