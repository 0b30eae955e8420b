"""On-site notifications: the public API, the forum's own notices (replies, quotes,
messages from 神的使者), the bell, the page, and marking read."""

from __future__ import annotations

import pytest
from django.urls import reverse

from messaging import notifications, services
from messaging.models import Notification
from messaging.views import NOTIFICATIONS_PER_PAGE

pytestmark = pytest.mark.django_db
Kind = notifications.Kind
PAGE = {"HTTP_SEC_FETCH_MODE": "navigate", "HTTP_SEC_FETCH_DEST": "document"}


def _say(thread, author, body="同意", quote=None):
    return services.reply(thread=thread, author=author, body=body, quote=quote,
                          enforce_rate_limit=False)


def test_a_reply_in_my_thread_notifies_me(discussion, alice, bob):
    post = _say(discussion, bob)
    notice = Notification.objects.get(user=alice)
    assert (notice.kind, notice.actor, notice.post) == ("reply", bob, post)


def test_a_quote_of_my_post_notifies_me_once_as_a_quote(discussion, alice, bob, make_user):
    carol = make_user("阿卡")
    mine = _say(discussion, bob, "我是民")
    _say(discussion, carol, "不信", quote=mine)
    kinds = dict(Notification.objects.filter(post__author=carol).values_list("user", "kind"))
    assert kinds == {bob.pk: "quote", alice.pk: "reply"}


def test_quoting_and_mentioning_the_same_user_is_one_notice(discussion, alice, bob):
    mine = _say(discussion, bob, "我是民")
    _say(discussion, alice, "@阿博 你不是", quote=mine)
    assert list(Notification.objects.filter(user=bob).values_list("kind", flat=True)) == ["quote"]


def test_a_message_from_the_messenger_notifies_the_owner(alice, messenger):
    conversation = services.conversation_for(owner=alice)
    services.send_as_messenger(conversation=conversation, body="你的结果")
    notice = Notification.objects.get(user=alice)
    assert notice.kind == "messenger" and notice.conversation == conversation


def test_a_private_result_can_be_labelled_by_the_sender(alice, messenger):
    conversation = services.conversation_for(owner=alice)
    services.send_as_messenger(conversation=conversation, body="验人结果", notice=Kind.RESULT,
                               notice_text="第一局")
    notice = Notification.objects.get(user=alice)
    assert (notice.kind, notice.text) == ("result", "第一局")


def test_notify_for_games_kinds_and_its_refusals(discussion, alice, bob, messenger, gm, lobby):
    notice = notifications.notify(user=alice, kind=Kind.DEADLINE, text="第一局 · 今晚 21:00",
                                  url="/games/1/")
    assert notice.get_absolute_url() == "/games/1/"
    assert notifications.notify(user=alice, kind=Kind.REPLY, actor=alice) is None
    assert notifications.notify(user=messenger, kind=Kind.ANNOUNCEMENT) is None
    hidden = services.start_thread(board=lobby, author=gm, kind="gm_only", title="内部",
                                   body="x")
    assert notifications.notify(user=bob, kind=Kind.VOTE_THREAD, thread=hidden) is None
    with pytest.raises(ValueError):
        notifications.notify(user=alice, kind="nonsense")
    for url in ("javascript:alert(1)", "https://evil.example/", "//evil.example/"):
        with pytest.raises(ValueError):
            notifications.notify(user=alice, kind=Kind.DEADLINE, url=url)
    assert notifications.unread_count(alice) == 1


def test_the_bell_shows_the_count(client, discussion, alice, bob):
    _say(discussion, bob)
    _say(discussion, bob, "@阿丽 你看")  # replies in one thread are one notice; a mention is not
    client.force_login(alice)
    html = client.get(reverse("lobby")).content.decode()
    assert 'id="notification-count">2<' in html
    client.force_login(bob)
    assert 'id="notification-count"' not in client.get(reverse("lobby")).content.decode()


def test_the_page_lists_notices_in_the_readers_language(client, discussion, alice, bob):
    _say(discussion, bob)
    client.force_login(alice)
    html = client.get(reverse("messaging-notifications")).content.decode()
    assert "阿博 replied in your thread “大家好”" in html
    from accounts.models import Profile

    Profile.objects.filter(user=alice).update(language="zh-hans")
    html = client.get(reverse("messaging-notifications")).content.decode()
    assert "阿博 回复了你的帖子“大家好”" in html


def test_mark_one_read_only_for_its_owner(client, discussion, alice, bob):
    _say(discussion, bob)
    notice = Notification.objects.get(user=alice)
    client.force_login(bob)
    url = reverse("messaging-notification-read", args=[notice.pk])
    assert client.post(url).status_code == 404
    assert client.get(url).status_code == 405
    client.force_login(alice)
    assert client.post(url, {"page": "2"})["Location"].endswith("?page=2")
    notice.refresh_from_db()
    assert notice.read_at is not None


def test_mark_all_read(client, discussion, alice, bob, make_user):
    carol = make_user("阿卡")
    for _ in range(3):
        _say(discussion, bob)
    _say(discussion, alice, "@阿卡")
    client.force_login(alice)
    assert client.post(reverse("messaging-notifications-read-all")).status_code == 302
    assert notifications.unread_count(alice) == 0
    assert notifications.unread_count(carol) == 1


def test_reading_the_thread_as_a_page_reads_its_notices(client, discussion, alice, bob):
    _say(discussion, bob)
    client.force_login(alice)
    client.get(discussion.get_absolute_url(), HTTP_SEC_FETCH_DEST="image")
    assert notifications.unread_count(alice) == 1
    client.get(discussion.get_absolute_url(), **PAGE)
    assert notifications.unread_count(alice) == 0


def test_opening_the_conversation_reads_its_notices(client, alice, messenger):
    conversation = services.conversation_for(owner=alice)
    services.send_as_messenger(conversation=conversation, body="结果")
    client.force_login(alice)
    client.get(reverse("messaging-conversation-home"))
    assert notifications.unread_count(alice) == 0


def test_the_page_needs_a_signed_in_user(client):
    assert client.get(reverse("messaging-notifications")).status_code == 302
    assert client.post(reverse("messaging-notifications-read-all")).status_code == 302


@pytest.mark.parametrize("count", [3, NOTIFICATIONS_PER_PAGE + 10])
def test_notifications_page_query_budget_does_not_grow(
        client, discussion, alice, make_user, count, django_assert_num_queries):
    users = [make_user(f"玩家{i}") for i in range(3)]
    mine = discussion.posts.get()
    for i in range(count):  # quotes: each its own notice (replies would be one group)
        _say(discussion, users[i % 3], f"第{i}条", quote=mine)
    client.force_login(alice)
    client.get(reverse("messaging-notifications"))
    # session, user with profile, count, one page with actors/threads/posts, the header's
    # two badges (one query)
    with django_assert_num_queries(5):
        response = client.get(reverse("messaging-notifications"))
    assert response.content.decode().count('class="notice card') == min(count, 30)
