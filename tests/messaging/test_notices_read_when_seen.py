"""A notice is read when its post was seen: opening a page of a thread reads the notices
about the posts on that page, and only those; the bell and the notification list agree.
On the code before, opening ?page=last read every notice of the thread (notices about
posts up to the page's last one)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from messaging import notifications
from messaging.models import Notification
from messaging.views import POSTS_PER_PAGE

pytestmark = pytest.mark.django_db

# 14 mentions spread over pages 1-6 of a 300-post thread (50 a page); page 6 holds 251-300.
MENTIONED = [3, 40, 60, 99, 120, 149, 151, 170, 200, 230, 260, 275, 290, 300]
PAGE = {n: (n - 1) // POSTS_PER_PAGE + 1 for n in MENTIONED}


@pytest.fixture
def thread(lobby, alice, bob, make_thread_with_posts):
    thread = make_thread_with_posts(lobby, bob, 300)
    for post in thread.posts.filter(number__in=MENTIONED):
        notifications.notify(
            user=alice, kind=Notification.Kind.MENTION, actor=bob, thread=thread, post=post
        )
    return thread


def _unread_numbers(user) -> set[int]:
    return set(
        Notification.objects.filter(user=user, read_at__isnull=True).values_list(
            "post__number", flat=True
        )
    )


def _bell(page: str) -> int:
    match = re.search(r'id="notification-count">(\d+)<', page)
    return int(match.group(1)) if match else 0


def _listed_unread(client) -> int:
    page = client.get(reverse("messaging-notifications")).content.decode()
    return len(re.findall(r'class="notice card[^"]*\bunread\b', page))


def test_opening_the_last_page_reads_only_that_pages_notices(client, thread, alice):
    client.force_login(alice)
    page = client.get(
        f"{thread.get_absolute_url()}?page=last",
        HTTP_SEC_FETCH_DEST="document",
        HTTP_SEC_FETCH_MODE="navigate",
    )
    assert page.status_code == 200
    on_last = {n for n in MENTIONED if PAGE[n] == 6}
    assert on_last == {260, 275, 290, 300}
    assert _unread_numbers(alice) == set(MENTIONED) - on_last
    # The bell of that very page and the list agree: ten unread.
    assert _bell(page.content.decode()) == 10
    assert _listed_unread(client) == 10
    assert _bell(client.get(reverse("lobby")).content.decode()) == 10


def test_each_page_read_reads_its_own_notices(client, thread, alice):
    client.force_login(alice)
    left = set(MENTIONED)
    for number in (3, 1, 5):
        page = client.get(
            f"{thread.get_absolute_url()}?page={number}",
            HTTP_SEC_FETCH_DEST="document",
            HTTP_SEC_FETCH_MODE="navigate",
        )
        left -= {n for n in MENTIONED if PAGE[n] == number}
        assert _unread_numbers(alice) == left
        assert _bell(page.content.decode()) == len(left) == _listed_unread(client)


def test_a_notice_followed_to_its_post_is_read(client, thread, alice):
    """The notice's link (the post's permalink) leads to the page holding the post."""
    client.force_login(alice)
    notice = Notification.objects.get(user=alice, post__number=120)
    response = client.get(
        notice.get_absolute_url(),
        follow=True,
        HTTP_SEC_FETCH_DEST="document",
        HTTP_SEC_FETCH_MODE="navigate",
    )
    assert response.status_code == 200
    assert 120 not in _unread_numbers(alice) and 149 not in _unread_numbers(alice)
    assert 99 in _unread_numbers(alice) and 151 in _unread_numbers(alice)
