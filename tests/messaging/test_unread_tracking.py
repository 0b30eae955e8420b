"""Unread tracking: read marks per user and thread, new-post marks on a board, the jump to
the first unread floor, 全部标为已读, and what does (not) count as reading."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from messaging import services
from messaging.models import Thread, ThreadReadState
from messaging.views import POSTS_PER_PAGE, THREADS_PER_PAGE

pytestmark = pytest.mark.django_db

# What a browser sends when a person opens a page, and what it sends for an <img>.
PAGE = {"HTTP_SEC_FETCH_MODE": "navigate", "HTTP_SEC_FETCH_DEST": "document"}
IMAGE = {"HTTP_SEC_FETCH_MODE": "no-cors", "HTTP_SEC_FETCH_DEST": "image"}
IFRAME = {"HTTP_SEC_FETCH_MODE": "navigate", "HTTP_SEC_FETCH_DEST": "iframe"}


def _mark(user, thread) -> int | None:
    return (ThreadReadState.objects.filter(user=user, thread=thread)
            .values_list("last_read_number", flat=True).first())


def _reply(thread, author, body="顶"):
    return services.reply(thread=thread, author=author, body=body, enforce_rate_limit=False)


def test_opening_a_thread_as_a_page_marks_it_read_up_to_the_last_floor_shown(
        client, discussion, alice, bob):
    _reply(discussion, alice)
    client.force_login(bob)
    client.get(discussion.get_absolute_url(), **PAGE)
    assert _mark(bob, discussion) == 2


# An old browser sends no Fetch Metadata, but its image requests never ask for HTML
# (config.http.is_page_navigation).
OLD_BROWSER_IMAGE = {"HTTP_ACCEPT": "image/avif,image/webp,*/*"}


@pytest.mark.parametrize("headers", [IMAGE, IFRAME, OLD_BROWSER_IMAGE],
                         ids=["img", "iframe", "old-browser-img"])
def test_an_embedded_request_never_marks_a_thread_read(client, discussion, bob, headers):
    client.force_login(bob)
    response = client.get(discussion.get_absolute_url(), **headers)
    assert response.status_code == 200
    assert _mark(bob, discussion) is None


def test_an_iso_view_does_not_mark_the_thread_read(client, discussion, alice, bob):
    _reply(discussion, bob)
    client.force_login(bob)
    client.get(discussion.get_absolute_url(), {"author": alice.pk}, **PAGE)
    assert _mark(bob, discussion) is None


def test_reading_an_earlier_page_never_moves_the_mark_back(
        client, lobby, alice, bob, make_thread_with_posts):
    thread = make_thread_with_posts(lobby, alice, POSTS_PER_PAGE + 5)
    client.force_login(bob)
    client.get(thread.get_absolute_url(), {"page": 2}, **PAGE)
    assert _mark(bob, thread) == POSTS_PER_PAGE + 5
    client.get(thread.get_absolute_url(), {"page": 1}, **PAGE)
    assert _mark(bob, thread) == POSTS_PER_PAGE + 5


def test_a_board_shows_new_post_marks_with_counts(client, lobby, alice, bob):
    read = services.start_thread(board=lobby, author=alice, kind="discussion", title="读过的",
                                 body="x")
    fresh = services.start_thread(board=lobby, author=alice, kind="discussion", title="新的",
                                  body="x")
    client.force_login(bob)
    client.get(read.get_absolute_url(), **PAGE)
    _reply(read, alice)
    _reply(read, alice)
    html = client.get(lobby.get_absolute_url()).content.decode()
    row = {int(pk): body for pk, body in
           re.findall(r'data-thread="(\d+)">(.*?)</li>', html, flags=re.S)}
    assert "2 new" in row[read.pk] and "has-unread" in html
    assert "1 new" in row[fresh.pk]
    client.get(read.get_absolute_url(), **PAGE)
    html = client.get(lobby.get_absolute_url()).content.decode()
    row = {int(pk): body for pk, body in
           re.findall(r'data-thread="(\d+)">(.*?)</li>', html, flags=re.S)}
    assert "new-mark" not in row[read.pk]


def test_a_thread_link_jumps_to_the_first_unread_floor(
        client, lobby, alice, bob, make_thread_with_posts):
    thread = make_thread_with_posts(lobby, alice, POSTS_PER_PAGE + 10)
    client.force_login(bob)
    ThreadReadState.objects.create(user=bob, thread=thread, last_read_number=POSTS_PER_PAGE + 3)
    html = client.get(lobby.get_absolute_url()).content.decode()
    jump = reverse("messaging-thread-unread", args=[thread.pk])
    assert f'href="{jump}"' in html
    response = client.get(jump)
    assert response.status_code == 302
    assert response["Location"].endswith(f"?page=2#p{POSTS_PER_PAGE + 4}")


def test_the_jump_goes_to_floor_one_when_never_read_and_to_the_last_when_all_read(
        client, discussion, alice, bob):
    _reply(discussion, alice)
    client.force_login(bob)
    jump = reverse("messaging-thread-unread", args=[discussion.pk])
    assert client.get(jump)["Location"].endswith("?page=1#p1")
    client.get(discussion.get_absolute_url(), **PAGE)
    assert client.get(jump)["Location"].endswith("?page=1#p2")


def test_mark_all_read_marks_every_readable_thread_of_the_board(client, lobby, alice, bob, gm):
    threads = [services.start_thread(board=lobby, author=alice, kind="discussion",
                                     title=f"帖{i}", body="x", enforce_rate_limit=False)
               for i in range(3)]
    hidden = services.start_thread(board=lobby, author=gm, kind=Thread.Kind.GM_ONLY,
                                   title="内部", body="x")
    _reply(threads[0], alice)
    client.force_login(bob)
    response = client.post(reverse("messaging-board-read", args=[lobby.slug]))
    assert response.status_code == 302
    assert [_mark(bob, t) for t in threads] == [2, 1, 1]
    assert _mark(bob, hidden) is None
    assert "new-mark" not in client.get(lobby.get_absolute_url()).content.decode()


def test_mark_all_read_takes_a_post_only_and_a_signed_in_user(client, lobby, discussion, bob):
    url = reverse("messaging-board-read", args=[lobby.slug])
    assert client.post(url).status_code == 302  # to sign in
    assert ThreadReadState.objects.count() == 0
    client.force_login(bob)
    assert client.get(url).status_code == 405
    assert ThreadReadState.objects.count() == 0


def test_mark_all_read_on_a_gm_board_is_a_404_for_players(client, gm_board, bob):
    client.force_login(bob)
    assert client.post(reverse("messaging-board-read", args=[gm_board.slug])).status_code == 404


def test_the_jump_to_a_gm_only_thread_is_a_404_for_players(client, lobby, gm, bob):
    hidden = services.start_thread(board=lobby, author=gm, kind=Thread.Kind.GM_ONLY,
                                   title="内部", body="x")
    client.force_login(bob)
    assert client.get(reverse("messaging-thread-unread", args=[hidden.pk])).status_code == 404


@pytest.mark.parametrize("threads", [3, THREADS_PER_PAGE + 5])
def test_board_with_unread_marks_query_budget_does_not_grow_with_threads(
        client, lobby, alice, bob, threads, django_assert_num_queries):
    for i in range(threads):
        thread = services.start_thread(board=lobby, author=alice, kind="discussion",
                                       title=f"帖{i}", body="x", enforce_rate_limit=False)
        if i % 2:
            ThreadReadState.objects.create(user=bob, thread=thread, last_read_number=1)
            _reply(thread, alice)
    client.force_login(bob)
    client.get(lobby.get_absolute_url())
    # session, user with profile, the page's threads as they are now (the board, its rows
    # and whether the reader may start a thread kept, messaging.board_rows: their last
    # writers and the reader's marks), the header's unread messages
    with django_assert_num_queries(4):
        response = client.get(lobby.get_absolute_url())
    assert "new-mark" in response.content.decode()


@pytest.mark.parametrize("posts", [5, POSTS_PER_PAGE * 3])
def test_reading_a_thread_as_a_page_costs_a_fixed_number_of_queries(
        client, lobby, alice, bob, make_thread_with_posts, posts, django_assert_num_queries):
    thread = make_thread_with_posts(lobby, alice, posts, quote_every=4)
    client.force_login(bob)
    ThreadReadState.objects.create(user=bob, thread=thread, last_read_number=1)
    client.get(reverse("lobby"))
    # session, user with profile, thread (the games' posting check reads the game it
    # joined), the thread's authors (their ids kept under the thread's version: one query
    # on a miss) and their names, one page of posts by floor number (no COUNT, no OFFSET),
    # the header's badges (no unread notice, so none to mark read), the read mark moved
    # (one statement), whether the reader reads a running game's secrets (the reply box)
    with django_assert_num_queries(9):
        client.get(thread.get_absolute_url(), {"page": "last"}, **PAGE)
    assert _mark(bob, thread) == posts


@pytest.mark.parametrize("posts", [5, POSTS_PER_PAGE * 3])
def test_the_jump_to_the_first_unread_floor_costs_a_fixed_number_of_queries(
        client, lobby, alice, bob, make_thread_with_posts, posts, django_assert_num_queries):
    thread = make_thread_with_posts(lobby, alice, posts)
    ThreadReadState.objects.create(user=bob, thread=thread, last_read_number=posts - 2)
    client.force_login(bob)
    client.get(reverse("lobby"))
    # session, user with profile, thread, the read mark, the first unread post (its page is
    # its floor number's: no count)
    with django_assert_num_queries(5):
        response = client.get(reverse("messaging-thread-unread", args=[thread.pk]))
    assert response["Location"].endswith(f"#p{posts - 1}")
