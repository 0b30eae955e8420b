"""The post-game review reads right to every reader: its intro names what the rule set hid
(a classic review speaks of no loss order), and a seat's private events in the timeline say
whom 神的使者 told them to ("私下告知1号甲君：你的身份：警。"), so the second person is not
read as speaking to the reader."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.web.test_players_see_no_engine_data import (  # noqa: F401 - the module's games
    finished,
    games,
    text_of,
)

pytestmark = [pytest.mark.django_db]


def timeline_events(html: str) -> list[tuple[str, str]]:
    """(visibility, text) of each event of the review's timeline."""
    return [(vis, text_of(body)) for vis, body in re.findall(
        r'<li class="event"[^>]*data-visibility="(\w+)"[^>]*>(.*?)</li>', html, re.S)]


def test_a_classic_review_speaks_of_no_loss_order(finished, chinese, client):  # noqa: F811
    html = client.get(reverse("game-review", args=[finished("classic").pk])).content.decode()
    intro = text_of(re.search(r'<p id="review-intro">(.*?)</p>', html, re.S).group(1))
    assert intro.startswith("游戏中隐藏的一切都在这里公开：每个座位的身份")
    assert "丢牌顺序" not in intro
    html = client.get(reverse("game-review", args=[finished("ninelives").pk])).content.decode()
    assert "丢牌顺序" in re.search(r'<p id="review-intro">(.*?)</p>', html, re.S).group(1)


def test_a_private_role_in_the_classic_timeline_says_whom_it_was_told_to(
        finished, chinese, client):  # noqa: F811
    game = finished("classic")
    html = client.get(reverse("game-review", args=[game.pk])).content.decode()
    events = timeline_events(html)
    roles = [text for vis, text in events if "你的身份：" in text]
    assert len(roles) == game.seat_count, roles
    for text in roles:
        assert re.match(r"私下告知\d+号\S+： 你的身份：", text), text
    # a public event is not headed; a private one always is
    assert not any(text.startswith("私下告知") for vis, text in events if vis == "public")
    assert all(text.startswith("私下告知") for vis, text in events if vis == "seats")
