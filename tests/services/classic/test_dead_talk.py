"""A dead Classic player on the game's board: seed 001 §3.14, after their last words the
dead leave the game, so the rule set's dead-talk policy is SILENT: no new thread and no
reply on the game's board, a readable refusal in Chinese, nothing stored. The last words
themselves are left through the action page in the last-words phase."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games import rulesets
from messaging import services as forum
from messaging.models import Post, Thread
from messaging.services import PostingRefused
from tests.factories.classic import act, fresh, night_one, pub, user_at

pytestmark = pytest.mark.django_db

VICTIM, LIVING = 2, 3
REFUSAL = "你已出局"


def test_classic_and_gold_declare_silent_dead():
    assert rulesets.get("classic").dead_talk == rulesets.SILENT
    assert rulesets.get("gold").dead_talk == rulesets.SILENT


def test_a_player_killed_at_night_writes_nothing_on_the_board_but_leaves_last_words(game, client):
    thread = forum.start_thread(
        board=game.board,
        author=user_at(game, LIVING),
        kind="discussion",
        title="讨论",
        body="活人说话",
    )
    night_one(game, victim=VICTIM)
    game = fresh(game)
    assert not game.seats.get(number=VICTIM).alive and pub(game)["phase"] == "last_words"
    dead = user_at(game, VICTIM)
    posts, threads = Post.objects.count(), Thread.objects.count()
    with pytest.raises(PostingRefused, match=REFUSAL):
        forum.reply(thread=thread, author=dead, body="我是死者，警察是4号。")
    with pytest.raises(PostingRefused, match=REFUSAL):
        forum.start_thread(
            board=game.board,
            author=dead,
            kind="analysis",
            title="遗言",
            body="我是死者，警察是4号。",
        )
    assert (Post.objects.count(), Thread.objects.count()) == (posts, threads)
    # The last words go through the action page, in their phase.
    act(game, VICTIM, "last_words", text="我是民，请大家加油。")
    assert pub(game)["phase"] == "speech"
    assert Post.objects.filter(body__contains="我是民，请大家加油。").exists()
    posts = Post.objects.count()
    # The thread page shows the refusal where the reply box would be; the form refuses too.
    client.force_login(dead)
    page = client.get(reverse("messaging-thread", args=[thread.pk])).content.decode()
    assert REFUSAL in page and 'name="body"' not in page
    response = client.post(
        reverse("messaging-reply", args=[thread.pk]), {"body": "我是死者，警察是4号。"}
    )
    assert response.status_code in (200, 400, 403)
    assert REFUSAL in response.content.decode()
    assert Post.objects.count() == posts
    # The living still post.
    forum.reply(thread=thread, author=user_at(game, LIVING), body="我还活着")
