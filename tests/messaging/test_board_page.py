"""The board page: every change of a thread shows at once, to anonymous and signed-in
readers alike (a page read without signing in is kept whole: messaging.blocks, part 4), a
renamed writer or game too, hidden threads stay with the readers who may see them, and a
page costs the same queries whatever the number of threads (none kept, not signed in)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import Profile
from games import services as game_services
from messaging import services
from messaging.models import Board, Thread, ThreadReadState
from messaging.views import THREADS_PER_PAGE

pytestmark = pytest.mark.django_db

Kind = Thread.Kind


def _start(board, author, title, *, kind=Kind.DISCUSSION, **extra):
    return services.start_thread(board=board, author=author, kind=kind, title=title,
                                 body="第一帖", enforce_rate_limit=False, **extra)


def _reply(thread, author, body="顶"):
    return services.reply(thread=thread, author=author, body=body, enforce_rate_limit=False)


def _commit() -> None:
    """What the test's writes left for their commit runs now, as after a real commit (each
    test runs in one transaction that never commits): a rename's `blocks.names_changed`,
    which forgets the kept anonymous board pages. (The change feed's listeners hear each
    change at once in tests: tests/conftest.py.)"""
    while connection.run_on_commit:
        callbacks = list(connection.run_on_commit)
        connection.run_on_commit.clear()
        for _savepoints, callback, _robust in callbacks:
            callback()


def _get(client, url):
    _commit()
    return client.get(url)


def _list(client, board, page="") -> str:
    response = _get(client, board.get_absolute_url() + (f"?page={page}" if page else ""))
    assert response.status_code == 200
    html = response.content.decode()
    return html[html.index('<ul class="thread-list">'):html.index("</ul>", html.index(
        '<ul class="thread-list">'))]


@pytest.fixture
def readers(client, alice, bob):
    """Read the list as nobody signed in and as bob, in turn."""

    def read(board, page=""):
        client.logout()
        anonymous = _list(client, board, page)
        client.force_login(bob)
        signed_in = _list(client, board, page)
        client.logout()
        return anonymous, signed_in

    return read


def _both(readers, board, text, *, present=True):
    for html in readers(board):
        assert (text in html) is present, html


# --- every change shows at once ---------------------------------------------------------------

def test_a_new_thread_shows_at_once(readers, lobby, alice):
    _start(lobby, alice, "第一个")
    _both(readers, lobby, "第一个")
    _start(lobby, alice, "第二个")
    _both(readers, lobby, "第二个")


def test_a_reply_shows_its_count_and_writer_at_once(readers, lobby, alice, bob, make_user):
    thread = _start(lobby, alice, "狼人是谁")
    _both(readers, lobby, "1 post")
    _reply(thread, make_user("第三人"))
    _both(readers, lobby, "2 posts")
    _both(readers, lobby, "第三人")


@pytest.mark.parametrize("change, shown", [
    ({"title": "改过的标题"}, "改过的标题"),
    ({"is_pinned": True}, "pinned"),
    ({"is_locked": True}, "locked"),
    ({"kind": Kind.ANNOUNCEMENT}, "Announcement"),
])
def test_a_changed_thread_shows_at_once(readers, lobby, alice, change, shown):
    thread = _start(lobby, alice, "原来的标题")
    _both(readers, lobby, shown, present=False)
    for field, value in change.items():
        setattr(thread, field, value)
    services.save_thread(thread=thread, fields=list(change))  # the admin's form
    _both(readers, lobby, shown)


def test_a_lock_by_the_service_and_a_full_save_show_at_once(readers, lobby, alice):
    thread = _start(lobby, alice, "帖")
    readers(lobby)
    services.set_thread_locked(thread=thread, locked=True)
    _both(readers, lobby, "locked")
    thread.refresh_from_db()
    thread.title = "后台改名"
    services.save_thread(thread=thread, fields=["title"])  # the admin's form
    _both(readers, lobby, "后台改名")


def test_a_deleted_thread_and_a_deleted_last_post_show_at_once(readers, lobby, alice, bob):
    gone = _start(lobby, alice, "要删的帖")
    kept = _start(lobby, alice, "留下的帖")
    _reply(kept, bob)
    _both(readers, lobby, "要删的帖")
    services.delete_threads(threads=Thread.objects.filter(pk=gone.pk))
    _both(readers, lobby, "要删的帖", present=False)
    _both(readers, lobby, "阿博")
    services.delete_posts(posts=kept.posts.filter(number=2))
    _both(readers, lobby, "阿博", present=False)
    _both(readers, lobby, "1 post")


@pytest.fixture
def staff(make_user):
    staff = Client()
    staff.force_login(make_user("站长", staff=True))
    return staff


def _rename(how: str, writer, staff) -> str:
    """Rename `writer` as the site does it (`how`); the name the forum shows now."""
    profile = Profile.objects.get(user=writer)
    if how == "profile page":
        own = Client()
        own.force_login(writer)
        response = own.post(reverse("profile"), {
            "display_name": "新名字", "timezone": profile.timezone, "language": "en",
            "reminder_hours": profile.reminder_hours})
        assert response.status_code == 302
        return "新名字"
    if how == "admin: display name":
        response = staff.post(f"/admin/accounts/profile/{profile.pk}/change/", {
            "user": writer.pk, "display_name": "新名字", "timezone": profile.timezone,
            "timezone_origin": "", "language": "en", "reminder_hours": profile.reminder_hours,
            "calendar_token": ""})
        assert response.status_code == 302, response.content.decode()[:3000]
        return "新名字"
    response = staff.post(f"/admin/accounts/profile/{profile.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302 and not Profile.objects.filter(user=writer).exists()
    if how == "admin: profile removed":
        return writer.username
    joined = writer.date_joined.astimezone()
    response = staff.post(f"/admin/auth/user/{writer.pk}/change/", {
        "username": "renamed", "email": writer.email, "is_active": "on",
        "date_joined_0": joined.strftime("%Y-%m-%d"),
        "date_joined_1": joined.strftime("%H:%M:%S")})
    assert response.status_code == 302, response.content.decode()[:3000]
    return "renamed"


@pytest.mark.parametrize("how", ["profile page", "admin: display name",
                                 "admin: profile removed", "admin: username"])
def test_a_renamed_last_writer_shows_at_once(readers, lobby, make_user, staff, how):
    writer = make_user("旧名字")
    _start(lobby, writer, "帖")
    _both(readers, lobby, "旧名字")
    if how == "admin: username":
        _rename("admin: profile removed", writer, staff)
        _both(readers, lobby, writer.username)
        writer.refresh_from_db()
        Profile.objects.create(user=writer, display_name="旧名字")
        game_services.profile_saved(user_id=writer.pk, renamed=True, new_hours=False)
        _both(readers, lobby, "旧名字")
    shown = _rename(how, writer, staff)
    _both(readers, lobby, shown)
    _both(readers, lobby, "旧名字", present=False)


@pytest.mark.parametrize("change", ["renamed", "deleted"])
def test_a_name_changed_behind_the_sites_back(readers, lobby, make_user, monkeypatch,
                                              change):
    """A name changed where nobody tells the forum (a shell's update; an account deleted,
    which the admin refuses for anyone who wrote) is read on every signed-in view, and by a
    visitor who is not signed in when the page kept for them falls out (KEPT_SECONDS)."""
    import time

    from messaging import blocks

    monkeypatch.setattr(blocks, "KEPT_SECONDS", 1)
    writer = make_user("旧名字")
    _start(lobby, writer, "帖")
    _both(readers, lobby, "旧名字")
    if change == "renamed":
        Profile.objects.filter(user=writer).update(display_name="新名字")
        shown = "新名字"
    else:
        writer.delete()
        shown = "(deleted account)"
    anonymous, signed_in = readers(lobby)
    assert shown in signed_in and "旧名字" not in signed_in
    assert "旧名字" in anonymous and shown not in anonymous
    time.sleep(1.2)
    _both(readers, lobby, shown)
    _both(readers, lobby, "旧名字", present=False)


def test_a_moved_thread_leaves_one_board_and_reaches_the_other(readers, lobby, game_board,
                                                               alice):
    thread = _start(lobby, alice, "搬家的帖")
    readers(game_board)
    _both(readers, lobby, "搬家的帖")
    services.move_thread(thread=thread, board=game_board)
    _both(readers, lobby, "搬家的帖", present=False)
    _both(readers, game_board, "搬家的帖")


def test_a_changed_board_shows_at_once(client, game_board, bob):
    """The board is kept too (board_rows.kept_board): its title, description and lock reach
    both readers at once, and the lock takes the New thread button away."""
    client.force_login(bob)
    assert 'id="new-thread"' in _get(client, game_board.get_absolute_url()).content.decode()
    client.logout()
    _list(client, game_board)
    board = Board.objects.get(pk=game_board.pk)
    board.title, board.description, board.is_locked = "改名的版", "新的说明", True
    services.save_board(board=board, fields=["title", "description", "is_locked"])
    for signed_in in (False, True):
        if signed_in:
            client.force_login(bob)
        html = _get(client, game_board.get_absolute_url()).content.decode()
        assert "改名的版" in html and "新的说明" in html and "locked" in html
    assert 'id="new-thread"' not in html and 'id="start-refusal"' in html


def test_the_new_thread_button_follows_the_board_and_the_reader_at_once(client, lobby, bob,
                                                                       monkeypatch):
    """Whether a reader may start a thread is kept (board_rows.start_state) under the
    board's tokens and the reader's: a lock, the reader's staff flag, an event of theirs
    on the change feed (their access) each show at once."""
    from config import feed
    from messaging import views

    client.force_login(bob)

    def button() -> bool:
        html = _get(client, lobby.get_absolute_url()).content.decode()
        assert ('id="new-thread"' in html) is not ('id="start-refusal"' in html)
        return 'id="new-thread"' in html

    assert button() and button()
    board = Board.objects.get(pk=lobby.pk)
    board.is_locked = True
    services.save_board(board=board, fields=["is_locked"])
    assert not button() and not button()
    get_user_model().objects.filter(pk=bob.pk).update(is_staff=True)  # may post when locked
    assert button()
    get_user_model().objects.filter(pk=bob.pk).update(is_staff=False)
    assert not button()
    asked = []
    monkeypatch.setattr(views, "_start_state",
                        lambda user, board: asked.append(user.pk) or (True, None))
    assert not button()  # kept: not asked
    feed.changed("user", bob.pk, 0, what="access")
    assert button() and asked == [bob.pk]


def _unread(html: str, title: str) -> int:
    """The unread count the row of the thread `title` shows (0: none)."""
    row = re.search(r'<li class="thread-row[^>]*>(?:(?!</li>).)*>' + re.escape(title)
                    + r"<(?:(?!</li>).)*</li>", html, re.S).group(0)
    found = re.search(r'class="new-mark"[^>]*>([0-9]+) new<', row)
    return int(found.group(1)) if found else 0


def test_unread_counts_are_the_posts_after_the_mark_with_posts_deleted(client, lobby, alice,
                                                                       bob):
    """The unread count is the reader's posts after their mark (unread.with_read_marks),
    also where posts were deleted (their numbers are not reused)."""
    cases = {  # title: (posts deleted, bob's mark, unread)
        "没有缺口": ((), 2, 3), "缺口在后": ((4,), 2, 2), "缺口在前": ((2,), 3, 2),
        "从未读过": ((3,), None, 4), "读完了": ((5,), 5, 0), "读过缺口": ((3, 4), 4, 1)}
    for title, (gone, mark, _unread_count) in cases.items():
        thread = _start(lobby, alice, title)
        for _ in range(4):
            _reply(thread, alice)
        if mark is not None:
            ThreadReadState.objects.create(user=bob, thread=thread, last_read_number=mark)
        if gone:
            services.delete_posts(posts=thread.posts.filter(number__in=gone))
    client.force_login(bob)
    html = _list(client, lobby)
    assert {title: _unread(html, title) for title in cases} == {
        title: unread for title, (_gone, _mark, unread) in cases.items()}


def test_a_reply_on_another_page_moves_the_thread_to_the_top(readers, lobby, alice, bob):
    threads = [_start(lobby, alice, f"帖{i:02}") for i in range(THREADS_PER_PAGE + 1)]
    oldest = threads[0]
    for html in readers(lobby, "2"):
        assert "帖00" in html
    _reply(oldest, bob)
    for html in readers(lobby):
        assert "帖00" in html
    for html in readers(lobby, "2"):
        assert "帖00" not in html and "帖01" in html


# --- who sees what ------------------------------------------------------------------------------

def test_gm_only_threads_stay_with_the_gm_whoever_reads_first(client, lobby, gm, alice, bob):
    _start(lobby, alice, "公开的帖")
    hidden = _start(lobby, gm, "内部的帖", kind=Kind.GM_ONLY)
    for order in (("gm", "bob"), ("bob", "gm")):
        for who in order:
            if who == "gm":
                client.force_login(gm)
                html = _list(client, lobby)
                assert "内部的帖" in html and "公开的帖" in html
            else:
                client.force_login(bob)
                html = _list(client, lobby)
                assert "内部的帖" not in html and "公开的帖" in html
                client.logout()
                html = _list(client, lobby)
                assert "内部的帖" not in html and "公开的帖" in html
        _reply(hidden, gm)  # a new version: the next round starts with nothing kept


def test_the_count_of_pages_counts_only_what_the_reader_sees(client, lobby, gm, alice):
    for i in range(THREADS_PER_PAGE):
        _start(lobby, alice, f"帖{i}")
    _start(lobby, gm, "内部的帖", kind=Kind.GM_ONLY)
    client.force_login(gm)
    assert "page 1 of 2" in _get(client, lobby.get_absolute_url()).content.decode()
    client.logout()
    assert "page 1 of" not in _get(client, lobby.get_absolute_url()).content.decode()


# --- queries --------------------------------------------------------------------------------------

@pytest.mark.parametrize("signed_in", [False, True])
@pytest.mark.parametrize("threads", [2, THREADS_PER_PAGE + 3])
def test_a_board_page_costs_the_same_queries_whatever_its_threads(
        client, lobby, alice, bob, signed_in, threads, django_assert_max_num_queries):
    for i in range(threads):
        thread = _start(lobby, alice, f"帖{i}")
        if i % 2:
            ThreadReadState.objects.create(user=bob, thread=thread, last_read_number=1)
            _reply(thread, alice)
    if signed_in:
        client.force_login(bob)
    _get(client, lobby.get_absolute_url())
    # Not signed in: the whole page kept (messaging.blocks, part 4), no query. Signed in:
    # the board, the page's rows and whether the reader may start a thread kept
    # (messaging.board_rows): the page's threads as they are now (their last writers and
    # the reader's marks), the session, the user with their profile and the header's counts
    with django_assert_max_num_queries(4 if signed_in else 0):
        html = _list(client, lobby)
    assert html.count('class="thread-row') == min(threads, THREADS_PER_PAGE)
    assert ("new-mark" in html) is signed_in


# --- anonymous readers --------------------------------------------------------------------------

def test_a_renamed_game_and_a_hidden_board_show_at_once_to_anonymous_readers(
        client, game_board, gm, alice, toy_ruleset):
    from django.db import transaction

    from games.models import Game
    from games.services import kernel

    game = Game.objects.create(name="七号局", ruleset="toy", board=game_board, gm=gm,
                               status=Game.Status.SIGNUP)
    _start(game_board, gm, "报名帖")
    url = game_board.get_absolute_url()
    assert "七号局" in _get(client, url).content.decode()
    assert "七号局" in _get(client, url).content.decode()  # kept
    game_services.update_settings(game_id=game.pk, changes={"name": "改名的局"})  # the admin's
    html = _get(client, url).content.decode()
    assert "改名的局" in html and "七号局" not in html
    # Whatever hides a game's board (here by hand) moves the game's version as it does.
    Game.objects.filter(pk=game.pk).update(status=Game.Status.DRAFT)
    with transaction.atomic():
        kernel.changed(Game.objects.get(pk=game.pk))
    assert _get(client, url).status_code == 404


def test_a_kept_page_costs_no_query_and_is_the_same_page(client, lobby, alice):
    _start(lobby, alice, "帖")
    url = lobby.get_absolute_url()
    with CaptureQueriesContext(connection) as first:
        miss = _get(client, url).content.decode()
    with CaptureQueriesContext(connection) as again:
        hit = _get(client, url).content.decode()
    assert len(again) == 0 < len(first)
    assert hit == miss and "帖" in hit and "csrfmiddlewaretoken" not in hit
    for other in ("?page=1&utm=x", "?page=１"):  # only ?page= is kept: a link fills nothing
        for _ in range(2):
            with CaptureQueriesContext(connection) as queries:
                assert _get(client, url + other).status_code == 200
            assert len(queries) > 0


@pytest.mark.parametrize("write", ["thread", "rename"])
def test_a_page_is_kept_until_the_write_commits(client, lobby, alice, bob, write,
                                               django_capture_on_commit_callbacks):
    """The kept page is forgotten when the writer's transaction commits, not before: a
    visitor during the write still reads the committed page."""
    _start(lobby, alice, "第一个")
    _list(client, lobby)
    with django_capture_on_commit_callbacks() as callbacks:
        if write == "thread":
            _start(lobby, bob, "第二个")
            shown = "第二个"
        else:
            Profile.objects.filter(user=alice).update(display_name="新名字")
            game_services.profile_saved(user_id=alice.pk, renamed=True, new_hours=False)
            shown = "新名字"
        with CaptureQueriesContext(connection) as queries:
            html = client.get(lobby.get_absolute_url()).content.decode()
        assert len(queries) == 0 and shown not in html
    for callback in callbacks:
        callback()
    assert shown in client.get(lobby.get_absolute_url()).content.decode()


def test_an_anonymous_reader_gets_no_reader_data(
        client, lobby, alice, bob):
    thread = _start(lobby, alice, "帖")
    _reply(thread, alice)
    client.force_login(bob)
    signed = _get(client, lobby.get_absolute_url()).content.decode()
    assert "2 new" in signed and "mark-board-read" in signed
    client.logout()
    first = _get(client, lobby.get_absolute_url()).content.decode()
    second = _get(client, lobby.get_absolute_url()).content.decode()
    for html in (first, second):
        assert "new-mark" not in html and "mark-board-read" not in html
        assert "阿博" not in html and "Sign in</a> to post" in html
