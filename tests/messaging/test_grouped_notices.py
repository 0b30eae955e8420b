"""Grouped notices with an excerpt: alike notices (the same sentence) become one notice
while it is unread ("你的游戏有 12 条新公告"), with the latest post's excerpt; each notice
with a post shows a short excerpt of it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from messaging import services
from messaging.models import Notification, Thread
from messaging.notifications import Kind, mark_all_read, notify

pytestmark = pytest.mark.django_db


def _announce(board, gm, n):
    thread = services.start_thread(
        board=board,
        author=gm,
        kind=Thread.Kind.ANNOUNCEMENT,
        title=f"公告{n}",
        body=f"第{n}条公告：天亮了",
        enforce_rate_limit=False,
    )
    return thread.posts.get()


def test_twelve_announcements_in_a_row_are_one_notice(client, game_board, gm, alice):
    for n in range(1, 13):
        notify(user=alice, kind=Kind.ANNOUNCEMENT, post=_announce(game_board, gm, n), text="第一局")
    notice = Notification.objects.get(user=alice)
    assert notice.count == 12
    client.force_login(alice)
    page = client.get(reverse("messaging-notifications")).content.decode()
    assert "12 new announcements in your game: 第一局" in page
    assert "第12条公告：天亮了" in page and "第11条公告" not in page
    assert 'id="notification-count">1<' in page  # the bell counts the group once


def test_twelve_announcements_read_in_chinese(client, game_board, gm, make_user):
    reader = make_user("中文读者")
    for n in range(1, 13):
        notify(
            user=reader, kind=Kind.ANNOUNCEMENT, post=_announce(game_board, gm, n), text="第一局"
        )
    client.force_login(reader)
    page = client.get(reverse("messaging-notifications")).content.decode()
    assert "你的游戏有 12 条新公告" in page


def test_a_read_group_is_not_added_to(game_board, gm, alice):
    notify(user=alice, kind=Kind.ANNOUNCEMENT, post=_announce(game_board, gm, 1), text="局")
    mark_all_read(user=alice)
    notify(user=alice, kind=Kind.ANNOUNCEMENT, post=_announce(game_board, gm, 2), text="局")
    assert sorted(Notification.objects.filter(user=alice).values_list("count", flat=True)) == [1, 1]


def test_different_games_or_kinds_are_not_grouped(gm, alice):
    one = services.create_board(slug="game-a", title="甲局")
    two = services.create_board(slug="game-b", title="乙局")
    notify(user=alice, kind=Kind.ANNOUNCEMENT, post=_announce(one, gm, 1), text="甲局")
    notify(user=alice, kind=Kind.ANNOUNCEMENT, post=_announce(two, gm, 1), text="乙局")
    notify(user=alice, kind=Kind.VOTE_THREAD, post=_announce(one, gm, 2), text="甲局")
    assert Notification.objects.filter(user=alice).count() == 3


def test_replies_in_my_thread_are_grouped_and_quotes_are_not(discussion, alice, bob):
    first = discussion.posts.get()
    for n in range(3):
        services.reply(thread=discussion, author=bob, body=f"回复{n}", enforce_rate_limit=False)
    for n in range(2):
        services.reply(
            thread=discussion, author=bob, body=f"引用{n}", quote=first, enforce_rate_limit=False
        )
    kinds = sorted(Notification.objects.filter(user=alice).values_list("kind", "count"))
    assert kinds == [(Kind.QUOTE, 1), (Kind.QUOTE, 1), (Kind.REPLY, 3)]


def test_a_grouped_reply_notice_leads_to_the_first_unread_post(client, discussion, alice, bob):
    for n in range(2):
        services.reply(thread=discussion, author=bob, body=f"回复{n}", enforce_rate_limit=False)
    notice = Notification.objects.get(user=alice)
    assert notice.get_absolute_url() == reverse("messaging-thread-unread", args=[discussion.pk])


def test_every_notice_shows_an_excerpt_of_its_post(client, discussion, alice, bob):
    services.reply(
        thread=discussion,
        author=bob,
        body="**我认为** 三号 <是> 狼人" + "。" * 200,
        enforce_rate_limit=False,
    )
    client.force_login(alice)
    page = client.get(reverse("messaging-notifications")).content.decode()
    assert 'class="notice-excerpt">我认为 三号 &lt;是&gt; 狼人' in page
    assert "。" * 100 not in page  # cut short


def test_the_excerpt_follows_the_gms_edit(client, discussion, alice, bob, gm):
    post = services.reply(
        thread=discussion, author=bob, body="三号的身份是狙击手", enforce_rate_limit=False
    )
    services.edit_post(post=post, editor=gm, body="（已删除泄露的内容）")
    client.force_login(alice)
    page = client.get(reverse("messaging-notifications")).content.decode()
    assert "狙击手" not in page and "已删除泄露的内容" in page
