"""The thread page's posts come from the cache (messaging.blocks), keyed by the thread's
version: whatever changes a page shows it at once, a block is never served to a reader who
may not see it or who has other buttons, and the page's queries do not depend on the
thread's length, whether its block was in the cache or not; pages are read by floor number
(no OFFSET), so the last page of a long thread costs what page 2 does."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from messaging import services
from messaging.models import Post, Thread, ThreadReadState

pytestmark = pytest.mark.django_db

NAVIGATE = {"HTTP_SEC_FETCH_MODE": "navigate", "HTTP_SEC_FETCH_DEST": "document"}


def page(client, thread, number="1") -> str:
    response = client.get(f"{thread.get_absolute_url()}?page={number}")
    assert response.status_code == 200
    return response.content.decode()


def forget_every_block():
    from tests.conftest import clear_cache

    clear_cache()  # this worker's keys only: a FLUSHDB would wipe the other workers' too


def _queries(client, url) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url, **NAVIGATE)
    assert response.status_code == 200
    return [q["sql"] for q in captured.captured_queries]


def _post_reads(queries: list[str]) -> list[str]:
    """The statements that read the page's posts."""
    return [q for q in queries if q.startswith("SELECT") and 'FROM "messaging_post"' in q
            and '"messaging_post"."html"' in q]


@pytest.fixture
def thread(lobby, alice, make_thread_with_posts):
    return make_thread_with_posts(lobby, alice, 6, quote_every=3)


# --- every change shows at once ---------------------------------------------------------------

def test_a_cached_page_shows_a_new_reply_at_once(client, thread, bob):
    assert "刚刚写的回复" not in page(client, thread)
    services.reply(thread=thread, author=bob, body="刚刚写的回复", enforce_rate_limit=False)
    html = page(client, thread)
    assert "刚刚写的回复" in html
    assert html.count('class="post card') == 7


def test_a_cached_page_shows_the_gms_edit_and_the_edited_quote_at_once(client, thread, gm):
    page(client, thread)
    first = thread.posts.get(number=1)
    services.edit_post(post=first, editor=gm, body="泄露的秘密已删除")
    html = page(client, thread)
    assert html.count("泄露的秘密已删除") == 3  # the post and the two posts quoting it
    assert "post 1" not in html
    assert html.count('class="edited muted"') == 1


def test_a_cached_page_shows_a_withdrawal_at_once(client, thread):
    page(client, thread)
    services.withdraw(post_ids=[thread.posts.get(number=2).pk])
    html = page(client, thread)
    assert html.count("withdrawn-mark") == 1
    assert 'id="p2"' in html


def test_a_deleted_post_leaves_the_cached_page(client, thread):
    assert 'id="p4"' in page(client, thread)
    services.delete_posts(posts=thread.posts.filter(number=4))
    html = page(client, thread)
    assert 'id="p4"' not in html and 'id="p5"' in html


def test_a_renamed_author_shows_at_once_on_every_post_quote_and_the_picker(client, thread,
                                                                            alice, bob, gm):
    """At once for a signed-in reader (an anonymous reader's whole page is kept a while:
    tests/web/test_anonymous_pages.py)."""
    services.reply(thread=thread, author=bob, body="我也来", enforce_rate_limit=False)
    client.force_login(gm)
    assert "阿丽" in page(client, thread)
    from accounts.models import Profile

    Profile.objects.filter(user=alice).update(display_name="新名字")  # any way of renaming
    html = page(client, thread)
    assert "阿丽" not in html
    assert "新名字 wrote in #1" in html
    assert f'value="{alice.pk}"> 新名字' in html  # the 只看这些作者 picker


def test_a_staff_badge_given_after_the_page_was_cached_shows_at_once(client, thread, alice,
                                                                      bob):
    client.force_login(bob)
    assert "badge-staff" not in page(client, thread)
    type(alice).objects.filter(pk=alice.pk).update(is_staff=True)
    assert "badge-staff" in page(client, thread)
    type(alice).objects.filter(pk=alice.pk).update(is_active=False)
    assert "badge-staff" not in page(client, thread)


def test_a_post_in_another_thread_of_the_board_keeps_the_block(client, thread, bob):
    """A thread page's keys hold the thread's version, not its board's: a busy board does
    not make every thread's posts be rendered again."""
    page(client, thread)
    other = services.start_thread(board=thread.board, author=bob, kind=Thread.Kind.DISCUSSION,
                                  title="另一帖", body="别处", enforce_rate_limit=False)
    services.reply(thread=other, author=bob, body="别处又一帖", enforce_rate_limit=False)
    assert _post_reads(_queries(client, thread.get_absolute_url())) == []


# --- who gets which block -----------------------------------------------------------------------

def test_the_gms_buttons_are_never_served_to_a_player(client, thread, gm, alice, bob):
    client.force_login(gm)
    assert 'class="edit-button"' in page(client, thread)
    client.force_login(bob)
    html = page(client, thread)
    assert 'class="edit-button"' not in html
    assert 'class="link quote-button"' in html
    client.logout()
    html = page(client, thread)
    assert 'quote-button' not in html
    assert 'class="edit-button"' not in html


def test_a_locked_thread_loses_its_quote_buttons_at_once(client, thread, bob):
    client.force_login(bob)
    assert 'class="link quote-button"' in page(client, thread)
    services.set_thread_locked(thread=thread, locked=True)
    assert 'quote-button' not in page(client, thread)


