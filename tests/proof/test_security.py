"""Security settings: the content security policy, no inline script, secure
cookies in production, and the rate limits on signing in, signing up and posting.

Rate limits already tested elsewhere (not repeated here):
- posting a reply: tests/messaging/test_forum_views.py::test_rate_limited_reply_gets_429_with_a_message
  and tests/messaging/test_posting_rules.py::test_rate_limit_*;
- messages to 神的使者: tests/messaging/test_conversations.py::test_message_rate_limit;
- the admin's own login goes through allauth's (rate-limited) sign-in:
  tests/accounts/test_signup_and_profile.py::test_admin_login_goes_through_the_rate_limited_sign_in.
`check --deploy` is clean: tests/proof/test_settings.py::test_production_settings_pass_check_deploy_without_warnings.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

ROOT = Path(settings.BASE_DIR)
EXECUTABLE_TYPES = {"", "text/javascript", "application/javascript", "module"}


class ScriptFinder(HTMLParser):
    """Collects what a content security policy without 'unsafe-inline' would block:
    `<script>` elements with code in them (no src; JSON data blocks are not code), `on*=`
    event-handler attributes and `javascript:` URLs."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.inline: list[str] = []
        self._in_script: dict | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name, value in attrs.items():
            if name.startswith("on"):
                self.inline.append(f"<{tag} {name}=...>")
            if name in ("href", "src", "action", "formaction") and (value or "").strip() \
                    .lower().startswith("javascript:"):
                self.inline.append(f"<{tag} {name}={value}>")
        if tag == "script":
            self._in_script = attrs

    def handle_data(self, data):
        if self._in_script is not None and data.strip() and "src" not in self._in_script \
                and (self._in_script.get("type") or "").lower() in EXECUTABLE_TYPES:
            self.inline.append(f"<script>{data.strip()[:60]}")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = None


def inline_scripts(html: str) -> list[str]:
    finder = ScriptFinder()
    finder.feed(html)
    return finder.inline


def test_the_script_finder_finds_what_the_policy_would_block():
    """The helper below can fail: it spots each kind of inline script, not the allowed ones."""
    assert inline_scripts("<script>alert(1)</script>") == ["<script>alert(1)"]
    assert inline_scripts('<a href="#" onclick="x()">') == ["<a onclick=...>"]
    assert inline_scripts('<a href="javascript:x()">') == ["<a href=javascript:x()>"]
    assert inline_scripts('<script src="/static/js/site.js" defer></script>'
                          '<script type="application/json">{"a": 1}</script>') == []


# --- the content security policy ------------------------------------------------------------

def directives(header: str) -> dict[str, list[str]]:
    out = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/", "/accounts/login/", "/no-such-page/", "/healthz",
                                 "/static/js/site.js"])
