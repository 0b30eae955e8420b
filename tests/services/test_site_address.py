"""Links in emails use the address the site is served on (issue 14 item 8), never a
hard-coded 127.0.0.1:8000, and it comes from configuration only, never from a request
(config/site.py): settings.SITE_URL, which is SITE_URL from the environment (`make run` sets
http://HOST:PORT) or settings' fallback, the first ALLOWED_HOSTS name."""

from __future__ import annotations

import re

import pytest
from django.core import mail

from accounts.models import Profile
from config import site
from games import services

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "eager_email")]

PRINT_SITE_URL = "from config.site import site_url; print(site_url())"


def run_manage(*args, **env):
    from tests.proof.test_settings import run_manage

    return run_manage(*args, **env)


def start(players, gm, capture):
    Profile.objects.filter(user__in=players).update(email_announcements=True)
    game = services.create_game(name="地址局", ruleset="toy", gm=gm, seat_count=5,
                                durations={"night": 60, "day": 60})
    with capture(execute=True):
        return services.start_game(game_id=game.pk, users=players, seed="fixed-seed")


def links(message) -> list[str]:
    return re.findall(r"[a-z]+://[^\s]+", message.body)


def test_emails_link_the_configured_address_whatever_host_requests_name(
        settings, client, players, gm, django_capture_on_commit_callbacks):
    settings.SITE_URL = "http://127.0.0.1:8005"
    settings.ALLOWED_HOSTS = ["127.0.0.1", "testserver", "other.example"]
    assert client.get("/", HTTP_HOST="other.example").status_code == 200
    start(players, gm, django_capture_on_commit_callbacks)
    assert mail.outbox
    for message in mail.outbox:
        assert links(message) and all(u.startswith("http://127.0.0.1:8005/")
                                      for u in links(message)), message.body
        assert "other.example" not in message.body and "127.0.0.1:8000" not in message.body


def test_site_url_is_settings_site_url_and_no_request_changes_it(settings, client):
    settings.SITE_URL = "https://games.example.org"
    settings.ALLOWED_HOSTS = ["games.example.org", "evil.example"]
    client.get("/", HTTP_HOST="evil.example")
    assert site.site_url() == "https://games.example.org"


def test_no_middleware_reads_the_site_address_from_requests(settings):
    assert "config.site.SiteAddressMiddleware" not in settings.MIDDLEWARE
    assert not hasattr(site, "SiteAddressMiddleware")


def test_site_url_from_the_environment_is_used_as_set():
    """`make run` sets SITE_URL=http://HOST:PORT (config/devstack.py); an operator sets the
    public address. A trailing slash is dropped."""
    result = run_manage("shell", "-c", PRINT_SITE_URL, SITE_URL="http://127.0.0.1:8005/")
    assert result.stdout.strip().splitlines()[-1] == "http://127.0.0.1:8005", result.stderr


def test_without_site_url_development_falls_back_to_the_first_allowed_host():
    result = run_manage("shell", "-c", PRINT_SITE_URL, SITE_URL="",
                        ALLOWED_HOSTS="games.local,127.0.0.1")
    assert result.stdout.strip().splitlines()[-1] == "http://games.local", result.stderr


def test_production_falls_back_to_https_on_the_first_allowed_host():
    result = run_manage("shell", "-c", PRINT_SITE_URL, SITE_URL="",
                        DJANGO_ENV="production", ALLOWED_HOSTS="games.example.org,*",
                        SECRET_KEY="k" * 20 + "Xy7!q" + "z9-p" * 10)
    assert result.stdout.strip().splitlines()[-1] == "https://games.example.org", result.stderr
