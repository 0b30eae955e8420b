"""Navigating a long thread: numbered pages with distinct labels, a jump to a page or to a
floor (楼), the 以下是新回复 divider and the 跳到第一条未读 link, the 只看这些作者 picker."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from accounts.models import Profile
from messaging.models import Post, ThreadReadState
from messaging.templatetags.messaging_tags import page_numbers
from messaging.views import POSTS_PER_PAGE
from tests.conftest import clear_cache

pytestmark = pytest.mark.django_db

PAGE = {"HTTP_SEC_FETCH_MODE": "navigate", "HTTP_SEC_FETCH_DEST": "document"}


@pytest.fixture
def long_thread(lobby, alice, bob, make_thread_with_posts):
    """321 posts (7 pages); bob wrote every third post from #3 on."""
    thread = make_thread_with_posts(lobby, alice, 321)
    Post.objects.filter(thread=thread, number__gte=3).extra(where=["number %% 3 = 0"]).update(
        author=bob
    )
    thread.refresh_from_db()
    clear_cache()
    return thread


def chinese(*users):
    Profile.objects.filter(user__in=users).update(language="zh-hans")


def test_page_numbers_show_the_ends_and_the_neighbourhood():
    assert page_numbers(1, 1) == [1]
    assert page_numbers(4, 7) == [1, 2, 3, 4, 5, 6, 7]
    assert page_numbers(8, 9) == [1, None, 6, 7, 8, 9]
    assert page_numbers(10, 20) == [1, None, 8, 9, 10, 11, 12, None, 20]
    assert page_numbers(1, 20) == [1, 2, 3, None, 20]
    assert page_numbers(4, 20) == [1, 2, 3, 4, 5, 6, None, 20]  # never "1 … 2"


def test_a_thread_page_has_numbered_pages_and_two_distinctly_labelled_navs(
    client, long_thread, bob
):
    chinese(bob)
    client.force_login(bob)
    html = client.get(long_thread.get_absolute_url(), {"page": 4}).content.decode()
    navs = re.findall(r'<nav class="pagination" aria-label="([^"]+)">(.*?)</nav>', html, re.S)
    assert [label for label, _body in navs] == ["分页（上）", "分页（下）"]
    for _label, body in navs:
        assert '<span class="page-number current" aria-current="page">4</span>' in body
        linked = re.findall(r'href="/t/\d+/\?page=(\d+)" class="page-number"', body)
        assert linked == ["1", "2", "3", "5", "6", "7"]
        assert "跳转到第" in body and 'name="page"' in body
        assert re.search(r"第 <input [^>]*name=\"floor\"[^>]*max=\"321\"[^>]*> 楼", body)
    # each box has its own id
    ids = re.findall(r'id="(jump-[a-z]+-\d)"', html)
    assert len(ids) == len(set(ids)) == 4


def test_jump_to_floor_137_lands_on_its_page_anchored(client, long_thread):
    response = client.get(long_thread.get_absolute_url(), {"floor": "137"})
    assert response.status_code == 302
    assert response["Location"] == f"{long_thread.get_absolute_url()}?page=3#p137"
    page = client.get(response["Location"]).content.decode()
    assert 'id="p137"' in page


def test_jump_to_a_floor_among_chosen_authors_counts_their_posts_only(client, long_thread, bob):
    # bob's posts are #3, #6, …: #150 is his 50th, #153 his 51st (page 2 of his posts).
    url = long_thread.get_absolute_url()
    response = client.get(url, {"floor": "153", "author": bob.pk})
    assert response["Location"] == f"{url}?author={bob.pk}&page=2#p153"
    response = client.get(url, {"floor": "150", "author": bob.pk})
    assert response["Location"] == f"{url}?author={bob.pk}&page=1#p150"


@pytest.mark.parametrize("floor", ["abc", "0", "-3", "322", "9" * 40, "１２"])
def test_a_floor_that_is_not_there_is_refused_in_chinese(client, long_thread, floor):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "zh-hans"
    response = client.get(long_thread.get_absolute_url(), {"floor": floor})
    assert response.status_code == 400
    assert "楼层" in response.content.decode()


def test_an_empty_floor_box_shows_the_page(client, long_thread):
    response = client.get(long_thread.get_absolute_url(), {"floor": "", "page": "2"})
    assert response.status_code == 200
    assert 'id="p51"' in response.content.decode()


def _mark(user, thread, number):
    ThreadReadState.objects.update_or_create(
        user=user, thread=thread, defaults={"last_read_number": number}
    )


def test_the_new_replies_divider_stands_before_the_first_unread_post(client, long_thread, bob):
    chinese(bob)
    _mark(bob, long_thread, 60)
    client.force_login(bob)
    html = client.get(long_thread.get_absolute_url(), {"page": 2}, **PAGE).content.decode()
    assert html.count('id="new"') == 1
    divider = html.index('<li class="new-divider" id="new" role="separator">以下是新回复</li>')
    assert html.index('id="p60"') < divider < html.index('id="p61"')
    assert '<a href="#new" id="first-unread-link">' in html
    assert "跳到第一条未读" in html


