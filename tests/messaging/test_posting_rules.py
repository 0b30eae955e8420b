"""Posting rules per thread kind, enforced by the services whoever calls them."""

from __future__ import annotations

import pytest
from django.utils import translation

from messaging import rules, services
from messaging.models import MAX_BODY_LENGTH, MAX_TITLE_LENGTH, Post, Thread
from messaging.services import PostingRefused

pytestmark = pytest.mark.django_db
Kind = Thread.Kind
GM_STARTS = {Kind.ANNOUNCEMENT, Kind.VOTE, Kind.GM_ONLY}
GM_REPLIES = {Kind.ANNOUNCEMENT, Kind.GM_ONLY}


def _counts():
    return Thread.objects.count(), Post.objects.count()


@pytest.mark.parametrize("kind", list(Kind))
def test_player_may_start_only_the_kinds_open_to_players(kind, game_board, alice):
    if kind in GM_STARTS:
        before = _counts()
        with pytest.raises(PostingRefused) as refused:
            services.start_thread(board=game_board, author=alice, kind=kind, title="t",
                                  body="b")
        assert refused.value.code == "forbidden"
        assert _counts() == before
    else:
        thread = services.start_thread(board=game_board, author=alice, kind=kind, title="t",
                                       body="b")
        assert thread.kind == kind and thread.post_count == 1


@pytest.mark.parametrize("kind", list(Kind))
def test_gm_may_start_every_kind_on_a_game_board(kind, game_board, gm):
    thread = services.start_thread(board=game_board, author=gm, kind=kind, title="t", body="b")
    assert thread.posts.get().number == 1


@pytest.mark.parametrize("kind", list(Kind))
def test_player_may_reply_only_where_players_reply(kind, game_board, gm, alice):
    thread = services.start_thread(board=game_board, author=gm, kind=kind, title="t", body="b")
    if kind in GM_REPLIES:
        with pytest.raises(PostingRefused):
            services.reply(thread=thread, author=alice, body="me too")
        assert thread.posts.count() == 1
    else:
        post = services.reply(thread=thread, author=alice, body="me too")
        assert post.number == 2


def test_messenger_account_may_post_announcements(game_board, messenger):
    thread = services.start_thread(board=game_board, author=messenger,
                                   kind=Kind.ANNOUNCEMENT, title="天亮了", body="昨夜平安")
    assert thread.author == messenger


def test_votes_analyses_and_stories_do_not_belong_in_the_lobby(lobby, gm):
    for kind in (Kind.VOTE, Kind.ANALYSIS, Kind.STORY):
        with pytest.raises(PostingRefused):
            services.start_thread(board=lobby, author=gm, kind=kind, title="t", body="b")
    assert Thread.objects.count() == 0


def test_locked_thread_refuses_players_but_not_the_gm(discussion, bob, gm):
    services.set_thread_locked(thread=discussion, locked=True)
    with translation.override("en"), pytest.raises(PostingRefused) as refused:
        services.reply(thread=discussion, author=bob, body="迟到了")
    assert "locked" in str(refused.value.message)  # read in English, whatever language an earlier test left
    assert services.reply(thread=discussion, author=gm, body="本帖已锁").number == 2


def test_lock_is_rechecked_on_the_fresh_row(discussion, bob):
    stale = Thread.objects.get(pk=discussion.pk)  # read before the lock
    Thread.objects.filter(pk=discussion.pk).update(is_locked=True)
    with pytest.raises(PostingRefused):
        services.reply(thread=stale, author=bob, body="slipped in?")
    assert discussion.posts.count() == 1


def test_locked_board_refuses_new_threads_and_replies_from_players(lobby, discussion, bob):
    lobby.is_locked = True
    lobby.save()
    with pytest.raises(PostingRefused):
        services.start_thread(board=lobby, author=bob, kind=Kind.DISCUSSION, title="t", body="b")
    with pytest.raises(PostingRefused):
        services.reply(thread=discussion, author=bob, body="b")


def test_gm_board_is_invisible_and_closed_to_players(gm_board, gm, alice):
    thread = services.start_thread(board=gm_board, author=gm, kind=Kind.DISCUSSION,
                                   title="封存", body="x")
    assert not rules.can_read_board(alice, gm_board)
    assert not rules.can_read_thread(alice, thread)
    assert thread not in rules.readable_threads(alice)
    with pytest.raises(PostingRefused):
        services.reply(thread=thread, author=alice, body="let me in")
    with pytest.raises(PostingRefused):
        services.start_thread(board=gm_board, author=alice, kind=Kind.DISCUSSION,
                              title="t", body="b")


def test_gm_only_thread_is_hidden_from_players(lobby, gm, alice):
    thread = services.start_thread(board=lobby, author=gm, kind=Kind.GM_ONLY, title="内部",
                                   body="x")
    assert not rules.can_read_thread(alice, thread)
    assert rules.can_read_thread(gm, thread)
    assert list(rules.readable_threads(alice)) == []


def test_anonymous_and_disabled_users_may_not_post(discussion, alice):
    from django.contrib.auth.models import AnonymousUser

    with pytest.raises(PostingRefused):
        services.reply(thread=discussion, author=AnonymousUser(), body="hi")
    alice.is_active = False
    alice.save()
    with pytest.raises(PostingRefused):
        services.reply(thread=discussion, author=alice, body="hi")


