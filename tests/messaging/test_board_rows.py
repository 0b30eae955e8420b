"""The board page's rows kept under the board's version (messaging.board_rows): read again,
the page costs one query of its threads as they are now (signed in; a visitor's whole page
is kept: tests/messaging/test_board_page.py); a new thread or
reply moves the version and shows at once; each reader's unread marks are their own; a
hidden board's rows reach only the readers it is shown to; with Redis away the page is
rendered from the database."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from config import feed
from messaging import board_rows, services
from messaging.models import Board, Thread, ThreadReadState

pytestmark = pytest.mark.django_db
NOWHERE = "redis://127.0.0.1:1/0"  # nothing listens on port 1


def _start(board, author, title, *, kind=Thread.Kind.DISCUSSION):
    return services.start_thread(board=board, author=author, kind=kind, title=title,
                                 body="第一帖", enforce_rate_limit=False)


def _reply(thread, author, body="顶"):
    return services.reply(thread=thread, author=author, body=body, enforce_rate_limit=False)


def _rows(client, board) -> str:
    response = client.get(board.get_absolute_url())
    assert response.status_code == 200
    html = response.content.decode()
    start = html.index('<ul class="thread-list">')
    return html[start:html.index("</ul>", start)]


def _kept(monkeypatch) -> list[str]:
    """The keys of the rows rendered (not found kept) from now on."""
    made = []
    render = board_rows._render

    def counted(threads, signed_in):
        made.append(signed_in)
        return render(threads, signed_in)

    monkeypatch.setattr(board_rows, "_render", counted)
    return made


def _row(html: str, title: str) -> str:
    """The row of the thread titled `title`."""
    end = html.index(title)
    return html[html.rindex("<li", 0, end):html.index("</li>", end)]


# --- kept, and moved on by the services -------------------------------------------------------

def test_a_page_read_again_is_kept_and_costs_one_query_of_its_threads(client, lobby, alice,
                                                                      bob, monkeypatch):
    for i in range(3):
        _start(lobby, alice, f"帖{i}")
    rendered = _kept(monkeypatch)
    client.force_login(bob)
    first = _rows(client, lobby)
    with CaptureQueriesContext(connection) as queries:
        again = _rows(client, lobby)
    assert rendered == [True] and again == first
    # the session, the user; the page's threads as they are now (the last writers' names,
    # the reader's marks); the header's counts (the board is kept: board_rows.kept_board)
    assert len(queries) == 4, [q["sql"] for q in queries]
    assert sum("messaging_thread" in q["sql"] for q in queries) == 1


def test_a_new_thread_and_a_reply_move_the_version_and_show_at_once(client, lobby, alice,
                                                                    bob, monkeypatch):
    thread = _start(lobby, alice, "第一个")
    rendered = _kept(monkeypatch)
    _rows(client, lobby)
    _start(lobby, alice, "第二个")
    assert "第二个" in _rows(client, lobby)
    _reply(thread, bob)
    html = _rows(client, lobby)
    assert "2 posts" in _row(html, "第一个") and "阿博" in _row(html, "第一个")
    assert html.index("第一个") < html.index("第二个")  # the reply moved it to the top
    assert len(rendered) == 3
    assert "2 posts" in _rows(client, lobby) and len(rendered) == 3  # kept again


def test_a_rename_shows_at_once_on_kept_rows(client, lobby, alice, bob, make_user):
    """Signed in, the names are read on every view, even one changed behind the site's
    back (a visitor's whole page: tests/messaging/test_board_page.py)."""
    from accounts.models import Profile

    client.force_login(bob)
    writer = make_user("旧名字")
    _start(lobby, writer, "帖")
    assert "旧名字" in _rows(client, lobby)
    Profile.objects.filter(user=writer).update(display_name="新名字<b>")
    html = _rows(client, lobby)
    assert "新名字&lt;b&gt;" in html and "旧名字" not in html


# --- each reader's own marks --------------------------------------------------------------------

def test_read_marks_are_each_readers_own(client, lobby, alice, bob, make_user, monkeypatch):
    from accounts.models import Profile

    carol = make_user("小红")
    Profile.objects.filter(user=carol).update(language="en")  # the same kept rows as bob's
    read = _start(lobby, alice, "读过的帖")
    _reply(read, alice)
    _start(lobby, alice, "没读的帖")
    ThreadReadState.objects.create(user=carol, thread=read, last_read_number=1)
    rendered = _kept(monkeypatch)
    seen = {}
    for who in (bob, carol, bob, None, carol):
        client.logout()
        if who is not None:
            client.force_login(who)
        seen.setdefault(who, []).append(_rows(client, lobby))
    assert rendered == [True, False]  # one rendering for the signed-in, one for the others
    for html in seen[bob]:
        assert "2 new" in _row(html, "读过的帖") and "1 new" in _row(html, "没读的帖")
        assert "has-unread" in _row(html, "读过的帖")
    for html in seen[carol]:
        assert "1 new" in _row(html, "读过的帖") and "1 new" in _row(html, "没读的帖")
    assert "new-mark" not in seen[None][0] and "has-unread" not in seen[None][0]
    ThreadReadState.objects.filter(user=carol).update(last_read_number=2)  # carol reads on
    html = _rows(client, lobby)
    assert "new-mark" not in _row(html, "读过的帖") and "has-unread" not in _row(html, "读过的帖")


# --- who sees which rows --------------------------------------------------------------------------

@pytest.fixture
def hidden_board(gm, make_user):
    """A draft game's board (hidden from everyone but its GMs), with a thread."""
    from games.models import Game

    board = services.create_board(slug="draft-1", title="草稿局", kind=Board.Kind.GAME)
    Game.objects.create(name="草稿局", ruleset="toy", board=board, gm=gm,
                        status=Game.Status.DRAFT)
    _start(board, gm, "还没公开的帖")
    return board


def test_a_hidden_boards_rows_never_reach_who_may_not_see_it(client, hidden_board, gm, bob):
    client.force_login(gm)
    assert "还没公开的帖" in _rows(client, hidden_board)  # kept for its GM
    for who in (bob, None):
        client.logout()
        if who is not None:
            client.force_login(who)
        response = client.get(hidden_board.get_absolute_url())
        assert response.status_code == 404 and "还没公开的帖" not in response.content.decode()


def test_a_graveyards_rows_reach_its_watchers_and_gms_only(client, gm, alice, bob, make_user):
    from django.utils import timezone

    from games.models import Game, Watcher

    board = services.create_board(slug="game-9", title="第九局", kind=Board.Kind.GAME)
    grave = services.create_board(slug="grave-game-9", title="墓地", kind=Board.Kind.GAME)
    game = Game.objects.create(name="第九局", ruleset="toy", board=board, graveyard=grave,
                               gm=gm, status=Game.Status.RUNNING)
    Watcher.objects.create(game=game, user=alice, approved_at=timezone.now())
    _start(grave, gm, "墓地的帖")
    _start(grave, gm, "天神的内部帖", kind=Thread.Kind.GM_ONLY)
    client.force_login(gm)
    html = _rows(client, grave)
    assert "墓地的帖" in html and "天神的内部帖" in html
    client.force_login(alice)  # a watcher: the graveyard, never the GM-only thread
    html = _rows(client, grave)
    assert "墓地的帖" in html and "天神的内部帖" not in html
    for who in (bob, None):  # a living player, a visitor
        client.logout()
        if who is not None:
            client.force_login(who)
        response = client.get(grave.get_absolute_url())
        assert response.status_code == 404 and "墓地的帖" not in response.content.decode()


# --- Redis away ---------------------------------------------------------------------------------

def test_with_redis_away_the_rows_are_rendered(client, settings, lobby, alice, bob,
                                               monkeypatch):
    thread = _start(lobby, alice, "断线的帖")
    _reply(thread, alice)
    settings.CACHES = {alias: dict(conf, LOCATION=NOWHERE)
                       for alias, conf in django_settings.CACHES.items()}
    settings.REDIS_URL = NOWHERE
    feed._client.cache_clear()
    try:
        rendered = _kept(monkeypatch)
        client.force_login(bob)
        for _ in range(2):
            html = _rows(client, lobby)
            assert "断线的帖" in html and "2 new" in html and "阿丽" in html
        client.logout()
        assert "断线的帖" in _rows(client, lobby)
        assert len(rendered) == 3  # nothing kept
        assert cache.get("probe") is None
    finally:
        feed._client.cache_clear()
