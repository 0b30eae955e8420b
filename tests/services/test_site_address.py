"""Links in emails use the address the site is served on, never a
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


PRODUCTION = {"DJANGO_ENV": "production", "ALLOWED_HOSTS": "games.example.org",
              "SECRET_KEY": "k" * 20 + "Xy7!q" + "z9-p" * 10}


def test_production_refuses_to_start_without_site_url():
    """Production has no fallback: a guess from ALLOWED_HOSTS could name the wrong one of
    several names, and behind a proxy the public address is known nowhere else."""
    result = run_manage("check", SITE_URL="", **PRODUCTION)
    assert result.returncode != 0
    assert "SITE_URL is required when DJANGO_ENV=production" in result.stderr


@pytest.mark.parametrize("value", ["games.example.org", "ftp://games.example.org", "https://"])
def test_a_site_url_that_is_not_an_address_stops_the_process(value):
    result = run_manage("check", SITE_URL=value)
    assert result.returncode != 0
    assert "must be an address such as https://games.example.org" in result.stderr


def test_production_with_site_url_uses_it():
    result = run_manage("shell", "-c", PRINT_SITE_URL, SITE_URL="https://games.example.org/",
                        **PRODUCTION)
    assert result.stdout.strip().splitlines()[-1] == "https://games.example.org", result.stderr


# --- the Host header, whatever it says, never reaches an email ------------------------------

SITE = "https://games.example.org"
# The probe's header (a name ALLOWED_HOSTS lets through, since it ignores ports) and the
# site's own name with another port: both pass host validation, both must stay out.
FORGED_HOSTS = ["localhost:6666", "games.example.org:6666"]


def pages(game) -> list[str]:
    """A sample of pages of each kind: the probes, the front door, a game's pages, sign-in
    and the profile (redirects for the anonymous visitor)."""
    from django.urls import reverse

    return ["/healthz", "/readyz", "/", "/games/", game.get_absolute_url(),
            reverse("game-act", args=[game.pk]), reverse("account_login"),
            reverse("account_signup"), reverse("profile")]


def links_and_texts(message) -> tuple[list[str], str]:
    """Every link of an email (plain text and HTML) and all of its text, headers included."""
    texts = [message.body] + [content for content, _mime in getattr(message, "alternatives", [])]
    texts += [str(v) for v in message.extra_headers.values()]
    whole = "\n".join(texts)
    return re.findall(r"[a-z][a-z0-9+.-]*://[^\s\"'<>]+", whole), whole


@pytest.mark.parametrize("host", FORGED_HOSTS)
def test_a_forged_host_header_never_reaches_an_email_link(host, settings, client, players, gm,
                                                          django_capture_on_commit_callbacks):
    """Requests naming `host` (in Host and X-Forwarded-Host) to the probes and a sample of
    pages, anonymous and signed in, and the account emails such a request itself causes
    (a password reset, a sign-up's verification); then a game's emails (private results,
    announcements, reminders), all through the real mail path (outbox rows, the sender,
    the mail backend). Every link of every email is SITE_URL's, and the forged host is in
    none of them."""
    import datetime as dt

    from django.test import Client
    from django.urls import reverse

    from games import mail as outbox
    from games import reminders
    from games.models import OutboxEmail

    settings.SITE_URL = SITE
    settings.ALLOWED_HOSTS = ["games.example.org", "localhost", "testserver"]
    Profile.objects.filter(user__in=players).update(
        email_announcements=True, email_results=True, reminder_hours="1")
    game = services.create_game(name="地址局", ruleset="toy", gm=gm, seat_count=5,
                                durations={"night": 60, "day": 60})
    forged = {"HTTP_HOST": host, "HTTP_X_FORWARDED_HOST": host}
    signed_in = Client()
    signed_in.force_login(players[0])
    for visitor in (client, signed_in):
        for path in pages(game):
            assert visitor.get(path, **forged).status_code in (200, 302, 404, 503), path
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("account_reset_password"), {"email": players[1].email}, **forged)
        client.post(reverse("account_signup"), {
            "email": "newcomer@example.org", "password1": "a-Long-pass-42!",
            "password2": "a-Long-pass-42!", "display_name": "新来的"}, **forged)
        game = services.start_game(game_id=game.pk, users=players, seed="fixed-seed")
        for visitor in (client, signed_in):
            for path in pages(game):
                visitor.get(path, **forged)
        # A 60-minute phase is reminded a quarter of it before its deadline (games.reminders).
        assert reminders.send_due_reminders(now=game.deadline - dt.timedelta(minutes=10)) > 0
    mail.outbox.clear()  # the sign-up's and the start's, sent as each committed: again below
    OutboxEmail.objects.update(sent_at=None)
    outbox.send_due(now=game.deadline + dt.timedelta(hours=1))
    kinds = set(OutboxEmail.objects.exclude(sent_at=None).values_list("kind", flat=True))
    assert {"account", "results", "announcements", "reminders"} <= kinds, kinds
    subjects = " ".join(m.subject for m in mail.outbox)
    assert "密码" in subjects or "assword" in subjects, subjects  # the reset email is there
    bare = host.split(":")[0]
    for message in mail.outbox:
        found, whole = links_and_texts(message)
        assert found, message.subject
        for link in found:
            assert link == SITE or link.startswith(SITE + "/"), (message.subject, link)
        assert host not in whole and ":6666" not in whole, message.subject
        if bare != "games.example.org":
            assert bare not in whole, message.subject
