"""Short walks, each built through the services up to its decisive step, then read or
clicked in Chromium at phone width:

- a dead Classic player opens a thread of the game's board: no reply box, the refusal in
  Chinese; a reply sent anyway from the page is refused and stored nowhere;
- Classic 2.0, the police check the poison: a bandit watching the game's page and the games
  list reads the night going on ("第1夜"), never the extra check.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from messaging import services as forum
from messaging.models import Post
from tests.factories.classic import new_game, night_one, user_at
from tests.services.classic.test_extra_check_secret import BANDITS, ROLES, check_the_poison

from .clicking import PHONE, arrive, visible_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = ["阿猫", "阿狗", "小白", "老黑", "花花", "大黄", "小红", "阿青", "木木", "豆豆", "球球"]
VICTIM, LIVING = 2, 3


def test_a_dead_classic_player_finds_no_reply_box_on_the_board(
    page_for, live_server, make_user, gm, shots
):
    game = new_game([make_user(n) for n in NAMES], gm)
    thread = forum.start_thread(
        board=game.board,
        author=user_at(game, LIVING),
        kind="discussion",
        title="讨论：谁是警察",
        body="大家说说看。",
    )
    night_one(game, victim=VICTIM)
    page = page_for(user_at(game, VICTIM))
    page.set_viewport_size(PHONE)
    arrive(page, live_server, reverse("messaging-thread", args=[thread.pk]))
    text = visible_text(page, "main")
    assert "你已出局：游戏结束前，出局的玩家不能在本局版面发帖或回复。" in text
    assert page.locator("textarea[name=body]").count() == 0
    shots(page, "classic-dead-player-thread")
    # A reply sent anyway (the form of a page opened before the death) is refused.
    posts = Post.objects.count()
    response = page.request.post(
        live_server.url + reverse("messaging-reply", args=[thread.pk]),
        form={
            "body": "我是死者，警察是4号。",
            "csrfmiddlewaretoken": page.context.cookies()[0]["value"],
        },
        headers={"Referer": page.url},
    )
    assert response.status != 500
    assert Post.objects.count() == posts


def test_a_bandit_watching_sees_the_night_go_on_while_the_police_check_again(
    page_for, live_server, make_user, gm, shots
):
    from games import services

    players = [make_user(n) for n in NAMES]
    game = services.create_game(
        name="毒药局",
        ruleset="classic",
        gm=gm,
        seat_count=11,
        config={"fixed_roles": ROLES, "variant_ghost_poison": True},
        durations={
            "night": 600,
            "extra_check": 60,
            "last_words": 60,
            "speech": 30,
            "tie_speech": 30,
            "vote": 15,
            "tie_vote": 15,
        },
    )
    game = services.start_game(game_id=game.pk, users=players, seed="poison-walk")
    game = check_the_poison(game)
    page = page_for(user_at(game, BANDITS[0]))
    page.set_viewport_size(PHONE)
    arrive(page, live_server, reverse("game-home", args=[game.pk]))
    text = visible_text(page, "main")
    assert "第1夜" in text and "追加验人" not in text
    shots(page, "classic-extra-check-bandit-view")
    arrive(page, live_server, reverse("game-list"))
    listing = visible_text(page, "main")
    assert "毒药局" in listing and "追加验人" not in listing
