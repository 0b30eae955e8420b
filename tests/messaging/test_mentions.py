"""@mentions: by display name compared like display names (width- and case-insensitive),
rendered as links to the profile, notifying the mentioned user; unknown and reserved names
stay plain text and notify no one."""

from __future__ import annotations

import pytest
from django.urls import reverse

from messaging import services
from messaging.models import Notification

pytestmark = pytest.mark.django_db


def _say(thread, author, body):
    return services.reply(thread=thread, author=author, body=body, enforce_rate_limit=False)


def _profile(user) -> str:
    return reverse("profile-public", args=[user.pk])


def test_a_mention_links_to_the_profile_and_notifies(discussion, alice, bob):
    post = _say(discussion, alice, "@阿博你怎么看？")
    assert f'<a href="{_profile(bob)}" rel="nofollow noopener">@阿博</a>你怎么看' in post.html
    notice = Notification.objects.get(user=bob)
    assert notice.kind == "mention" and notice.post == post and notice.actor == alice


@pytest.mark.parametrize("written", ["@ＢＩＧ　Cat", "@big cat", "@BigCat", "@ｂｉｇｃａｔ"])
def test_mentions_compare_names_by_width_and_case(discussion, alice, make_user, written):
    cat = make_user("Big Cat")
    post = _say(discussion, alice, f"{written} 投票了吗")
    assert f'href="{_profile(cat)}"' in post.html
    assert Notification.objects.filter(user=cat, kind="mention").count() == 1


def test_the_longest_name_wins(discussion, alice, make_user):
    short = make_user("阿猫")
    long = make_user("阿猫猫")
    _say(discussion, alice, "@阿猫猫 说得对")
    assert list(Notification.objects.values_list("user", flat=True)) == [long.pk]
    assert not Notification.objects.filter(user=short).exists()


def test_an_unknown_name_stays_plain_text(discussion, alice):
    post = _say(discussion, alice, "@没有这个人 你好")
    assert "<a" not in post.html and "@没有这个人 你好" in post.html
    assert Notification.objects.count() == 0


@pytest.mark.parametrize("name", ["神的使者", "天神", "天神甲"])
def test_a_mention_of_a_reserved_name_notifies_no_one(discussion, alice, messenger, gm, name):
    post = _say(discussion, alice, f"@{name} 请看")
    assert "<a" not in post.html
    assert Notification.objects.count() == 0


def test_mentions_in_code_or_email_addresses_are_not_mentions(discussion, alice, bob, make_user):
    make_user("example")
    post = _say(discussion, alice, "`@阿博` and me@example.com\n\n    @阿博 in a code block")
    assert "<a" not in post.html.replace('<a href="mailto', "")
    assert Notification.objects.count() == 0


def test_one_notice_per_user_per_post_and_none_for_oneself(discussion, alice, bob):
    _say(discussion, alice, "@阿博 @阿博 @阿丽")
    assert list(Notification.objects.values_list("user", "kind")) == [(bob.pk, "mention")]


def test_a_mention_in_a_gm_only_thread_notifies_no_player(lobby, gm, bob):
    services.start_thread(board=lobby, author=gm, kind="gm_only", title="内部", body="@阿博 看这里")
    assert Notification.objects.count() == 0


def test_a_new_thread_mention_notifies_too(lobby, alice, bob):
    thread = services.start_thread(board=lobby, author=alice, kind="discussion", title="问",
                                   body="@阿博 来看")
    assert Notification.objects.get(user=bob).thread == thread


def test_a_mention_of_a_disabled_account_notifies_no_one(discussion, alice, bob):
    bob.is_active = False
    bob.save()
    _say(discussion, alice, "@阿博 在吗")
    assert Notification.objects.count() == 0


def test_the_space_after_a_name_stays_outside_the_link(discussion, alice, bob):
    post = _say(discussion, alice, "@阿博 你好")
    assert f'<a href="{_profile(bob)}" rel="nofollow noopener">@阿博</a> 你好' in post.html
