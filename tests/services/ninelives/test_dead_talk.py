"""A dead 猫有n条命 player on the game's board (seed 002 §7.2, the rule set's dead-talk policy
GHOST_POSTS): short replies are allowed, a new thread is moved to the GM board, and the
notices of a moved post are computed from where it ends up (the GM board notifies nobody
outside it)."""

from __future__ import annotations

import pytest

from games import rulesets, services
from messaging import services as forum
from messaging.models import Board, Notification, Thread
from messaging.services import PostingRefused
from tests.factories.ninelives import NAMES, fresh, user_of

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese")]

DEAD, LIVING, OTHER = 2, 3, 4


def with_a_dead_seat(start_ninelives, nl_gm):
    game = start_ninelives()
    services.gm_step(
        game_id=game.pk, gm=nl_gm, kind="foul_out", params={"seat": DEAD, "reason": "测试"}
    )
    game = fresh(game)
    assert not game.seats.get(number=DEAD).alive
    return game


def test_ninelives_declares_ghost_posts():
    assert rulesets.get("ninelives").dead_talk == rulesets.GHOST_POSTS


def test_a_dead_players_thread_mentioning_the_living_notifies_nobody(start_ninelives, nl_gm):
    game = with_a_dead_seat(start_ninelives, nl_gm)
    dead, living = user_of(game, DEAD), user_of(game, LIVING)
    thread = forum.start_thread(
        board=game.board,
        author=dead,
        kind="analysis",
        title="我是民，杀手是2号",
        body=f"@{NAMES[LIVING]} 你看看这个。",
    )
    thread = Thread.objects.select_related("board").get(pk=thread.pk)
    assert thread.board.kind == Board.Kind.GM
    assert not Notification.objects.filter(user=living, kind=Notification.Kind.MENTION).exists()
    assert not Notification.objects.filter(thread=thread).exclude(user=nl_gm).exists()


def test_moving_a_thread_to_the_gm_board_takes_back_the_notices_of_its_readers(
    start_ninelives, nl_gm
):
    game = start_ninelives()
    author, living = user_of(game, LIVING), user_of(game, OTHER)
    thread = forum.start_thread(
        board=game.board,
        author=author,
        kind="discussion",
        title="讨论",
        body=f"@{NAMES[OTHER]} 你怎么看？",
    )
    assert Notification.objects.filter(user=living, thread=thread).count() == 1
    forum.move_thread(thread=thread, board=services.gm_board(game))
    assert not Notification.objects.filter(user=living, thread=thread).exists()


def test_a_dead_player_may_reply_briefly_only(start_ninelives, nl_gm):
    game = with_a_dead_seat(start_ninelives, nl_gm)
    dead = user_of(game, DEAD)
    thread = forum.start_thread(
        board=game.board,
        author=user_of(game, LIVING),
        kind="discussion",
        title="讨论",
        body="活人说话",
    )
    forum.reply(thread=thread, author=dead, body="短评")
    with pytest.raises(PostingRefused, match="最多"):
        forum.reply(thread=thread, author=dead, body="长" * (game.ghost_reply_max_chars + 1))
    assert thread.posts.count() == 2
