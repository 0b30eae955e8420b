"""The lobby, board, thread and new-thread pages, and what they refuse."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from messaging import services
from messaging.models import MAX_BODY_LENGTH, Post, Thread, ThreadReadState
from messaging.views import POSTS_PER_PAGE

pytestmark = pytest.mark.django_db
Kind = Thread.Kind


def _reply_url(thread):
    return reverse("messaging-reply", args=[thread.pk])


def _numbers(response) -> list[int]:
    return [int(n) for n in re.findall(r'id="p(\d+)"', response.content.decode())]


# --- reading -----------------------------------------------------------------------------

def test_lobby_lists_boards_and_latest_threads(client, lobby, game_board, discussion):
    response = client.get(reverse("lobby"))
    assert response.status_code == 200
    html = response.content.decode()
    assert game_board.title in html and lobby.title in html
    assert discussion.title in html
    assert 'href="/static/css/messaging.css"' in html


def test_lobby_hides_gm_boards_and_gm_only_threads_from_players(
        client, lobby, gm_board, gm, alice):
    services.start_thread(board=lobby, author=gm, kind=Kind.GM_ONLY, title="秘密会议", body="x")
    client.force_login(alice)
    html = client.get(reverse("lobby")).content.decode()
    assert "秘密会议" not in html and gm_board.title not in html
    client.force_login(gm)
    html = client.get(reverse("lobby")).content.decode()
    assert "秘密会议" in html and gm_board.title in html


def test_board_lists_threads_by_latest_activity(client, lobby, alice, bob):
    old = services.start_thread(board=lobby, author=alice, kind=Kind.DISCUSSION, title="旧帖",
                                body="x")
    services.start_thread(board=lobby, author=alice, kind=Kind.DISCUSSION, title="新帖",
                          body="x")
    services.reply(thread=old, author=bob, body="顶")  # the old thread now has the latest post
    html = client.get(lobby.get_absolute_url()).content.decode()
    assert html.index("旧帖") < html.index("新帖")


def test_anonymous_visitor_can_read_a_thread_but_is_asked_to_sign_in(client, discussion):
    response = client.get(discussion.get_absolute_url())
    assert response.status_code == 200
    assert "第一帖" in response.content.decode()
    assert 'id="reply-form"' not in response.content.decode()
    assert reverse("account_login") in response.content.decode()


@pytest.mark.parametrize("who", ["anonymous", "alice"])
def test_gm_only_thread_is_a_404_for_players(client, lobby, gm, alice, who):
    thread = services.start_thread(board=lobby, author=gm, kind=Kind.GM_ONLY, title="内部",
                                   body="x")
    if who == "alice":
        client.force_login(alice)
    assert client.get(thread.get_absolute_url()).status_code == 404
    assert client.get(reverse("messaging-post", args=[thread.posts.get().pk])).status_code == 404
    client.force_login(gm)
    assert client.get(thread.get_absolute_url()).status_code == 200


def test_gm_board_is_a_404_for_players(client, gm_board, alice):
    client.force_login(alice)
    assert client.get(gm_board.get_absolute_url()).status_code == 404
    assert client.get(reverse("messaging-thread-new", args=[gm_board.slug])).status_code == 404


def test_times_are_shown_in_the_viewers_timezone(client, discussion, alice):
    from accounts.models import Profile

    Profile.objects.filter(user=alice).update(timezone="Europe/Madrid")
    client.force_login(alice)
    html = client.get(discussion.get_absolute_url()).content.decode()
    assert "Europe/Madrid" in html


# --- writing ------------------------------------------------------------------------------

def test_player_starts_a_discussion_from_the_board(client, lobby, alice):
    client.force_login(alice)
    url = reverse("messaging-thread-new", args=[lobby.slug])
    form = client.get(url)
    assert form.status_code == 200
    assert 'value="discussion"' in form.content.decode()
    assert 'value="announcement"' not in form.content.decode()
    response = client.post(url, {"kind": "discussion", "title": "新人报到", "body": "大家好"})
    thread = Thread.objects.get()
    assert response.status_code == 302 and response["Location"] == thread.get_absolute_url()
    assert thread.author == alice and thread.posts.get().body == "大家好"


def test_player_posting_an_announcement_gets_403_and_nothing_is_stored(client, lobby, alice):
    client.force_login(alice)
    response = client.post(reverse("messaging-thread-new", args=[lobby.slug]),
                           {"kind": "announcement", "title": "假公告", "body": "x"})
    assert response.status_code == 403
    assert "Only the GM may start this kind of thread." in response.content.decode()
    assert Thread.objects.count() == 0


@pytest.mark.parametrize(("title", "body", "message"), [
    ("标题", "   ", "Write something before posting."),
    ("  ", "正文", "Give the thread a title."),
    ("标题", "x" * (MAX_BODY_LENGTH + 1), f"limited to {MAX_BODY_LENGTH} characters"),
])
def test_bad_new_thread_is_refused_with_a_message(client, lobby, alice, title, body, message):
    client.force_login(alice)
    response = client.post(reverse("messaging-thread-new", args=[lobby.slug]),
                           {"kind": "discussion", "title": title, "body": body})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert Thread.objects.count() == 0 and Post.objects.count() == 0


def test_reply_redirects_to_the_new_post(client, discussion, bob):
    client.force_login(bob)
    response = client.post(_reply_url(discussion), {"body": "同意"})
    assert response.status_code == 302
    assert response["Location"].endswith("?page=1#p2")
    assert discussion.posts.last().author == bob


def test_reply_with_a_script_is_stored_escaped(client, discussion, bob):
    client.force_login(bob)
    client.post(_reply_url(discussion), {
        "body": '<script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1))'})
    html = client.get(discussion.get_absolute_url()).content.decode()
    assert "<script>alert(1)" not in html
    assert "&lt;script&gt;alert(1)" in html
    assert "onerror=alert" not in html.replace("&lt;img src=x onerror=alert(1)&gt;", "")
    assert 'href="javascript:' not in html


@pytest.mark.parametrize("body", ["", "  \r\n ", "x" * (MAX_BODY_LENGTH + 1)])
def test_empty_or_overlong_reply_gets_400_and_nothing_is_stored(client, discussion, bob, body):
    client.force_login(bob)
    response = client.post(_reply_url(discussion), {"body": body})
    assert response.status_code == 400
    assert 'role="alert"' in response.content.decode()
    assert discussion.posts.count() == 1


def test_reply_to_a_locked_thread_gets_403_and_nothing_is_stored(client, discussion, bob):
    services.set_thread_locked(thread=discussion, locked=True)
    client.force_login(bob)
    page = client.get(discussion.get_absolute_url()).content.decode()
    assert 'id="reply-form"' not in page and "This thread is locked." in page
    response = client.post(_reply_url(discussion), {"body": "开门"})
    assert response.status_code == 403
    assert "This thread is locked." in response.content.decode()
    assert discussion.posts.count() == 1


def test_reply_to_an_announcement_by_a_player_gets_403(client, lobby, gm, bob):
    thread = services.start_thread(board=lobby, author=gm, kind=Kind.ANNOUNCEMENT, title="公告",
                                   body="x")
    client.force_login(bob)
    response = client.post(_reply_url(thread), {"body": "沙发"})
    assert response.status_code == 403
    assert thread.posts.count() == 1


def test_reply_to_a_gm_only_thread_by_a_player_gets_404(client, lobby, gm, bob):
    thread = services.start_thread(board=lobby, author=gm, kind=Kind.GM_ONLY, title="内部",
                                   body="x")
    client.force_login(bob)
    assert client.post(_reply_url(thread), {"body": "偷看"}).status_code == 404
    assert thread.posts.count() == 1


def test_anonymous_reply_is_sent_to_sign_in(client, discussion):
    response = client.post(_reply_url(discussion), {"body": "匿名"})
    assert response.status_code == 302 and reverse("account_login") in response["Location"]
    assert discussion.posts.count() == 1


def test_post_without_csrf_token_is_refused(discussion, lobby, bob):
    strict = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    strict.force_login(bob)
    assert strict.post(_reply_url(discussion), {"body": "csrf"}).status_code == 403
    assert strict.post(reverse("messaging-thread-new", args=[lobby.slug]),
                       {"kind": "discussion", "title": "t", "body": "b"}).status_code == 403
    assert strict.post(reverse("messaging-conversation-home"), {"body": "b"}).status_code == 403
    assert Post.objects.count() == 1 and Thread.objects.count() == 1


def test_post_with_csrf_token_is_accepted(discussion, bob):
    strict = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    strict.force_login(bob)
    strict.get(discussion.get_absolute_url())
    token = strict.cookies["csrftoken"].value
    response = strict.post(_reply_url(discussion), {"body": "ok", "csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert discussion.posts.count() == 2


def test_rate_limited_reply_gets_429_with_a_message(client, settings, discussion, bob):
    settings.POSTS_PER_MINUTE = 1
    client.force_login(bob)
    assert client.post(_reply_url(discussion), {"body": "一"}).status_code == 302
    response = client.post(_reply_url(discussion), {"body": "二"})
    assert response.status_code == 429
    assert "at most 1 time a minute" in response.content.decode()
    assert discussion.posts.count() == 2


# --- quoting ------------------------------------------------------------------------------

def test_quote_button_prefills_the_reply_and_the_reply_shows_the_quote(
        client, discussion, alice, bob):
    """?quote= (a quote followed without script) writes the quote into the box as text
    (tests/messaging/test_drafts.py); a reply posted with the quote field (a page of the
    previous release) still shows the quoted post above its text."""
    first = discussion.posts.get()
    client.force_login(bob)
    page = client.get(f"{discussion.get_absolute_url()}?quote={first.pk}").content.decode()
    assert f"&gt; [阿丽 wrote in #1:](/p/{first.pk}/)" in page
    client.post(_reply_url(discussion), {"body": "说得好", "quote": first.pk})
    reply = discussion.posts.get(number=2)
    assert reply.quote == first
    page = client.get(discussion.get_absolute_url()).content.decode()
    quote_block = page[page.index('<blockquote class="quote">'):]
    assert "阿丽 wrote in #1:" in quote_block
    assert reverse("messaging-post", args=[first.pk]) in quote_block


def test_quoting_a_post_of_another_thread_is_refused(client, lobby, discussion, bob):
    other = services.start_thread(board=lobby, author=bob, kind=Kind.DISCUSSION, title="别处",
                                  body="x")
    client.force_login(bob)
    response = client.post(_reply_url(discussion), {"body": "q", "quote": other.posts.get().pk})
    assert response.status_code == 400
    assert discussion.posts.count() == 1


# --- pagination and query count -----------------------------------------------------------

def test_thread_pages_hold_fifty_posts_and_last_means_the_last(
        client, lobby, alice, make_thread_with_posts):
    thread = make_thread_with_posts(lobby, alice, 2 * POSTS_PER_PAGE + 7)
    url = thread.get_absolute_url()
    assert _numbers(client.get(url)) == list(range(1, POSTS_PER_PAGE + 1))
    assert _numbers(client.get(url + "?page=2")) == list(
        range(POSTS_PER_PAGE + 1, 2 * POSTS_PER_PAGE + 1))
    assert _numbers(client.get(url + "?page=last")) == list(
        range(2 * POSTS_PER_PAGE + 1, 2 * POSTS_PER_PAGE + 8))
    assert _numbers(client.get(url + "?page=999")) == _numbers(client.get(url + "?page=last"))
    assert _numbers(client.get(url + "?page=nonsense")) == _numbers(client.get(url))


def test_permalink_redirects_to_the_page_holding_the_post(
        client, lobby, alice, make_thread_with_posts):
    thread = make_thread_with_posts(lobby, alice, 120)
    post = thread.posts.get(number=101)
    response = client.get(reverse("messaging-post", args=[post.pk]))
    assert response.status_code == 302
    assert response["Location"] == f"{thread.get_absolute_url()}?page=3#p101"


def test_board_paginates_threads(client, lobby, alice):
    from messaging.views import THREADS_PER_PAGE

    for i in range(THREADS_PER_PAGE + 2):
        services.start_thread(board=lobby, author=alice, kind=Kind.DISCUSSION, title=f"帖{i}",
                              body="x", enforce_rate_limit=False)
    first = client.get(lobby.get_absolute_url()).content.decode()
    second = client.get(lobby.get_absolute_url() + "?page=2").content.decode()
    assert first.count('class="thread-row') == THREADS_PER_PAGE
    assert second.count('class="thread-row') == 2


def _forget_kept_pages():
    from tests.conftest import clear_cache

    clear_cache()  # this worker's keys only: a FLUSHDB would wipe the other workers' too


def _queries_for(client, url) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200
    return len(captured)


@pytest.mark.parametrize("signed_in", [False, True])
def test_thread_page_query_count_does_not_grow_with_the_thread(
        client, lobby, alice, bob, make_thread_with_posts, signed_in):
    small = make_thread_with_posts(lobby, alice, 10, quote_every=3)
    large = make_thread_with_posts(lobby, alice, 1000, quote_every=3)
    # Authors differ from post to post in real threads; give the large one several.
    Post.objects.filter(thread=large, number__gt=500).update(author=bob)
    if signed_in:
        client.force_login(bob)
    for page in ("1", "last", "10"):
        # Each page is measured from the same reading state (the reader's first visit) and
        # the same cache (no page of posts kept: tests/messaging/test_thread_cache.py measures
        # a kept one), so a difference can only come from the thread's size.
        ThreadReadState.objects.all().delete()
        _forget_kept_pages()
        small_count = _queries_for(client, f"{small.get_absolute_url()}?page={page}")
        ThreadReadState.objects.all().delete()
        _forget_kept_pages()
        large_count = _queries_for(client, f"{large.get_absolute_url()}?page={page}")
        assert large_count == small_count
    # anonymous: the ids of the thread's board and game (the tokens its whole page is kept
    # under), the thread with its board and game, the thread's authors (their ids, kept
    # under the thread's version, and their names), one page of posts by floor number (with
    # their quotes; no COUNT, no OFFSET); signed in, instead of the first, the session, the
    # user with their profile, the header badges and the first reading mark (one INSERT …
    # ON CONFLICT; no notices to read: the header's count says there are none).
    # Signed in, also whether the reader reads a running game's secrets (the reply box
    # asks games.selectors.secrets).
    assert small_count == (5 if not signed_in else 9)


def test_new_thread_page_on_a_locked_board_explains_the_refusal(client, lobby, alice):
    lobby.is_locked = True
    lobby.save()
    client.force_login(alice)
    response = client.get(reverse("messaging-thread-new", args=[lobby.slug]))
    assert response.status_code == 403
    assert "This board is locked." in response.content.decode()
    assert 'id="new-thread"' not in client.get(lobby.get_absolute_url()).content.decode()


def test_lobby_board_exists_on_a_fresh_install(client, alice):
    from messaging.models import Board

    assert not Board.objects.exists()
    assert client.get(reverse("lobby")).status_code == 200
    client.force_login(alice)
    response = client.post(reverse("messaging-thread-new", args=["lobby"]),
                           {"kind": "discussion", "title": "第一个", "body": "沙发"})
    assert response.status_code == 302
    assert Board.objects.get().kind == Board.Kind.LOBBY
