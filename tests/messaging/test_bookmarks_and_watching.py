"""Bookmarks (收藏) and watching or muting a thread (订阅 / 静音): a reader's own tools.
A post or thread the reader may not read is a 404 for each of them, and changes nothing."""

from __future__ import annotations

import pytest
from django.urls import reverse

from messaging import services
from messaging.models import Bookmark, Notification, Thread, ThreadWatch

pytestmark = pytest.mark.django_db


def _reply(thread, author, body="回复"):
    return services.reply(thread=thread, author=author, body=body, enforce_rate_limit=False)


def test_a_bookmarked_post_is_in_my_bookmarks(client, discussion, alice, bob):
    post = _reply(discussion, alice, "狼毒在三号手里")
    client.force_login(bob)
    page = client.get(reverse("messaging-post-bookmark", args=[post.pk]))
    assert page.status_code == 200 and "Save to my bookmarks" in page.content.decode()
    response = client.post(reverse("messaging-post-bookmark", args=[post.pk]), {"action": "add"})
    assert response.status_code == 302
    listing = client.get(reverse("messaging-bookmarks")).content.decode()
    assert f'id="bm{post.pk}"' in listing and "狼毒在三号手里" in listing
    # Twice is still one bookmark; removing takes it off the list.
    client.post(reverse("messaging-post-bookmark", args=[post.pk]), {"action": "add"})
    assert Bookmark.objects.filter(user=bob).count() == 1
    client.post(
        reverse("messaging-post-bookmark", args=[post.pk]), {"action": "remove", "next": "list"}
    )
    assert not Bookmark.objects.filter(user=bob).exists()


def test_every_post_offers_bookmark_and_report_links(client, discussion, alice):
    post = discussion.posts.get()
    html = client.get(discussion.get_absolute_url()).content.decode()
    assert reverse("messaging-post-bookmark", args=[post.pk]) in html
    assert reverse("messaging-post-report", args=[post.pk]) in html


def test_bookmarks_are_only_my_own(client, discussion, alice, bob):
    post = discussion.posts.get()
    Bookmark.objects.create(user=alice, post=post)
    client.force_login(bob)
    assert f'id="bm{post.pk}"' not in client.get(reverse("messaging-bookmarks")).content.decode()
    # Removing someone else's bookmark removes only one's own (none): hers stays.
    client.post(reverse("messaging-post-bookmark", args=[post.pk]), {"action": "remove"})
    assert Bookmark.objects.filter(user=alice).exists()


def test_a_post_i_may_not_read_cannot_be_bookmarked(client, lobby, gm, bob):
    hidden = services.start_thread(
        board=lobby, author=gm, kind=Thread.Kind.GM_ONLY, title="内部", body="三号是狼"
    )
    post = hidden.posts.get()
    client.force_login(bob)
    url = reverse("messaging-post-bookmark", args=[post.pk])
    assert client.get(url).status_code == 404
    assert client.post(url, {"action": "add"}).status_code == 404
    assert not Bookmark.objects.exists()


def test_a_bookmark_of_a_thread_moved_out_of_reach_leaves_the_list(
    client, lobby, gm_board, alice, bob
):
    thread = services.start_thread(
        board=lobby, author=alice, kind=Thread.Kind.DISCUSSION, title="要被移走", body="秘密的话"
    )
    post = thread.posts.get()
    Bookmark.objects.create(user=bob, post=post)
    services.move_thread(thread=thread, board=gm_board)
    client.force_login(bob)
    listing = client.get(reverse("messaging-bookmarks")).content.decode()
    assert "秘密的话" not in listing and "要被移走" not in listing


def test_watching_a_thread_gives_one_grouped_notice_for_three_replies(
    client, discussion, alice, bob, make_user
):
    carol = make_user("小卡")
    client.force_login(bob)
    response = client.post(
        reverse("messaging-thread-watch", args=[discussion.pk]), {"level": "watching"}
    )
    assert response.status_code == 302
    for text in ("一楼的回复", "二楼的回复", "三号是好人"):
        _reply(discussion, carol, text)
    notices = Notification.objects.filter(user=bob)
    assert notices.count() == 1
    notice = notices.get()
    assert (notice.kind, notice.count) == (Notification.Kind.WATCH, 3)
    page = client.get(reverse("messaging-notifications")).content.decode()
    assert "3 new posts in “大家好”" in page
    assert "三号是好人" in page  # the latest post's excerpt


def test_a_muted_thread_sends_no_reply_notice_nor_a_players_mention(
    client, discussion, alice, bob, gm
):
    client.force_login(alice)  # the thread's author
    client.post(reverse("messaging-thread-watch", args=[discussion.pk]), {"level": "muted"})
    _reply(discussion, bob, "一条回复")
    _reply(discussion, bob, f"@{alice.profile.display_name} 你看")
    assert not Notification.objects.filter(user=alice).exists()
    # The GM's word still reaches her (a staff user is the GM of the lobby).
    _reply(discussion, gm, f"@{alice.profile.display_name} 请在今晚前投票")
    assert list(Notification.objects.filter(user=alice).values_list("kind", flat=True)) == [
        Notification.Kind.MENTION
    ]


def test_back_to_normal_removes_the_choice(client, discussion, bob):
    client.force_login(bob)
    url = reverse("messaging-thread-watch", args=[discussion.pk])
    client.post(url, {"level": "watching"})
    assert ThreadWatch.objects.filter(user=bob).exists()
    client.post(url, {"level": ""})
    assert not ThreadWatch.objects.filter(user=bob).exists()


def test_a_bad_watch_level_is_a_readable_refusal(client, discussion, bob):
    client.force_login(bob)
    response = client.post(
        reverse("messaging-thread-watch", args=[discussion.pk]), {"level": "loud"}
    )
    assert (
        response.status_code == 400 and "Choose watch, normal or mute" in response.content.decode()
    )
    assert not ThreadWatch.objects.exists()


def test_a_thread_i_may_not_read_cannot_be_watched(client, lobby, gm, bob):
    hidden = services.start_thread(
        board=lobby, author=gm, kind=Thread.Kind.GM_ONLY, title="内部", body="x"
    )
    client.force_login(bob)
    url = reverse("messaging-thread-watch", args=[hidden.pk])
    assert client.get(url).status_code == 404
    assert client.post(url, {"level": "watching"}).status_code == 404
    assert not ThreadWatch.objects.exists()


def test_the_thread_page_links_to_its_watch_choice(client, discussion, bob):
    client.force_login(bob)
    html = client.get(discussion.get_absolute_url()).content.decode()
    assert reverse("messaging-thread-watch", args=[discussion.pk]) in html
