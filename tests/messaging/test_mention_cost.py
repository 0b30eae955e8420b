"""The cost of @mentions and of the preview (messaging/mentions.py, messaging/views.py):
19 KB of "@阿猫狗…" took seconds of CPU per preview, and the preview had no limit.

Work is measured, not timed: the number of display-name foldings (canonical_name calls)
and of queries does not grow with the number of "@" in a post beyond the first
MAX_MENTIONS runs; the preview shares the posting limiter, in a budget of its own, and
the one after it is a 429 with a Chinese sentence."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from messaging import mentions, services
from messaging.models import MAX_BODY_LENGTH, Notification
from messaging.views import preview_limit

pytestmark = pytest.mark.django_db

PREVIEW = reverse("messaging-preview")
# Per "@" run, the foldings of its prefixes (at most the tail's length) while looking the
# names up, and again while linking.
TAIL = mentions.MENTION_TAIL.pattern.rsplit(",", 1)[1].rstrip("}")
FOLDINGS_PER_RUN = 2 * int(TAIL)


def heavy_body(size: int = 19_000) -> str:
    """About `size` characters of mentions: names that exist, names that do not, names
    glued to text, reserved ones, and "@" runs of every length."""
    pieces = [
        "@阿猫狗阿猫狗",
        "@阿丽 ",
        "@阿博说得对",
        "@没有这个人",
        "@天神甲",
        "@@",
        "@a b c ",
        "@" + "猫" * 30,
    ]
    text, i = [], 0
    while sum(map(len, text)) < size:
        text.append(pieces[i % len(pieces)])
        i += 1
    return "".join(text)[:size]


@pytest.fixture
def counted(monkeypatch):
    """The number of canonical_name calls the mentions module makes."""
    calls = [0]
    real = mentions.canonical_name

    def counting(name):
        calls[0] += 1
        return real(name)

    monkeypatch.setattr(mentions, "canonical_name", counting)
    return calls


def test_the_body_is_as_large_as_the_probes():
    body = heavy_body()
    assert len(body.encode()) > 19_000 and len(body) <= MAX_BODY_LENGTH
    assert body.count("@") > 2000


def test_reading_mentions_is_bounded_by_the_first_runs(counted):
    body = heavy_body()
    keys = mentions.candidate_keys(body)
    assert counted[0] <= mentions.MAX_MENTIONS * FOLDINGS_PER_RUN // 2
    assert len(keys) <= mentions.MAX_MENTIONS * FOLDINGS_PER_RUN // 2
    # and the work does not grow with the text: ten times fewer "@" runs, the same bound
    counted[0] = 0
    mentions.candidate_keys(heavy_body(1_900))
    assert counted[0] <= mentions.MAX_MENTIONS * FOLDINGS_PER_RUN // 2


def test_a_mention_heavy_preview_is_bounded_work_and_queries(client, alice, bob, counted):
    client.force_login(alice)
    client.post(PREVIEW, {"body": "暖身"})  # the session and the user, read once
    counted[0] = 0
    with CaptureQueriesContext(connection) as queries:
        response = client.post(PREVIEW, {"body": heavy_body()})
    assert response.status_code == 200
    assert f'href="{reverse("profile-public", args=[bob.pk])}"' in response.content.decode()
    assert counted[0] <= mentions.MAX_MENTIONS * FOLDINGS_PER_RUN
    profile_lookups = [q for q in queries.captured_queries if '"display_key" IN' in q["sql"]]
    assert len(profile_lookups) == 1  # every candidate in one query
    assert len(queries.captured_queries) <= 8
    assert not Notification.objects.exists()  # a preview notifies no one


def test_a_mention_heavy_post_is_bounded_work_and_queries(
    discussion, alice, bob, counted, make_user
):
    body = heavy_body()
    with CaptureQueriesContext(connection) as heavy:
        post = services.reply(thread=discussion, author=alice, body=body, enforce_rate_limit=False)
    assert counted[0] <= mentions.MAX_MENTIONS * FOLDINGS_PER_RUN
    assert Notification.objects.filter(user=bob, post=post).count() == 1
    with CaptureQueriesContext(connection) as plain:
        services.reply(
            thread=discussion, author=alice, body="猫" * len(body), enforce_rate_limit=False
        )
    # the mentions cost their one lookup and the one notice, not a query per "@"
    assert len(heavy.captured_queries) <= len(plain.captured_queries) + 6


def test_at_most_max_mentions_people_are_linked_and_notified(discussion, alice, make_user):
    people = [make_user(f"路人{i:02d}") for i in range(mentions.MAX_MENTIONS + 5)]
    body = " ".join(f"@{p.profile.display_name}" for p in people)
    post = services.reply(thread=discussion, author=alice, body=body, enforce_rate_limit=False)
    notified = set(Notification.objects.filter(post=post).values_list("user", flat=True))
    assert notified == {p.pk for p in people[: mentions.MAX_MENTIONS]}
    html = post.html
    assert all(
        f'href="{reverse("profile-public", args=[p.pk])}"' in html
        for p in people[: mentions.MAX_MENTIONS]
    )
    assert not any(
        f'href="{reverse("profile-public", args=[p.pk])}"' in html
        for p in people[mentions.MAX_MENTIONS :]
    )


def test_email_addresses_do_not_use_up_the_mentions(discussion, alice, bob):
    body = " ".join(f"x{i}@example.com" for i in range(40)) + " @阿博 看看"
    services.reply(thread=discussion, author=alice, body=body, enforce_rate_limit=False)
    assert Notification.objects.filter(user=bob).count() == 1


def test_the_preview_after_the_budget_is_a_429_in_chinese(
    client, make_user, chinese, one_rate_window
):
    client.force_login(make_user("小明"))  # reads the site in Chinese
    limit = preview_limit()
    assert limit == 25  # 2.5 x POSTS_PER_MINUTE (10)
    codes = [client.post(PREVIEW, {"body": f"第{i}次"}).status_code for i in range(limit)]
    assert codes == [200] * limit
    response = client.post(PREVIEW, {"body": "再一次"})
    assert response.status_code == 429
    assert "每分钟最多预览 25 次" in response.content.decode()
    assert int(response["Retry-After"]) >= 1


def test_previews_do_not_use_up_the_posting_budget(client, alice, discussion, one_rate_window):
    client.force_login(alice)
    for i in range(preview_limit()):
        client.post(PREVIEW, {"body": f"第{i}次"})
    response = client.post(reverse("messaging-reply", args=[discussion.pk]), {"body": "发帖"})
    assert response.status_code == 302
    assert discussion.posts.filter(body="发帖").exists()
