"""The thread page's posts come from the cache (messaging/page_cache.py, issue 17 item 1):
whatever changes a page shows it at once, a block is never served to a reader who may not
see it or who has other buttons, and the page's queries do not depend on the thread's
length, whether its block was in the cache or not."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from messaging import page_cache, services
from messaging.models import Post, Thread, ThreadReadState

pytestmark = pytest.mark.django_db


def page(client, thread, number="1") -> str:
    response = client.get(f"{thread.get_absolute_url()}?page={number}")
    assert response.status_code == 200
    return response.content.decode()


def forget_every_block():
    from tests.conftest import clear_cache

    clear_cache()  # this worker's keys only: a FLUSHDB would wipe the other workers' too


@pytest.fixture
def thread(lobby, alice, make_thread_with_posts):
    return make_thread_with_posts(lobby, alice, 6, quote_every=3)


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
    thread.posts.get(number=4).delete()
    services.recount_thread(thread=thread)
    assert 'id="p4"' not in page(client, thread)


def test_every_way_of_writing_a_post_moves_its_threads_version(thread, alice):
    """The database bumps the version (triggers), so even a writer that bypasses the
    services (the admin, a data fix, a bulk insert) cannot leave a stale page."""
    def version():
        return Thread.objects.values_list("version", flat=True).get(pk=thread.pk)

    seen = [version()]
    Post.objects.filter(thread=thread, number=2).update(html="<p>fixed</p>")
    seen.append(version())
    Post.objects.bulk_create([Post(thread=thread, number=7, author=alice, body="x",
                                   html="<p>x</p>")])
    seen.append(version())
    Post.objects.filter(thread=thread, number=7).delete()
    seen.append(version())
    services.reply(thread=thread, author=alice, body="又一帖", enforce_rate_limit=False)
    seen.append(version())
    assert seen == sorted(set(seen)), seen  # each write moved it forward


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


def test_a_staff_badge_given_after_the_page_was_cached_shows_at_once(client, thread, alice):
    assert "badge-staff" not in page(client, thread)
    type(alice).objects.filter(pk=alice.pk).update(is_staff=True)
    assert "badge-staff" in page(client, thread)
    type(alice).objects.filter(pk=alice.pk).update(is_active=False)
    assert "badge-staff" not in page(client, thread)


def test_a_player_cannot_fill_a_slot_from_a_post(client, lobby, alice, gm):
    """A post holding the slot characters of someone's badge stays text: only the page's
    own slots are filled."""
    services.reply(thread=services.start_thread(
        board=lobby, author=gm, kind=Thread.Kind.DISCUSSION, title="公告", body="欢迎"),
        author=alice, body=f"\ue000b{gm.pk}\ue000 \ue000n{gm.pk}\ue000",
        enforce_rate_limit=False)
    thread = Thread.objects.get(title="公告")
    html = page(client, thread)
    posts = html[html.index('<ol class="posts">'):]
    assert html.count("badge-staff") == 1  # the GM's own post, not the player's
    assert posts.count("天神甲") == 1
    assert "&#xe000;" in html


def test_the_only_this_author_view_is_not_taken_from_the_cache(client, thread, alice, bob):
    services.reply(thread=thread, author=bob, body="阿博的话", enforce_rate_limit=False)
    page(client, thread)
    html = client.get(f"{thread.get_absolute_url()}?author={alice.pk}").content.decode()
    assert "阿博的话" not in html
    assert html.count('class="post card') == 6


def _queries(client, url) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url, HTTP_SEC_FETCH_MODE="navigate", HTTP_SEC_FETCH_DEST="document")
    assert response.status_code == 200
    return [q["sql"] for q in captured.captured_queries]


@pytest.mark.parametrize("signed_in", [False, True])
def test_the_query_count_is_the_same_for_10_and_1000_posts_cached_or_not(
        client, lobby, alice, bob, make_thread_with_posts, signed_in):
    small = make_thread_with_posts(lobby, alice, 10, quote_every=3)
    large = make_thread_with_posts(lobby, alice, 1000, quote_every=3)
    Post.objects.filter(thread=large, number__gt=500).update(author=bob)
    if signed_in:
        client.force_login(bob)
        for thread in (small, large):  # a later visit: the reading mark exists
            ThreadReadState.objects.create(user=bob, thread=thread, last_read_number=1)
    counts = {}
    for name, thread in (("small", small), ("large", large)):
        for number in ("1", "last"):
            url = f"{thread.get_absolute_url()}?page={number}"
            forget_every_block()
            # each cold view moves the mark (a page read again moves none: the warm view)
            ThreadReadState.objects.filter(user=bob).update(last_read_number=1)
            cold = _queries(client, url)
            warm = _queries(client, url)
            counts[name, number] = (len(cold), len(warm))
    assert len(set(counts.values())) == 1, counts
    # first the digest of the thread's rows: the key of the whole page kept for anonymous
    # readers (whose warm view is that one query, config.anonymous_pages) and of the
    # thread's rows kept in memory (the warm view reads no thread row); anonymous: then the
    # thread and the page's posts with their quotes and authors (cold) or nothing more
    # (warm: the kept block holds the names; no author is staff); signed in also the
    # session, the user with their profile, the header's badges and the reading mark moved
    # forward in one statement; warm, the header's counts carry the reader's mark, already
    # there, so no statement moves it. Cold, the thread's authors for the 只看这些作者
    # picker (kept under the thread's version, like the block).
    assert counts["large", "last"] == (8 if signed_in else 4, 4 if signed_in else 1), counts


def test_a_staff_author_on_a_kept_page_costs_one_query_for_their_badge(
        client, lobby, gm, alice, make_thread_with_posts):
    thread = make_thread_with_posts(lobby, alice, 60)
    services.reply(thread=thread, author=gm, body="天神的话", enforce_rate_limit=False)
    url = f"{thread.get_absolute_url()}?page=last"
    _queries(client, url)
    assert len(_queries(client, url)) == 2  # the thread, whether the GM governs the lobby
    assert "badge-staff" in client.get(url).content.decode()


def test_a_later_page_view_writes_nothing_when_the_mark_does_not_move(client, thread, bob):
    client.force_login(bob)
    _queries(client, thread.get_absolute_url())
    again = _queries(client, thread.get_absolute_url())
    assert ThreadReadState.objects.get(user=bob, thread=thread).last_read_number == 6
    assert not [q for q in again if q.startswith("UPDATE") and "readstate" in q]


def test_the_block_of_a_page_is_kept_under_the_threads_version(client, thread):
    page(client, thread)
    key_parts = [str(thread.pk), str(thread.version)]
    kept = [k for k in page_cache._recent.entries if all(p in k.split(":") for p in key_parts)]
    assert len(kept) == 1
    services.reply(thread=thread, author=thread.author, body="新的", enforce_rate_limit=False)
    thread.refresh_from_db()
    page(client, thread)
    assert any(str(thread.version) in k.split(":") for k in page_cache._recent.entries)


def test_a_post_of_a_withdrawn_announcement_reads_the_same_for_everyone(client, thread, gm,
                                                                        bob):
    services.withdraw(post_ids=[thread.posts.get(number=3).pk], when=timezone.now())
    client.force_login(gm)
    gm_html = page(client, thread)
    client.force_login(bob)
    bob_html = page(client, thread)
    assert gm_html.count("withdrawn-mark") == bob_html.count("withdrawn-mark") == 1
    assert reverse("messaging-post-edit", args=[thread.posts.get(number=3).pk]) in gm_html
