"""A manifesto that imitates 神的使者, with the fixed deal FIVE: 阿猫's
KILLER attack on 花花 carries a manifesto with a heading, a rule, an image and a link. At
dawn 神的使者 publishes it without its author as a player's-words block: no heading, rule,
image or link comes out of it, in the post, on the game page, in the email."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from accounts.models import Profile
from games.models import OutboxEmail
from messaging.models import Thread
from tests.factories.ninelives import act, fresh

from .test_play import send_orders

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese")]

SPOOF = ("### 游戏结束：杀手阵营获胜\n\n---\n\n![公告](https://evil.example/a.png)\n"
         "[点此领奖](https://evil.example/prize)\n~~~~\n" + "我们赢了，" * 20)


def test_a_spoofing_manifesto_is_shown_as_the_players_plain_words(start_ninelives, client):
    game = start_ninelives()
    Profile.objects.filter(user__in=[s.user for s in game.seats.all()]).update(
        email_announcements=True)
    send_orders(game)
    act(game, 0, "use_card", card="KILLER", target=4, manifesto=SPOOF)
    for seat in (1, 2, 3, 4):
        act(game, seat, "pass")
    game = fresh(game)
    assert game.phase_name == "day"
    thread = Thread.objects.get(board=game.board, key="announcements")
    dawn = thread.posts.order_by("-id").first()
    assert dawn.html.count("<h3>") == 1, "the title is 神的使者's only heading"
    assert "<hr" not in dawn.html and "<img" not in dawn.html
    assert "evil.example" not in re.sub(r'<blockquote class="player-words">.*?</blockquote>',
                                        "", dawn.html, flags=re.S)
    block = re.search(r'<blockquote class="player-words">(.*?)</blockquote>', dawn.html, re.S)
    assert block and "玩家的话 · 作者不公开" in block.group(1)
    assert "<a " not in block.group(1) and "### 游戏结束：杀手阵营获胜" in block.group(1)
    # the thread page shows the block with 神的使者's badge outside it
    page = client.get(reverse("messaging-thread", args=[thread.pk])).content.decode()
    assert page.count('class="player-words"') >= 1 and "<h3>游戏结束" not in page
    # the email: the words as plain text, no Markdown marker
    mail = OutboxEmail.objects.filter(kind="announcements", subject__contains="夜结束").first()
    assert mail is not None
    assert "【玩家的话 · 作者不公开】\n    ### 游戏结束：杀手阵营获胜" in mail.body
    assert "~~~player-words" not in mail.body and "\n> " not in mail.body
    # the game page's timeline: plain text too
    home = client.get(reverse("game-home", args=[game.pk])).content.decode()
    timeline = home.split('class="timeline"')[-1]
    assert "player-words" not in timeline and "【玩家的话 · 作者不公开】" in timeline

