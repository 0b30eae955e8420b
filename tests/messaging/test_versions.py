"""Each forum writer moves the versions of what it changed, in its own transaction, and the
change feed hears of them only once that transaction commits (messaging.services,
messaging.notifications, config.feed): the thread's version when its page changes, the
board's when its list does, and a user's unread notices when they change."""

from __future__ import annotations

import pytest
from django.db import transaction

from config import feed
from messaging import notifications, services
from messaging.models import Board, Post, Thread

pytestmark = pytest.mark.django_db

Kind = Thread.Kind


@pytest.fixture
def published(monkeypatch):
    """The events the feed publishes, in order (nothing reaches Redis)."""
    sent = []
    monkeypatch.setattr(feed, "publish", sent.append)
    return sent


@pytest.fixture
def commit(django_capture_on_commit_callbacks):
    """`with commit(): ...` runs the block in the test's transaction, then what it left for
    the commit (the feed's events) as a commit would."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def versions(*rows) -> list[int]:
    return [type(row).objects.values_list("version", flat=True).get(pk=row.pk) for row in rows]


def events(published, kind=None) -> set[tuple]:
    return {(e["t"], e["id"], e["v"]) for e in published if kind in (None, e["t"])}


def _start(board, author, title="帖", **extra):
    return services.start_thread(board=board, author=author, kind=extra.pop("kind", Kind.DISCUSSION),
                                 title=title, body="第一帖", enforce_rate_limit=False, **extra)


def test_a_reply_moves_its_thread_and_its_board_and_publishes_both(
        lobby, alice, bob, published, commit):
    thread = _start(lobby, alice)
    before = versions(thread, lobby)
    with commit():
        services.reply(thread=thread, author=bob, body="顶", enforce_rate_limit=False)
        assert published == []  # nothing before the commit
    after = versions(thread, lobby)
    assert after == [before[0] + 1, before[1] + 1]
    assert events(published, "thread") == {("thread", thread.pk, after[0])}
    assert events(published, "board") == {("board", lobby.pk, after[1])}


def test_a_new_thread_starts_at_version_one_and_moves_its_board(lobby, alice, published,
                                                                commit):
    before = versions(lobby)[0]
    with commit():
        thread = _start(lobby, alice)
    assert versions(thread, lobby) == [1, before + 1]
    assert ("thread", thread.pk, 1) in events(published)
    assert ("board", lobby.pk, before + 1) in events(published)


def test_a_rolled_back_write_publishes_nothing(lobby, alice, bob, published, commit):
    thread = _start(lobby, alice)
    before = versions(thread, lobby)
    with commit():
        with pytest.raises(RuntimeError), transaction.atomic():
            services.reply(thread=thread, author=bob, body="顶", enforce_rate_limit=False)
            raise RuntimeError("the caller's later step failed")
    assert published == []
    assert versions(thread, lobby) == before


def test_an_edit_and_a_withdrawal_move_the_thread_alone(lobby, alice, gm, published,
                                                        commit):
    thread = _start(lobby, alice)
    post = thread.posts.get()
    board_before = versions(lobby)[0]
    with commit():
        services.edit_post(post=post, editor=gm, body="改过")
    edited = versions(thread)[0]
    with commit():
        services.withdraw(post_ids=[post.pk])
    withdrawn = versions(thread)[0]
    assert withdrawn == edited + 1
    assert versions(lobby)[0] == board_before  # the board's list shows neither
    assert events(published) == {("thread", thread.pk, edited), ("thread", thread.pk, withdrawn)}


def test_an_edit_that_changes_nothing_moves_nothing(lobby, alice, gm, published, commit):
    thread = _start(lobby, alice)
    before = versions(thread)
    with commit():
        services.edit_post(post=thread.posts.get(), editor=gm, body="第一帖")
    assert versions(thread) == before and published == []


@pytest.mark.parametrize("write", ["lock", "title", "save", "recount"])
def test_a_change_of_a_threads_row_moves_the_thread_and_its_board(lobby, alice, bob, write,
                                                                  published, commit):
    thread = _start(lobby, alice)
    services.reply(thread=thread, author=bob, body="顶", enforce_rate_limit=False)
    before = versions(thread, lobby)
    with commit():
        if write == "lock":
            services.set_thread_locked(thread=thread, locked=True)
        elif write == "title":
            services.set_thread_title(thread=thread, title="[已撤回] 帖", pinned=False)
        elif write == "save":
            thread.is_pinned = True
            services.save_thread(thread=thread, fields=["is_pinned"])
        else:
            services.delete_posts(posts=Post.objects.filter(thread=thread, number=2))
    after = versions(thread, lobby)
    assert after == [before[0] + 1, before[1] + 1]
    if write != "recount":  # (delete_posts reads the threads it recounts itself)
        assert thread.version == after[0]  # the caller's object follows
    assert events(published) == {("thread", thread.pk, after[0]), ("board", lobby.pk, after[1])}


def test_a_move_moves_the_thread_and_both_boards(lobby, game_board, alice, published, commit):
    thread = _start(lobby, alice)
    before = versions(thread, lobby, game_board)
    with commit():
        services.move_thread(thread=thread, board=game_board)
    after = versions(thread, lobby, game_board)
    assert [a - b for a, b in zip(after, before, strict=True)] == [1, 1, 1]
    assert events(published) == {("thread", thread.pk, after[0]), ("board", lobby.pk, after[1]),
                                 ("board", game_board.pk, after[2])}


def test_deleting_threads_and_saving_a_board_move_the_board(lobby, alice, published, commit):
    _start(lobby, alice, "要删的帖")
    before = versions(lobby)[0]
    with commit():
        assert services.delete_threads(threads=Thread.objects.filter(title="要删的帖")) == 1
    assert versions(lobby)[0] == before + 1
    board = Board.objects.get(pk=lobby.pk)
    board.title = "新的大厅"
    with commit():
        services.save_board(board=board, fields=["title"])
    assert versions(lobby)[0] == before + 2
    assert Board.objects.get(pk=lobby.pk).title == "新的大厅"
    assert events(published) == {("board", lobby.pk, before + 1), ("board", lobby.pk, before + 2)}


def test_a_stale_board_saved_by_the_admin_keeps_the_newer_version(lobby, alice):
    stale = Board.objects.get(pk=lobby.pk)
    _start(lobby, alice)
    moved = versions(lobby)[0]
    stale.title = "后台改名"
    services.save_board(board=stale, fields=["title"])  # only the named columns are written
    assert versions(lobby)[0] == moved + 1


def test_a_users_notices_publish_their_unread_count(lobby, alice, bob, published, commit):
    thread = _start(lobby, alice)
    with commit():
        services.reply(thread=thread, author=bob, body="回你", enforce_rate_limit=False)
    assert {"t": "user", "id": alice.pk, "v": 1, "what": "notices"} in published
    published.clear()
    with commit():
        services.reply(thread=thread, author=bob, body="又回你", enforce_rate_limit=False)
    # the second reply joins the unread notice: still one
    assert {"t": "user", "id": alice.pk, "v": 1, "what": "notices"} in published
    published.clear()
    with commit():
        notifications.mark_all_read(user=alice)
    assert published == [{"t": "user", "id": alice.pk, "v": 0, "what": "notices"}]
    published.clear()
    with commit():
        notifications.mark_all_read(user=alice)  # nothing was unread: nothing changed
    assert published == []


def test_reading_a_page_of_a_thread_publishes_the_readers_notices(client, lobby, alice, bob,
                                                                  published, commit):
    thread = _start(lobby, alice)
    services.reply(thread=thread, author=bob, body="回你", enforce_rate_limit=False)
    published.clear()
    client.force_login(alice)
    with commit():
        client.get(thread.get_absolute_url(), HTTP_SEC_FETCH_MODE="navigate",
                   HTTP_SEC_FETCH_DEST="document")
    assert published == [{"t": "user", "id": alice.pk, "v": 0, "what": "notices"}]


def test_the_database_has_no_triggers_of_the_forum():
    """The versions are the services' to move (messaging 0014 dropped the triggers of
    messaging 0007, 0008 and 0009)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("""
            SELECT c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
             WHERE NOT t.tgisinternal AND (c.relname LIKE 'messaging_%'
                   OR t.tgname LIKE 'messaging_%')""")
        assert cursor.fetchall() == []
