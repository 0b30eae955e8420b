"""The thread page's posts come from the cache (messaging.blocks); whatever a reader would
see differently is part of the block's key, so a kept block is never stale."""

from __future__ import annotations

import pytest

from accounts.models import Profile
from messaging import services

pytestmark = pytest.mark.django_db


@pytest.fixture
def thread(db, lobby, alice, make_thread_with_posts):
    return make_thread_with_posts(lobby, alice, 6, quote_every=3)


def page(client, thread) -> str:
    return client.get(thread.get_absolute_url()).content.decode()


def test_an_edited_post_shows_its_new_text_and_edit_note(client, thread, gm):
    assert "<strong>more</strong>" in page(client, thread)
    services.edit_post(post=thread.posts.get(number=2), editor=gm, body="changed by the GM")
    html = page(client, thread)
    assert "changed by the GM" in html
    assert html.count('class="edited muted"') == 1


def test_a_renamed_author_shows_the_new_name_on_every_post_and_quote(client, thread, alice,
                                                                     bob):
    """For a signed-in reader at once (a reader who is not signed in sees it when the page
    kept for them falls out: tests/web/test_anonymous_pages.py)."""
    client.force_login(bob)
    assert "阿丽 wrote in #1" in page(client, thread)
    Profile.objects.filter(user=alice).update(display_name="新名字")
    html = page(client, thread)
    assert "阿丽" not in html
    assert "新名字 wrote in #1" in html


def test_a_quoted_post_that_is_edited_changes_the_quote(client, thread, gm):
    page(client, thread)
    services.edit_post(post=thread.posts.get(number=1), editor=gm, body="first, edited")
    assert page(client, thread).count("first, edited") == 3  # the post and two quotes


def test_each_reader_sees_times_in_their_own_timezone(client, thread, bob, alice):
    Profile.objects.filter(user=bob).update(timezone="Europe/Madrid")
    Profile.objects.filter(user=alice).update(timezone="Asia/Shanghai")
    client.force_login(bob)
    assert 'data-timezone="Europe/Madrid"' in page(client, thread)
    client.force_login(alice)
    html = page(client, thread)
    assert 'data-timezone="Asia/Shanghai"' in html
    assert "Europe/Madrid" not in html


def test_each_reader_sees_the_page_in_their_own_language(client, thread, bob):
    client.force_login(bob)
    assert "Only this author" in page(client, thread)
    Profile.objects.filter(user=bob).update(language="zh-hans")
    html = page(client, thread)
    assert "Only this author" not in html
    assert "只看该作者" in html