def test_every_response_carries_a_policy_without_inline_script(client, url):
    response = client.get(url)
    policy = directives(response["Content-Security-Policy"])
    assert policy["script-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert "'unsafe-inline'" not in policy.get("default-src", [])
    assert "'unsafe-eval'" not in " ".join(sum(policy.values(), []))


def test_no_template_contains_an_inline_script():
    """Every template of the project, as written: scripts only by src, no handlers."""
    offenders = {}
    for path in sorted((ROOT / "templates").rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        # Template tags and variables are not markup; blank them so the parser sees HTML.
        found = inline_scripts(re.sub(r"\{[%{#].*?[%}#]\}", "", text, flags=re.S))
        if found:
            offenders[str(path.relative_to(ROOT))] = found
    assert not offenders


@pytest.fixture
def gold_game(make_user):
    """A running 谁偷了我的金币 game (its panel has its own <style>; no script)."""
    from games import services

    gm = make_user("天神乙", staff=True)
    players = [make_user(name) for name in ("金子", "银子", "铜子")]
    game = services.create_game(name="金币局", ruleset="gold", gm=gm, seat_count=3,
                                config={"lead": 0})
    return services.start_game(game_id=game.pk, users=players, seed="security"), gm, players


@pytest.mark.django_db
def test_no_rendered_page_has_an_inline_script(gold_game, client):
    """The pages as rendered for a player, the GM (admin and console included) and a
    visitor: each passes the policy (no inline code), and each carries it."""
    from messaging.models import Thread

    game, gm, players = gold_game
    thread = Thread.objects.get(board=game.board, key="announcements")
    public = ["/", reverse("game-list"), reverse("game-home", args=[game.pk]),
              game.board.get_absolute_url(), thread.get_absolute_url()]
    anonymous = [reverse("account_login"), reverse("account_signup"),
                 reverse("account_reset_password")]
    mine = [reverse("game-act", args=[game.pk]), reverse("profile"),
            # (/messenger/ itself redirects a player in a game to the game's conversation)
            reverse("messaging-conversation-list"), reverse("messaging-conversation-general"),
            players[0].seats.get().conversation.get_absolute_url(),
            reverse("messaging-thread-new", args=[game.board.slug])]
    admin = ["/admin/", "/admin/games/game/", f"/admin/games/game/{game.pk}/change/",
             f"/admin/games/game/{game.pk}/console/", "/admin/games/game/add/",
             "/admin/messaging/conversation/"]
    checked = 0
    for user, urls in ((None, public + anonymous), (players[0], public + mine), (gm, admin)):
        client.logout()
        if user is not None:
            client.force_login(user)
        for url in urls:
            response = client.get(url)
            assert response.status_code == 200, (url, response.status_code)
            assert "Content-Security-Policy" in response
            assert inline_scripts(response.content.decode()) == [], url
            checked += 1
    assert checked == 2 * len(public) + len(anonymous) + len(mine) + len(admin)


# --- cookies --------------------------------------------------------------------------------

PRODUCTION_COOKIES = """
from django.conf import settings
from django.http import HttpResponse
from django.middleware.csrf import CsrfViewMiddleware, get_token
from django.test import RequestFactory

print("session", settings.SESSION_COOKIE_SECURE, settings.SESSION_COOKIE_HTTPONLY)
print("csrf", settings.CSRF_COOKIE_SECURE)
def view(request):
    get_token(request)
    return HttpResponse("ok")
request = RequestFactory().get("/", secure=True, HTTP_HOST="games.example.org")
response = CsrfViewMiddleware(view)(request)
print("set-cookie", response.cookies[settings.CSRF_COOKIE_NAME].output())
"""


def settings_subprocess(code: str, **env) -> str:
    full = {k: v for k, v in os.environ.items()
            if k not in ("DEBUG", "DJANGO_ENV", "SECRET_KEY", "ALLOWED_HOSTS",
                         "DJANGO_ALLOW_ASYNC_UNSAFE")}
    full.update(env, DJANGO_SETTINGS_MODULE="config.settings")
    script = "import django; django.setup()\n" + code
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=full,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout


PRODUCTION = {"DJANGO_ENV": "production", "ALLOWED_HOSTS": "games.example.org",
              "SITE_URL": "https://games.example.org",
              "SECRET_KEY": "k" * 20 + "Xy7!q" + "z9-p" * 10}


def test_session_and_csrf_cookies_are_secure_in_production():
    out = settings_subprocess(PRODUCTION_COOKIES, **PRODUCTION)
    assert "session True True" in out
    assert "csrf True" in out
    cookie = next(line for line in out.splitlines() if line.startswith("set-cookie"))
    assert "; Secure" in cookie and "SameSite=Lax" in cookie


def test_cookies_are_not_marked_secure_in_development():
    """The same check can fail: without DJANGO_ENV=production the cookies work over http."""
    out = settings_subprocess(PRODUCTION_COOKIES, DJANGO_ENV="development")
    assert "csrf False" in out
    assert "; Secure" not in out


def test_production_sends_hsts_and_redirects_to_https():
    out = settings_subprocess(
        "from django.conf import settings\n"
        "print(settings.SECURE_SSL_REDIRECT, settings.SECURE_HSTS_SECONDS >= 31536000,"
        " settings.SECURE_PROXY_SSL_HEADER)", **PRODUCTION)
    assert out.split() == ["True", "True", "('HTTP_X_FORWARDED_PROTO',", "'https')"]


# --- rate limits ----------------------------------------------------------------------------

@pytest.mark.django_db
def test_sign_up_is_rate_limited_per_address(client):
    """allauth allows 20 sign-ups a minute from one IP address; the 21st is refused with 429
    and creates no account."""
    from django.contrib.auth import get_user_model

    User = get_user_model()
    statuses = []
    for n in range(21):
        response = client.post(reverse("account_signup"), {
            "email": f"new{n}@example.com", "password1": "long-enough-pass-77",
            "password2": "long-enough-pass-77", "display_name": f"新人{n}"})
        statuses.append(response.status_code)
        client.logout()
    assert statuses[-1] == 429
    assert statuses[:20].count(429) == 0
    assert not User.objects.filter(email="new20@example.com").exists()
    assert User.objects.filter(email="new19@example.com").exists()


@pytest.mark.django_db
def test_after_failed_sign_ins_the_right_password_is_refused_too(client, make_user):
    """Five failed sign-ins for one address lock it for a while, even with the right
    password (allauth's login_failed limit, 5 per 5 minutes per address)."""
    from tests.conftest import PASSWORD

    make_user("阿狗", email="dog@example.com")
    for _ in range(5):
        client.post(reverse("account_login"), {"login": "dog@example.com", "password": "no"})
    response = client.post(reverse("account_login"), {"login": "dog@example.com",
                                                      "password": PASSWORD})
    assert "_auth_user_id" not in client.session
    assert response.status_code in (200, 429)  # allauth shows the refusal on the form

    fresh = Client()
    make_user("阿猫", email="cat@example.com")
    response = fresh.post(reverse("account_login"), {"login": "cat@example.com",
                                                     "password": PASSWORD})
    assert response.status_code == 302 and "_auth_user_id" in fresh.session


@pytest.mark.django_db
def test_sign_in_attempts_are_rate_limited_per_address(client):
    """Any sign-in attempt, failed or not, counts against allauth's login limit (30 a minute
    per IP); past it the answer is 429."""
    statuses = [client.post(reverse("account_login"), {
        "login": f"nobody{n}@example.com", "password": "x"}).status_code for n in range(31)]
    assert statuses[-1] == 429
    assert 429 not in statuses[:10]