def test_no_divider_where_read_does_not_meet_unread(client, long_thread, bob):
    _mark(bob, long_thread, 60)
    client.force_login(bob)
    unread = reverse("messaging-thread-unread", args=[long_thread.pk])
    for number in (1, 3):  # all read; all unread but the first unread is on page 2
        html = client.get(long_thread.get_absolute_url(), {"page": number}).content.decode()
        assert 'id="new"' not in html
        assert f'<a href="{unread}" id="first-unread-link">' in html


def test_a_page_that_begins_with_the_first_unread_post_has_the_divider_on_top(
    client, long_thread, bob
):
    _mark(bob, long_thread, 50)
    client.force_login(bob)
    html = client.get(long_thread.get_absolute_url(), {"page": 2}).content.decode()
    assert html.index('id="new"') < html.index('id="p51"')


def test_no_link_for_a_thread_read_to_its_end_or_never_opened(client, long_thread, bob):
    client.force_login(bob)
    assert "first-unread-link" not in client.get(long_thread.get_absolute_url()).content.decode()
    _mark(bob, long_thread, 321)
    html = client.get(long_thread.get_absolute_url(), {"page": "last"}).content.decode()
    assert "first-unread-link" not in html and 'id="new"' not in html


def test_readers_not_signed_in_get_no_divider(client, long_thread):
    html = client.get(long_thread.get_absolute_url(), {"page": 2}).content.decode()
    assert 'id="new"' not in html and "first-unread-link" not in html


def test_each_reader_gets_their_own_divider_on_the_same_kept_page(
    client, long_thread, bob, make_user
):
    carol = make_user("阿卡")
    _mark(bob, long_thread, 60)
    _mark(carol, long_thread, 75)
    client.force_login(bob)
    html = client.get(long_thread.get_absolute_url(), {"page": 2}).content.decode()
    assert html.index('id="new"') < html.index('id="p61"') < html.index('id="p62"')
    client.force_login(carol)
    html = client.get(long_thread.get_absolute_url(), {"page": 2}).content.decode()
    assert html.index('id="p75"') < html.index('id="new"') < html.index('id="p76"')


def test_the_author_picker_lists_the_threads_authors_and_submits_them(
    client, long_thread, alice, bob, make_user
):
    chinese(bob)
    client.force_login(bob)
    html = client.get(long_thread.get_absolute_url()).content.decode()
    picker = html[html.index('id="iso-picker"') : html.index("</details>")]
    assert "只看这些作者" in picker
    boxes = re.findall(r'<input type="checkbox" name="author" value="(\d+)"( checked)?>', picker)
    assert boxes == [(str(alice.pk), ""), (str(bob.pk), "")]  # in the order they first wrote
    assert f'action="{long_thread.get_absolute_url()}"' in picker and 'method="get"' in picker
    # Submitting both boxes asks for ?author=A&author=B: both authors' posts, both ticked.
    html = client.get(long_thread.get_absolute_url(), {"author": [alice.pk, bob.pk]}).content
    html = html.decode()
    picker = html[html.index('id="iso-picker"') : html.index("</details>")]
    assert "<details" in html and 'id="iso-picker" open' in html
    assert picker.count(" checked>") == 2
    # A renamed author is listed under the new name (the list is kept under the version).
    Profile.objects.filter(user=alice).update(display_name="阿丽丽")
    html = client.get(long_thread.get_absolute_url()).content.decode()
    assert "阿丽丽" in html[html.index('id="iso-picker"') :]


def test_a_thread_with_one_author_has_no_picker(client, lobby, alice, make_thread_with_posts):
    thread = make_thread_with_posts(lobby, alice, 3)
    assert "iso-picker" not in client.get(thread.get_absolute_url()).content.decode()


@pytest.mark.parametrize("posts", [60, POSTS_PER_PAGE * 4])
def test_the_navigation_costs_the_same_whatever_the_threads_length(
    client, lobby, alice, bob, make_thread_with_posts, posts, django_assert_num_queries
):
    thread = make_thread_with_posts(lobby, alice, posts)
    Post.objects.filter(thread=thread, number__gt=posts // 2).update(author=bob)
    thread.refresh_from_db()
    _mark(bob, thread, 30)
    client.force_login(bob)
    client.get(reverse("lobby"))
    clear_cache()
    # session, user with profile, digest, thread, the page of posts, the header's counts
    # (with the reader's mark), the mark moved, the thread's authors (kept from then on),
    # whether the reader reads a running game's secrets (the reply box)
    with django_assert_num_queries(9):
        html = client.get(thread.get_absolute_url(), **PAGE).content.decode()
    assert 'id="new"' in html
