"""只看该作者 (ISO): ?author=<user id> on a thread page shows only those users' posts."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from messaging import services
from messaging.models import Post
from messaging.views import POSTS_PER_PAGE

pytestmark = pytest.mark.django_db


def _numbers(response) -> list[int]:
    return [int(n) for n in re.findall(r'id="p(\d+)"', response.content.decode())]


@pytest.fixture
def argument(discussion, alice, bob, make_user):
    """Floors: 1 alice, 2 bob, 3 alice, 4 carol, 5 bob."""
    carol = make_user("阿卡")
    for author, body in [(bob, "我是民"), (alice, "我也是"), (carol, "都是民？"),
                         (bob, "投阿丽")]:
        services.reply(thread=discussion, author=author, body=body, enforce_rate_limit=False)
    return discussion, carol


def test_one_author_shows_only_their_posts_with_their_floor_numbers(client, argument, bob):
    thread, _carol = argument
    response = client.get(thread.get_absolute_url(), {"author": bob.pk})
    assert response.status_code == 200
    assert _numbers(response) == [2, 5]
    html = response.content.decode()
    assert "阿博" in html and 'id="iso-banner"' in html and "2 posts" in html


def test_the_parameter_repeats_for_several_authors(client, argument, alice, bob):
    thread, _carol = argument
    response = client.get(f"{thread.get_absolute_url()}?author={alice.pk}&author={bob.pk}")
    assert _numbers(response) == [1, 2, 3, 5]


def test_every_post_header_links_only_this_author(client, argument, alice, bob):
    thread, carol = argument
    html = client.get(thread.get_absolute_url()).content.decode()
    for user in (alice, bob, carol):
        assert f'href="{thread.get_absolute_url()}?author={user.pk}">Only this author' in html


def test_iso_pages_keep_the_author_filter(client, lobby, alice, bob, make_thread_with_posts):
    thread = make_thread_with_posts(lobby, alice, POSTS_PER_PAGE + 10)
    Post.objects.filter(thread=thread, number__gt=5).update(author=bob)
    first = client.get(thread.get_absolute_url(), {"author": bob.pk})
    assert _numbers(first) == list(range(6, 6 + POSTS_PER_PAGE))
    assert f"?author={bob.pk}&amp;page=2" in first.content.decode()
    second = client.get(thread.get_absolute_url(), {"author": bob.pk, "page": 2})
    assert _numbers(second) == list(range(6 + POSTS_PER_PAGE, POSTS_PER_PAGE + 11))


def test_an_author_who_does_not_exist_gets_an_empty_list_with_a_message(client, argument):
    thread, _carol = argument
    response = client.get(thread.get_absolute_url(), {"author": 999_999})
    assert response.status_code == 200
    assert _numbers(response) == []
    assert "No posts by this author in this thread." in response.content.decode()


def test_an_author_with_no_post_here_gets_an_empty_list_with_a_message(client, discussion, bob):
    response = client.get(discussion.get_absolute_url(), {"author": bob.pk})
    assert response.status_code == 200 and _numbers(response) == []
    assert "No posts by this author in this thread." in response.content.decode()


@pytest.mark.parametrize("value", ["²", "１", "٣", "-1", "1.0", "abc", "", " 1", "9" * 40,
                                   "1%00", "' OR 1=1 --"])
def test_an_unreadable_author_is_a_400_with_a_message(client, argument, value):
    thread, _carol = argument
    response = client.get(thread.get_absolute_url(), {"author": value})
    assert response.status_code == 400
    html = response.content.decode()
    assert "is not an author number" in html
    assert _numbers(response) == []


def test_too_many_authors_is_a_400(client, argument):
    thread, _carol = argument
    response = client.get(thread.get_absolute_url(), {"author": list(range(1, 30))})
    assert response.status_code == 400
    assert "at most 10 authors" in response.content.decode()


def test_a_non_ascii_digit_in_a_bound_quote_field_is_refused_not_a_500(client, argument, bob):
    thread, _carol = argument
    client.force_login(bob)
    response = client.post(reverse("messaging-reply", args=[thread.pk]),
                           {"body": "x", "quote": "²"})
    assert response.status_code == 400


def test_iso_on_a_gm_only_thread_is_still_a_404(client, lobby, gm, alice):
    thread = services.start_thread(board=lobby, author=gm, kind="gm_only", title="内部",
                                   body="x")
    client.force_login(alice)
    assert client.get(thread.get_absolute_url(), {"author": gm.pk}).status_code == 404


@pytest.mark.parametrize("posts", [5, 120])
def test_iso_page_query_budget_does_not_grow_with_posts(
        client, lobby, alice, bob, make_thread_with_posts, django_assert_num_queries, posts):
    thread = make_thread_with_posts(lobby, alice, posts, quote_every=3)
    Post.objects.filter(thread=thread, number__gt=2).update(author=bob)
    client.force_login(alice)
    client.get(thread.get_absolute_url())  # warm the session and the messenger account
    # session, user with profile, thread, the filter's authors' names, count, the thread's
    # authors' names and badges (their ids kept under the thread's version), one page of
    # posts, the header's unread count (the posting check of a game's board reads the game
    # the thread query joined)
    with django_assert_num_queries(ISO_QUERIES):
        response = client.get(thread.get_absolute_url(), {"author": bob.pk})
    assert response.status_code == 200


ISO_QUERIES = 9  # and whether the reader reads a running game's secrets (the reply box)
