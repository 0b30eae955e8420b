"""What every page has: a favicon (also at /favicon.ico, which browsers
ask for whatever the page says), a meta description, flash messages announced politely
(role=status), and a language menu that changes the language only with its button."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_favicon_is_served_and_linked(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response["Content-Type"] == "image/x-icon"
    body = b"".join(response.streaming_content) if response.streaming else response.content
    assert body[:4] == b"\x00\x00\x01\x00" and b"PNG" in body[:40]
    html = client.get("/").content.decode()
    href = re.search(r'<link rel="icon" href="([^"]+)"', html).group(1)
    assert href.endswith("favicon.ico")
    assert client.post("/favicon.ico").status_code == 405


def test_every_page_has_a_description_and_a_language_button(client, chinese, make_user):
    client.force_login(make_user("阿猫"))
    for url in ("/", reverse("game-list"), reverse("rules-index"), reverse("profile")):
        html = client.get(url).content.decode()
        description = re.search(r'<meta name="description" content="([^"]+)"', html)
        assert description and "杀人游戏" in description.group(1), url
        lang = html[html.index('class="inline lang"'):]
        lang = lang[:lang.index("</form>")]
        assert "data-autosubmit" not in lang and 'type="submit"' in lang and "切换语言" in lang


def test_flash_messages_are_a_status(client, chinese, game):
    seat = game.seats.get(number=1)
    client.force_login(seat.user)
    response = client.post(reverse("game-act", args=[game.pk]),
                           {"free_text": "请问天神：今晚几点截止？"}, follow=True)
    html = response.content.decode()
    assert response.status_code == 200
    assert re.search(r'<ul class="messages" role="status"><li class="success">[^<]+</li>', html)


def test_the_language_menu_changes_a_signed_in_players_language(client, chinese, make_user):
    from accounts.models import Profile

    user = make_user("阿白")
    client.force_login(user)
    response = client.post(reverse("profile-language"), {"language": "en", "next": "/games/"})
    assert response.status_code == 302 and response["Location"] == "/games/"
    assert Profile.objects.get(user=user).language == "en"
    assert '<html lang="en">' in client.get("/games/").content.decode()
    client.post(reverse("profile-language"), {"language": "xx", "next": "/"})
    assert Profile.objects.get(user=user).language == "en"  # an unknown language changes nothing
    assert client.get(reverse("profile-language")).status_code == 302  # back, nothing changed
    assert Profile.objects.get(user=user).language == "en"