@pytest.mark.parametrize("body", ["", "   ", "\n\n\t", None])
def test_empty_post_is_refused_and_nothing_stored(discussion, bob, body):
    with pytest.raises(PostingRefused) as refused:
        services.reply(thread=discussion, author=bob, body=body)
    assert refused.value.code == "invalid"
    assert discussion.posts.count() == 1


def test_overlong_post_is_refused_naming_the_limit(discussion, bob):
    with pytest.raises(PostingRefused) as refused:
        services.reply(thread=discussion, author=bob, body="字" * (MAX_BODY_LENGTH + 1))
    assert str(MAX_BODY_LENGTH) in str(refused.value.message)
    assert discussion.posts.count() == 1


def test_post_of_exactly_the_limit_is_accepted(discussion, bob):
    post = services.reply(thread=discussion, author=bob, body="字" * MAX_BODY_LENGTH)
    assert len(post.body) == MAX_BODY_LENGTH


def test_windows_line_endings_do_not_count_double(discussion, bob):
    body = "ab\r\n" * (MAX_BODY_LENGTH // 3)
    post = services.reply(thread=discussion, author=bob, body=body)
    assert "\r" not in post.body


@pytest.mark.parametrize("title", ["", "  \n ", "题" * (MAX_TITLE_LENGTH + 1)])
def test_empty_or_overlong_title_is_refused(lobby, alice, title):
    with pytest.raises(PostingRefused):
        services.start_thread(board=lobby, author=alice, kind=Kind.DISCUSSION, title=title,
                              body="b")
    assert _counts() == (0, 0)


def test_title_whitespace_is_collapsed(lobby, alice):
    thread = services.start_thread(board=lobby, author=alice, kind=Kind.DISCUSSION,
                                   title="  第一天 \n 分析  ", body="b")
    assert thread.title == "第一天 分析"


def test_posts_are_numbered_in_order_and_counters_follow(discussion, alice, bob):
    second = services.reply(thread=discussion, author=bob, body="2")
    third = services.reply(thread=discussion, author=alice, body="3")
    discussion.refresh_from_db()
    assert (second.number, third.number) == (2, 3)
    assert discussion.post_count == 3
    assert discussion.last_post == third
    discussion.board.refresh_from_db()
    assert discussion.board.last_post_at == third.created_at


def test_quote_must_come_from_the_same_thread(lobby, discussion, alice, bob):
    other = services.start_thread(board=lobby, author=bob, kind=Kind.DISCUSSION, title="别处",
                                  body="x")
    foreign = other.posts.get()
    with pytest.raises(PostingRefused):
        services.reply(thread=discussion, author=alice, body="q", quote=foreign)
    own = discussion.posts.get()
    assert services.reply(thread=discussion, author=bob, body="q", quote=own).quote == own


def test_rate_limit_refuses_the_post_beyond_the_limit(settings, discussion, bob):
    settings.POSTS_PER_MINUTE = 2
    services.reply(thread=discussion, author=bob, body="1")
    services.reply(thread=discussion, author=bob, body="2")
    with pytest.raises(PostingRefused) as refused:
        services.reply(thread=discussion, author=bob, body="3")
    assert refused.value.code == "rate_limited"
    assert "2" in str(refused.value.message)
    assert discussion.posts.count() == 3


def test_rate_limit_is_per_user_and_skips_the_gm(settings, discussion, bob, gm, make_user):
    settings.POSTS_PER_MINUTE = 1
    services.reply(thread=discussion, author=bob, body="bob")
    with pytest.raises(PostingRefused):
        services.reply(thread=discussion, author=bob, body="bob again")
    carol = make_user("小卡")
    services.reply(thread=discussion, author=carol, body="carol")  # her own budget
    for i in range(3):
        services.reply(thread=discussion, author=gm, body=f"gm {i}")
    assert discussion.posts.count() == 6


def test_refused_posts_do_not_use_up_the_rate_limit(settings, discussion, bob):
    settings.POSTS_PER_MINUTE = 1
    with pytest.raises(PostingRefused):
        services.reply(thread=discussion, author=bob, body="")
    assert services.reply(thread=discussion, author=bob, body="real").number == 2


def test_registered_check_can_refuse_a_post(discussion, bob, alice):
    def only_alice(*, user, board, thread, kind, body):
        return None if user == alice else "Only seated players post here."

    rules.register_posting_check(only_alice)
    try:
        with pytest.raises(PostingRefused) as refused:
            services.reply(thread=discussion, author=bob, body="hi")
        assert refused.value.message == "Only seated players post here."
        assert services.reply(thread=discussion, author=alice, body="hi").number == 2
    finally:
        rules.unregister_posting_check(only_alice)


def test_thread_key_is_unique_per_board(game_board, gm):
    services.start_thread(board=game_board, author=gm, kind=Kind.VOTE, title="第1天投票",
                          body="投票", key="day-1-vote")
    with pytest.raises(PostingRefused):
        services.start_thread(board=game_board, author=gm, kind=Kind.VOTE, title="again",
                              body="投票", key="day-1-vote")


def test_moving_a_thread_keeps_its_posts(game_board, gm_board, alice):
    thread = services.start_thread(board=game_board, author=alice, kind=Kind.ANALYSIS,
                                   title="死者分析", body="长文")
    services.move_thread(thread=thread, board=gm_board)
    thread.refresh_from_db()
    assert thread.board == gm_board
    assert not rules.can_read_thread(alice, thread)
    assert thread.posts.count() == 1
