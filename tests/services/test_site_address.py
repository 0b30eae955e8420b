"""Links in emails use the address the site is served on (issue 14 item 8), never a
hard-coded 127.0.0.1:8000 (config/site.py): SITE_URL when the operator sets it, else the
origin page requests arrive at (shared with the worker through the cache), else the first
ALLOWED_HOSTS name."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.core.cache import caches

from accounts.models import Profile
from config import site
from games import services

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "eager_email")]


@pytest.fixture(autouse=True)
def forget(monkeypatch):
    caches[site.CACHE].delete(site.CACHE_KEY)
    monkeypatch.setattr(site, "_last_written", None)
    yield
    caches[site.CACHE].delete(site.CACHE_KEY)


def start(players, gm, capture):
    Profile.objects.filter(user__in=players).update(email_announcements=True)
    game = services.create_game(name="地址局", ruleset="toy", gm=gm, seat_count=5,
                                durations={"night": 60, "day": 60})
    with capture(execute=True):
        return services.start_game(game_id=game.pk, users=players, seed="fixed-seed")


def links(message) -> list[str]:
    return re.findall(r"[a-z]+://[^\s]+", message.body)


def test_without_site_url_emails_link_the_origin_pages_are_served_on(
        settings, client, players, gm, django_capture_on_commit_callbacks):
    settings.SITE_URL_FROM_ENV = ""
    settings.ALLOWED_HOSTS = ["127.0.0.1", "testserver"]
    assert client.get("/", HTTP_HOST="127.0.0.1:8005").status_code == 200
    start(players, gm, django_capture_on_commit_callbacks)
    assert mail.outbox
    for message in mail.outbox:
        assert links(message) and all(u.startswith("http://127.0.0.1:8005/")
                                      for u in links(message)), message.body
        assert "127.0.0.1:8000" not in message.body


def test_site_url_from_the_environment_wins(settings, client, players, gm,
                                             django_capture_on_commit_callbacks):
    settings.SITE_URL_FROM_ENV = "https://games.example.org"
    client.get("/", HTTP_HOST="testserver")
    start(players, gm, django_capture_on_commit_callbacks)
    assert mail.outbox
    for message in mail.outbox:
        assert all(u.startswith("https://games.example.org/") for u in links(message))


def test_before_any_request_the_settings_fallback_is_used(settings):
    settings.SITE_URL_FROM_ENV = ""
    assert site.site_url() == settings.SITE_URL
    assert settings.SITE_URL.startswith("http://") and ":8000" not in settings.SITE_URL


def test_production_falls_back_to_https_on_the_first_allowed_host():
    from tests.proof.test_settings import run_manage

    result = run_manage("shell", "-c", "from django.conf import settings; print(settings.SITE_URL)",
                        DJANGO_ENV="production", ALLOWED_HOSTS="games.example.org,*",
                        SECRET_KEY="k" * 20 + "Xy7!q" + "z9-p" * 10)
    assert result.stdout.strip().splitlines()[-1] == "https://games.example.org", result.stderr


def test_a_disallowed_host_is_not_remembered(settings, client):
    settings.SITE_URL_FROM_ENV = ""
    settings.ALLOWED_HOSTS = ["127.0.0.1"]
    client.get("/", HTTP_HOST="evil.example")
    assert caches[site.CACHE].get(site.CACHE_KEY) is None