def test_a_gm_only_thread_cached_for_the_gm_is_a_404_for_everyone_else(
        client, lobby, gm, alice):
    secret = services.start_thread(board=lobby, author=gm, kind=Thread.Kind.GM_ONLY,
                                   title="天神的笔记", body="三号是狼")
    client.force_login(gm)
    assert "三号是狼" in page(client, secret)
    client.force_login(alice)
    assert client.get(secret.get_absolute_url()).status_code == 404
    client.logout()
    assert client.get(secret.get_absolute_url()).status_code == 404


def test_the_only_this_author_view_is_not_taken_from_the_cache(client, thread, alice, bob):
    services.reply(thread=thread, author=bob, body="阿博的话", enforce_rate_limit=False)
    page(client, thread)
    html = client.get(f"{thread.get_absolute_url()}?author={alice.pk}").content.decode()
    assert "阿博的话" not in html
    assert html.count('class="post card') == 6


def test_a_post_of_a_withdrawn_announcement_reads_the_same_for_everyone(client, thread, gm,
                                                                        bob):
    services.withdraw(post_ids=[thread.posts.get(number=3).pk], when=timezone.now())
    client.force_login(gm)
    gm_html = page(client, thread)
    client.force_login(bob)
    bob_html = page(client, thread)
    assert gm_html.count("withdrawn-mark") == bob_html.count("withdrawn-mark") == 1
    assert reverse("messaging-post-edit", args=[thread.posts.get(number=3).pk]) in gm_html


# --- what a page costs --------------------------------------------------------------------------

def test_a_page_read_again_reads_no_posts_until_the_thread_changes(client, thread, bob):
    url = thread.get_absolute_url()
    assert _post_reads(_queries(client, url))
    assert _post_reads(_queries(client, url)) == []
    services.reply(thread=thread, author=bob, body="新的", enforce_rate_limit=False)
    assert _post_reads(_queries(client, url))


@pytest.mark.parametrize("signed_in", [False, True])
@pytest.mark.parametrize("posts", [10, 1000])
def test_the_queries_do_not_grow_with_the_thread_cached_or_not(
        client, lobby, alice, bob, make_thread_with_posts, signed_in, posts,
        django_assert_max_num_queries):
    thread = make_thread_with_posts(lobby, alice, posts, quote_every=3)
    Post.objects.filter(thread=thread, number__gt=posts // 2).update(author=bob)
    if signed_in:
        client.force_login(bob)
        ThreadReadState.objects.create(user=bob, thread=thread, last_read_number=1)
    url = f"{thread.get_absolute_url()}?page=last"
    # Not kept (the cache emptied, the reader's mark behind): the thread with its board and
    # game, the thread's authors (ids, then names), the page's posts; signed in also the
    # session, the user with their profile, the header's counts with the reader's mark, and
    # the mark moved forward; not signed in, instead of those, the ids of the thread's board
    # and game (the tokens the whole page is kept under).
    forget_every_block()
    # (Signed in, the reply box also asks whether the reader reads a running game's
    # secrets.)
    with django_assert_max_num_queries(9 if signed_in else 5):
        assert client.get(url, **NAVIGATE).status_code == 200
    # Kept: the thread, the authors' names; signed in also the session, the user and the
    # header's counts (the mark is where the page leaves it: nothing to write). Not signed
    # in, the whole page is kept: no query.
    with django_assert_max_num_queries(6 if signed_in else 0):
        assert client.get(url, **NAVIGATE).status_code == 200


def test_the_last_page_of_a_long_thread_is_read_by_floor_number(
        client, lobby, alice, make_thread_with_posts):
    thread = make_thread_with_posts(lobby, alice, 1000)
    reads = _post_reads(_queries(client, f"{thread.get_absolute_url()}?page=last"))
    assert len(reads) == 1
    assert "OFFSET" not in reads[0] and "LIMIT" not in reads[0]
    assert '"messaging_post"."number" >= 951' in reads[0]
    assert '"messaging_post"."number" < 1001' in reads[0]
    html = page(client, thread, "last")
    assert html.count('class="post card') == 50 and 'id="p1000"' in html


def test_a_staff_author_costs_one_query_for_their_badge(client, lobby, gm, alice,
                                                        make_thread_with_posts):
    thread = make_thread_with_posts(lobby, alice, 60)
    services.reply(thread=thread, author=gm, body="天神的话", enforce_rate_limit=False)
    # Asked with another query, so the whole page is not kept for this anonymous reader
    # (messaging.blocks, part 3): parts 1 and 2 are measured.
    url = f"{thread.get_absolute_url()}?page=last&from=list"
    _queries(client, url)
    # the thread, its authors' names, whether the GM governs the lobby
    assert len(_queries(client, url)) == 3
    assert "badge-staff" in client.get(url).content.decode()


def test_a_later_page_view_writes_nothing_when_the_mark_does_not_move(client, thread, bob):
    client.force_login(bob)
    _queries(client, thread.get_absolute_url())
    again = _queries(client, thread.get_absolute_url())
    assert ThreadReadState.objects.get(user=bob, thread=thread).last_read_number == 6
    assert not [q for q in again if q.startswith(("UPDATE", "INSERT"))]
