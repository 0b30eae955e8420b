"""Rows of thread lists (the board page, the home page's latest threads): each shows the
thread as it is now, with the reader's own unread count."""

from __future__ import annotations

import pytest

from accounts.models import Profile
from messaging import services
from messaging.models import Thread

pytestmark = pytest.mark.django_db


@pytest.fixture
def thread(lobby, alice):
    return services.start_thread(board=lobby, author=alice, kind=Thread.Kind.DISCUSSION,
                                 title="狼人是谁", body="第一帖", enforce_rate_limit=False)


def row(client, lobby) -> str:
    html = client.get(lobby.get_absolute_url()).content.decode()
    start = html.index('class="thread-row')
    return html[start:html.index("</li>", start)]


def test_a_reply_changes_the_count_and_the_last_writer(client, lobby, thread, bob):
    assert "1 post" in row(client, lobby)
    services.reply(thread=thread, author=bob, body="我不是", enforce_rate_limit=False)
    html = row(client, lobby)
    assert "2 posts" in html
    assert "阿博" in html


def test_a_renamed_last_writer_shows_the_new_name(client, lobby, thread, alice, bob):
    """Read on every signed-in view (a visitor's whole page: tests/messaging/
    test_board_page.py)."""
    client.force_login(bob)
    assert "阿丽" in row(client, lobby)
    Profile.objects.filter(user=alice).update(display_name="新名字")
    assert "新名字" in row(client, lobby)


def test_each_reader_sees_their_own_unread_count(client, lobby, thread, alice, bob,
                                                 make_user):
    services.reply(thread=thread, author=alice, body="再说一次", enforce_rate_limit=False)
    client.force_login(bob)
    assert "2 new" in row(client, lobby)
    client.get(thread.get_absolute_url(), HTTP_SEC_FETCH_MODE="navigate",
               HTTP_SEC_FETCH_DEST="document")
    assert "new-mark" not in row(client, lobby)
    client.force_login(make_user("小三"))  # reads Chinese
    assert "has-unread" in row(client, lobby)
    client.logout()
    assert "new-mark" not in row(client, lobby)


def test_a_renamed_or_locked_thread_shows_at_once(client, lobby, thread):
    row(client, lobby)
    # through the service every writer uses (the admin's form too): it moves the board's
    # version, which the board's kept rows are read under (messaging.board_rows)
    thread.title, thread.is_locked = "改过的标题", True
    services.save_thread(thread=thread, fields=["title", "is_locked"])
    html = row(client, lobby)
    assert "改过的标题" in html
    assert "locked" in html


def test_a_signed_in_reader_gets_the_jump_to_unread_link(client, lobby, thread, bob):
    assert f'/t/{thread.pk}/"' in row(client, lobby)
    client.force_login(bob)
    assert f'/t/{thread.pk}/unread' in row(client, lobby)
