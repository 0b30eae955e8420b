"""The board page keeps its count and rows under the board's version (issue 17 item 1,
messaging/board_rows.py, migration messaging 0009): every change of a thread shows at once,
to anonymous and signed-in readers alike, hidden threads stay with the readers who may see
them, and a kept page costs a fixed number of queries."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.template import engines
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from accounts.models import Profile
from messaging import rules, services, unread
from messaging.models import Board, Post, Thread, ThreadReadState
from messaging.views import THREADS_PER_PAGE

pytestmark = pytest.mark.django_db

Kind = Thread.Kind


def _start(board, author, title, *, kind=Kind.DISCUSSION, **extra):
    return services.start_thread(board=board, author=author, kind=kind, title=title,
                                 body="第一帖", enforce_rate_limit=False, **extra)


def _reply(thread, author, body="顶"):
    return services.reply(thread=thread, author=author, body=body, enforce_rate_limit=False)


def _list(client, board, page="") -> str:
    response = client.get(board.get_absolute_url() + (f"?page={page}" if page else ""))
    assert response.status_code == 200
    html = response.content.decode()
    return html[html.index('<ul class="thread-list">'):html.index("</ul>", html.index(
        '<ul class="thread-list">'))]


@pytest.fixture
def readers(client, alice, bob):
    """Read the list as nobody signed in and as bob, in turn (each keeps its own rows)."""

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


def test_an_edit_moves_the_boards_version(lobby, alice, gm):
    thread = _start(lobby, alice, "帖")
    before = Board.objects.get(pk=lobby.pk).version
    services.edit_post(post=thread.posts.get(), editor=gm, body="改过")
    assert Board.objects.get(pk=lobby.pk).version > before


@pytest.mark.parametrize("change, shown", [
    ({"title": "改过的标题"}, "改过的标题"),
    ({"is_pinned": True}, "pinned"),
    ({"is_locked": True}, "locked"),
    ({"kind": Kind.ANNOUNCEMENT}, "Announcement"),
])
def test_a_changed_thread_shows_at_once(readers, lobby, alice, change, shown):
    thread = _start(lobby, alice, "原来的标题")
    _both(readers, lobby, shown, present=False)
    Thread.objects.filter(pk=thread.pk).update(**change)  # no service: the trigger sees it
    _both(readers, lobby, shown)


def test_a_lock_by_the_service_and_a_full_save_show_at_once(readers, lobby, alice):
    thread = _start(lobby, alice, "帖")
    readers(lobby)
    services.set_thread_locked(thread=thread, locked=True)
    _both(readers, lobby, "locked")
    thread.refresh_from_db()
    thread.title = "后台改名"
    thread.save()  # the admin's way: every column
    _both(readers, lobby, "后台改名")


def test_a_deleted_thread_and_a_deleted_last_post_show_at_once(readers, lobby, alice, bob):
    gone = _start(lobby, alice, "要删的帖")
    kept = _start(lobby, alice, "留下的帖")
    _reply(kept, bob)
    _both(readers, lobby, "要删的帖")
    gone.delete()
    _both(readers, lobby, "要删的帖", present=False)
    _both(readers, lobby, "阿博")
    kept.posts.get(number=2).delete()
    services.recount_thread(thread=kept)
    _both(readers, lobby, "阿博", present=False)
    _both(readers, lobby, "1 post")


@pytest.mark.parametrize("how", ["display name", "username", "profile removed"])
def test_a_renamed_last_writer_shows_at_once(readers, lobby, alice, make_user, how):
    writer = make_user("旧名字")
    _start(lobby, writer, "帖")
    _both(readers, lobby, "旧名字")
    if how == "display name":
        Profile.objects.filter(user=writer).update(display_name="新名字")
        shown = "新名字"
    elif how == "username":
        Profile.objects.filter(user=writer).delete()
        readers(lobby)
        get_user_model().objects.filter(pk=writer.pk).update(username="renamed")
        shown = "renamed"
    else:
        Profile.objects.filter(user=writer).delete()
        shown = writer.username
    _both(readers, lobby, shown)
    _both(readers, lobby, "旧名字", present=False)


def test_a_deleted_account_shows_as_deleted(readers, lobby, make_user):
    writer = make_user("要走的人")
    _start(lobby, writer, "帖")
    _both(readers, lobby, "要走的人")
    writer.delete()
    _both(readers, lobby, "(deleted account)")


def test_a_moved_thread_leaves_one_board_and_reaches_the_other(readers, lobby, game_board,
                                                               alice):
    thread = _start(lobby, alice, "搬家的帖")
    readers(game_board)
    _both(readers, lobby, "搬家的帖")
    services.move_thread(thread=thread, board=game_board)
    _both(readers, lobby, "搬家的帖", present=False)
    _both(readers, game_board, "搬家的帖")


def test_a_board_version_never_goes_down(lobby, alice):
    stale = Board.objects.get(pk=lobby.pk)
    _start(lobby, alice, "帖")
    bumped = Board.objects.get(pk=lobby.pk).version
    assert bumped > stale.version
    stale.title = "后台改名"
    stale.save()  # a whole row read before the bump
    assert Board.objects.get(pk=lobby.pk).version == bumped


def test_a_thread_version_never_goes_down(lobby, alice, bob):
    thread = _start(lobby, alice, "帖")
    stale = Thread.objects.get(pk=thread.pk)
    _reply(thread, bob)
    bumped = Thread.objects.get(pk=thread.pk).version
    stale.title = "后台改名"
    stale.save()  # the admin's way: every column, `version` as read before the reply
    assert Thread.objects.get(pk=thread.pk).version >= bumped


def test_a_changed_board_and_its_game_show_at_once(client, game_board, alice):
    _list(client, game_board)
    Board.objects.filter(pk=game_board.pk).update(title="改名的版", description="新的说明",
                                                  is_locked=True)
    html = client.get(game_board.get_absolute_url()).content.decode()
    assert "改名的版" in html and "新的说明" in html and "locked" in html


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
    assert "page 1 of 2" in client.get(lobby.get_absolute_url()).content.decode()
    client.logout()
    assert "page 1 of" not in client.get(lobby.get_absolute_url()).content.decode()


def test_the_rows_read_as_the_threads_tag_renders_them(rf_reader, lobby, alice, bob, gm,
                                                       make_user):
    """Each reader's list is what `{% thread_row %}` renders from the threads with their
    read marks (the page before the rows were kept), unread counts included: marks, no mark,
    a deleted post below and above a mark, a deleted last writer."""
    threads = [_start(lobby, alice, f"帖{i}") for i in range(5)]
    _start(lobby, gm, "内部的帖", kind=Kind.GM_ONLY)
    gone = make_user("走了的人")
    for i, thread in enumerate(threads):
        for _ in range(i):
            _reply(thread, bob)
    _reply(threads[1], gone)
    gone.delete()
    Post.objects.filter(thread=threads[4], number=2).delete()
    ThreadReadState.objects.create(user=bob, thread=threads[3], last_read_number=2)
    ThreadReadState.objects.create(user=bob, thread=threads[4], last_read_number=1)
    ThreadReadState.objects.create(user=bob, thread=threads[2], last_read_number=9)
    for user in (None, bob, gm):
        assert rf_reader(lobby, user).rstrip("\n") == _page_html(lobby, user).rstrip("\n")


@pytest.fixture
def rf_reader(client):
    def read(board, user):
        client.logout()
        if user is not None:
            client.force_login(user)
        html = _list(client, board)
        return html[html.index("\n") + 1:]
    return read


def _page_html(board, user) -> str:
    """The rows as the board page rendered them before (with_read_marks, thread_row)."""
    from django.contrib.auth.models import AnonymousUser

    request = RequestFactory().get(board.get_absolute_url())
    request.user = user or AnonymousUser()
    threads = unread.with_read_marks(
        rules.readable_threads(request.user, board.threads.all())
        .select_related("last_post__author__profile"), request.user)[:THREADS_PER_PAGE]
    template = engines["django"].from_string(
        "{% load messaging_tags %}{% for thread in threads %}{% thread_row thread %}\n"
        "{% endfor %}")
    language = "en" if user is None else user.profile.language or "zh-hans"
    with translation.override(language):
        return template.render({"threads": threads, "request": request})


# --- queries --------------------------------------------------------------------------------------

def _queries(client, url) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


@pytest.mark.parametrize("signed_in", [False, True])
def test_a_kept_board_page_costs_the_same_queries_whatever_its_threads(
        client, lobby, alice, bob, signed_in):
    if signed_in:
        client.force_login(bob)
    url = lobby.get_absolute_url()
    counts = []
    for n in (2, THREADS_PER_PAGE + 3):
        for i in range(n - lobby.threads.count()):
            thread = _start(lobby, alice, f"帖{i}")
            if i % 2:
                ThreadReadState.objects.create(user=bob, thread=thread, last_read_number=1)
                _reply(thread, alice)
        cold = _queries(client, url)
        kept = _queries(client, url)
        counts.append((cold, kept))
    assert counts[0] == counts[1]
    # kept: the board with its game; signed in also the session, the user with their
    # profile, the reader's marks of the page's threads and the header's counts. Read
    # afresh: the count and the page of rows besides.
    assert counts[0] == ((3, 1) if not signed_in else (7, 5))


# --- the whole page kept for anonymous readers -------------------------------------------------

def test_a_renamed_game_and_a_hidden_board_show_at_once_to_anonymous_readers(
        client, game_board, gm, alice):
    from games.models import Game

    game = Game.objects.create(name="七号局", ruleset="toy", board=game_board, gm=gm,
                               status=Game.Status.SIGNUP)
    _start(game_board, gm, "报名帖")
    url = game_board.get_absolute_url()
    assert "七号局" in client.get(url).content.decode()
    Game.objects.filter(pk=game.pk).update(name="改名的局")
    html = client.get(url).content.decode()
    assert "改名的局" in html and "七号局" not in html
    Game.objects.filter(pk=game.pk).update(status=Game.Status.DRAFT)  # hidden again
    assert client.get(url).status_code == 404


def test_an_anonymous_kept_page_gets_its_own_csrf_token_and_no_reader_data(
        client, lobby, alice, bob):
    thread = _start(lobby, alice, "帖")
    _reply(thread, alice)
    client.force_login(bob)
    signed = client.get(lobby.get_absolute_url()).content.decode()
    assert "2 new" in signed and "mark-board-read" in signed
    client.logout()
    first = client.get(lobby.get_absolute_url()).content.decode()
    second = client.get(lobby.get_absolute_url()).content.decode()
    for html in (first, second):
        assert "new-mark" not in html and "mark-board-read" not in html
        assert "阿博" not in html and "Sign in</a> to post" in html
