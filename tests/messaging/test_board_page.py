"""The board page: every change of a thread shows at once, to anonymous and signed-in
readers alike, hidden threads stay with the readers who may see them, and a page costs the
same queries whatever the number of threads."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from accounts.models import Profile
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


def _list(client, board, page="") -> str:
    response = client.get(board.get_absolute_url() + (f"?page={page}" if page else ""))
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


def test_a_changed_board_and_its_game_show_at_once(client, game_board, alice):
    _list(client, game_board)
    board = Board.objects.get(pk=game_board.pk)
    board.title, board.description, board.is_locked = "改名的版", "新的说明", True
    services.save_board(board=board, fields=["title", "description", "is_locked"])
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
    client.get(lobby.get_absolute_url())
    # the page's rows kept (messaging.board_rows): the board with its game, the page's
    # threads as they are now (their last writers; signed in: the reader's marks); signed in
    # also the session, the user with their profile, whether they may start a thread (the
    # games' check: their secrets) and the header's counts
    with django_assert_max_num_queries(6 if signed_in else 2):
        html = _list(client, lobby)
    assert html.count('class="thread-row') == min(threads, THREADS_PER_PAGE)
    assert ("new-mark" in html) is signed_in


# --- anonymous readers --------------------------------------------------------------------------

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


def test_an_anonymous_reader_gets_no_reader_data(
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
