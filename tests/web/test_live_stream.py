"""The live stream (/live/, config/live_view.py) and its fan-out (config/live.py): a page
hears the objects it names and may read, its reader's own events and nothing else; it
catches up by version when it reconnects; Redis or the database away never breaks it."""

from __future__ import annotations

import asyncio

import orjson
import pytest
from asgiref.sync import sync_to_async
from django.test import AsyncClient

from config import live, live_view
from games import services
from messaging import services as forum
from messaging.models import Board, Thread
from tests.web.live_harness import open_stream, run, send, settle, subscribed

pytestmark = pytest.mark.usefixtures("toy_ruleset")


# --- the fan-out, alone ------------------------------------------------------------------------

def test_parse_keeps_the_four_fields_of_a_feed_event_and_nothing_else():
    raw = orjson.dumps({"t": "game", "id": 7, "v": 93, "what": "phase",
                        "secret": "seat 3 is the wolf"})
    assert live.parse(raw) == {"t": "game", "id": 7, "v": 93, "what": "phase"}
    assert live.parse(b'{"t":"thread","id":42,"v":17}') == {"t": "thread", "id": 42, "v": 17}
    # A word that is not one short lower-case word is dropped, the event kept.
    assert live.parse(b'{"t":"user","id":5,"v":3,"what":"Seat 3 died"}') == {
        "t": "user", "id": 5, "v": 3}
    for bad in (b"not json", b"[1,2]", b'{"t":"seat","id":1,"v":1}',
                b'{"t":"game","id":"7","v":1}', b'{"t":"game","id":0,"v":1}',
                b'{"t":"game","id":7,"v":-1}', b'{"t":"game","id":7,"v":true}',
                b'{"t":"game","id":7}'):
        assert live.parse(bad) is None, bad


def test_the_hub_hands_an_event_to_the_listeners_of_its_key_only():
    async def main():
        hub = live.Hub("redis://127.0.0.1:1/0", "unused")
        game, thread, mine, theirs = (live.Listener([("game", 7)]),
                                      live.Listener([("thread", 42), ("game", 7)]),
                                      live.Listener([("user", 5)]), live.Listener([("user", 6)]))
        for listener in (game, thread, mine, theirs):
            hub.add(listener)
        assert hub.dispatch(b'{"t":"game","id":7,"v":2}') == 2
        assert hub.dispatch(b'{"t":"user","id":5,"v":1,"what":"notices"}') == 1
        assert hub.dispatch(b'{"t":"thread","id":43,"v":1}') == 0
        assert hub.dispatch(b"garbage") == 0
        taken = {name: listener.take() for name, listener in
                 (("game", game), ("thread", thread), ("mine", mine), ("theirs", theirs))}
        hub.remove(thread)
        assert hub.dispatch(b'{"t":"thread","id":42,"v":9}') == 0
        await hub.close()
        return taken, hub.listeners, hub.count

    taken, left, count = run(main)
    assert taken["game"] == [{"t": "game", "id": 7, "v": 2}]
    assert taken["thread"] == [{"t": "game", "id": 7, "v": 2}]
    assert taken["mine"] == [{"t": "user", "id": 5, "v": 1, "what": "notices"}]
    assert taken["theirs"] == []  # another user's event never reaches this page
    assert ("thread", 42) not in left and count == 3


def test_a_slow_page_keeps_only_the_newest_event_of_each_object():
    async def main():
        listener = live.Listener([("thread", 1), ("game", 2)])
        for v in (3, 5, 4):
            listener.offer({"t": "thread", "id": 1, "v": v})
        listener.offer({"t": "game", "id": 2, "v": 1})
        listener.offer({"t": "game", "id": 3, "v": 1})  # not a key of this page
        return await listener.wait(0.1), await listener.wait(0.05)

    first, then = run(main)
    assert first == [{"t": "thread", "id": 1, "v": 5}, {"t": "game", "id": 2, "v": 1}]
    assert then == []


# --- the endpoint ---------------------------------------------------------------------------

def _lobby_thread(author) -> Thread:
    return forum.start_thread(board=forum.lobby_board(), author=author,
                              kind=Thread.Kind.DISCUSSION, title="大厅闲聊", body="大家好")


def _discussion(game, author) -> Thread:
    return forum.start_thread(board=game.board, author=author, kind=Thread.Kind.DISCUSSION,
                              title="分析", body="我觉得三号可疑")


def _client(user=None) -> AsyncClient:
    client = AsyncClient()
    if user is not None:
        client.force_login(user)
    return client


def test_a_page_hears_its_thread_and_game_and_its_reader_hears_their_own_notices(
        game, players, db):
    thread = Thread.objects.filter(board=game.board).first()
    other = _lobby_thread(players[2])
    reader = players[0]

    client = _client(reader)

    async def main():
        stream = await open_stream(client, f"?thread={thread.pk}&game={game.pk}")
        await subscribed()
        send("thread", thread.pk, thread.version + 1)
        send("game", game.pk, game.page_version + 1, "phase")
        send("thread", other.pk, 99)                 # not named by this page
        send("user", reader.pk, 4, "notices")       # the reader's own
        send("user", players[1].pk, 4, "notices")   # someone else's
        await settle()
        await stream.close()
        return stream

    stream = run(main)
    assert stream.text.startswith("retry: ")
    assert stream.events() == [
        {"t": "thread", "id": thread.pk, "v": thread.version + 1},
        {"t": "game", "id": game.pk, "v": game.page_version + 1, "what": "phase"},
        {"t": "user", "id": reader.pk, "v": 4, "what": "notices"}]
    # Each event's id is every version the page has then (the browser's Last-Event-ID).
    assert stream.ids()[-1] == (f"game={game.pk}.{game.page_version + 1}"
                                f"&thread={thread.pk}.{thread.version + 1}&user={reader.pk}.4")


def test_a_user_named_in_the_query_is_ignored(players, db):
    client = _client(players[0])

    async def main():
        stream = await open_stream(client, f"?user={players[1].pk}")
        await subscribed()
        send("user", players[1].pk, 1, "notices")
        send("user", players[0].pk, 1, "notices")
        await settle()
        await stream.close()
        return stream

    assert [e["id"] for e in run(main).events()] == [players[0].pk]


def _gm_only_thread(game, gm) -> Thread:
    return forum.start_thread(board=game.board, author=gm, kind=Thread.Kind.GM_ONLY,
                              title="天神的笔记", body="只有天神能看")


def test_a_player_cannot_follow_the_gm_board_a_gm_only_thread_or_a_draft_game(
        game, players, gm, make_user, db):
    gm_board = services.gm_board(game)
    gm_thread = forum.start_thread(board=gm_board, author=gm, kind=Thread.Kind.DISCUSSION,
                                   title="天神版", body="天神之间")
    hidden = _gm_only_thread(game, gm)
    draft = services.create_game(name="草稿局", ruleset="toy", gm=gm, seat_count=5,
                                 durations={"night": 60, "day": 60})
    public = Thread.objects.filter(board=game.board).exclude(pk=hidden.pk).first()
    query = (f"?thread={gm_thread.pk}&thread={hidden.pk}&board={gm_board.pk}&game={draft.pk}"
             f"&thread={public.pk}")

    async def main(client):
        stream = await open_stream(client, query)
        await subscribed()
        for kind, pk in (("thread", gm_thread.pk), ("thread", hidden.pk),
                         ("board", gm_board.pk), ("game", draft.pk), ("thread", public.pk)):
            send(kind, pk, 50)
        await settle()
        await stream.close()
        return {(e["t"], e["id"]) for e in stream.events()}

    player, anonymous, host = _client(players[0]), _client(), _client(gm)
    assert run(lambda: main(player)) == {("thread", public.pk)}
    assert run(lambda: main(anonymous)) == {("thread", public.pk)}
    # The game's GM reads its GM board and GM-only threads (a draft game has no page at all).
    assert run(lambda: main(host)) == {("thread", gm_thread.pk), ("thread", hidden.pk),
                                     ("board", gm_board.pk), ("thread", public.pk)}


def test_nothing_readable_and_no_session_is_a_204_not_a_stream(game, gm, db):
    hidden = _gm_only_thread(game, gm)

    async def main():
        return (await AsyncClient().get(f"/live/?thread={hidden.pk}"),
                await AsyncClient().get("/live/"),
                await AsyncClient().get("/live/?thread=999999"))

    assert [r.status_code for r in run(main)] == [204, 204, 204]


@pytest.mark.parametrize("query", ["?thread=abc", "?game=1.x", "?thread=0", "?game=-3",
                                   "?thread=１", "?" + "&".join(f"thread={n}" for n in range(1, 10))])
def test_bad_input_is_a_400_with_a_sentence(query, db):
    async def main():
        return await AsyncClient().get(f"/live/{query}")

    response = run(main)
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/plain")
    assert response.content.decode().strip()


def test_under_a_server_that_is_not_asgi_the_stream_is_a_204(client, game):
    response = client.get(f"/live/?game={game.pk}")
    assert response.status_code == 204 and not response.content


def test_a_page_that_reconnects_gets_what_changed_while_it_was_away(game, players, db):
    thread = _discussion(game, players[3])
    seen_thread, seen_game = thread.version, game.page_version
    forum.reply(thread=thread, author=players[0], body="离线时的回复")
    services.end_phase_now(game_id=game.pk, gm=game.gm)
    thread.refresh_from_db()
    game.refresh_from_db()
    assert thread.version > seen_thread and game.page_version > seen_game
    unchanged = Thread.objects.get(pk=_lobby_thread(players[2]).pk)  # its stored version

    client = _client(players[1])

    async def main(query, **headers):
        stream = await open_stream(client, query, **headers)
        await settle(0.3)
        await stream.close()
        return stream.events()

    # The versions the page showed, in its query: one event for each object that moved.
    assert run(lambda: main(f"?thread={thread.pk}.{seen_thread}&game={game.pk}.{seen_game}"
                            f"&thread={unchanged.pk}.{unchanged.version}")) == [
        {"t": "game", "id": game.pk, "v": game.page_version},
        {"t": "thread", "id": thread.pk, "v": thread.version}]
    # The browser's Last-Event-ID (the versions of the last event it got) wins over the
    # query's older versions: nothing newer, nothing sent.
    last = f"game={game.pk}.{game.page_version}&thread={thread.pk}.{thread.version}"
    assert run(lambda: main(f"?thread={thread.pk}.{seen_thread}&game={game.pk}.{seen_game}",
                            **{"Last-Event-ID": last})) == []
    # A page that named no version is not sent anything at connect.
    assert run(lambda: main(f"?thread={thread.pk}&game={game.pk}")) == []


def test_with_redis_down_the_stream_answers_with_heartbeats_and_catches_up(
        game, players, db, settings, monkeypatch):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    monkeypatch.setattr(live_view, "HEARTBEAT_SECONDS", 0.2)
    monkeypatch.setattr(live_view, "READY_SECONDS", 0.2)
    seen = game.page_version
    services.end_phase_now(game_id=game.pk, gm=game.gm)
    game.refresh_from_db()

    client = _client(players[0])

    async def main():
        stream = await open_stream(client, f"?game={game.pk}.{seen}")
        await asyncio.sleep(0.9)
        await stream.close()
        return stream

    stream = run(main)
    assert stream.events() == [{"t": "game", "id": game.pk, "v": game.page_version}]
    assert stream.text.count(": heartbeat") >= 2


def test_with_the_database_down_at_connect_the_answer_is_a_204(game, players, monkeypatch, db):
    from django.db import OperationalError

    def down(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(live_view, "readable", down)

    client = _client(players[0])

    async def main():
        return await client.get(f"/live/?game={game.pk}")

    assert run(main).status_code == 204


def test_the_stream_holds_no_database_connection_while_it_waits(game, players,
                                                                transactional_db):
    """Each open page would otherwise keep a PostgreSQL connection for as long as it is
    open (the worker thread's, with CONN_MAX_AGE)."""
    from django.db import connection

    client = _client(players[0])

    async def main():
        stream = await open_stream(client, f"?game={game.pk}")
        await subscribed()
        await settle(0.2)
        # The view's database work ran in this test's own thread (async_to_sync): ask there.
        held = await sync_to_async(lambda: connection.connection is not None)()
        await stream.close()
        return held

    connection.ensure_connection()
    assert run(main) is False


def test_the_stream_tells_proxies_not_to_buffer_it(game, players, db):
    client = _client(players[0])

    async def main():
        stream = await open_stream(client, f"?game={game.pk}")
        await stream.close()
        return stream.response

    response = run(main)
    assert response["X-Accel-Buffering"] == "no"
    assert "no-cache" in response["Cache-Control"]


# --- the parts a live page fetches --------------------------------------------------------------

def test_new_posts_are_the_posts_after_a_number_for_a_reader_who_may_read_them(
        game, players, gm, client):
    thread = _discussion(game, players[3])
    last = thread.last_number
    for n in range(3):
        forum.reply(thread=thread, author=players[n], body=f"第{n}条新回复")
    client.force_login(players[3])
    response = client.get(f"/t/{thread.pk}/since/?after={last}")
    html = response.content.decode()
    thread.refresh_from_db()
    assert response.status_code == 200
    assert f'data-count="3" data-version="{thread.version}"' in html
    assert [f"第{n}条新回复" in html for n in range(3)] == [True] * 3
    assert f'id="p{last}"' not in html
    assert 'data-count="0"' in client.get(f"/t/{thread.pk}/since/?after={last + 3}").content.decode()
    hidden = _gm_only_thread(game, gm)
    assert client.get(f"/t/{hidden.pk}/since/?after=0").status_code == 404
    assert client.get(f"/t/{thread.pk}/since/?after=x").status_code == 400
    assert client.get(f"/t/{thread.pk}/since/").status_code == 400


def test_header_counts_are_the_readers_own(players, client, db):
    from messaging import notifications

    notifications.notify(user=players[0], kind=notifications.Kind.MENTION, actor=players[1],
                         url="/")
    assert client.get("/notifications/counts/").json() == {"messages": 0, "notices": 0}
    client.force_login(players[0])
    assert client.get("/notifications/counts/").json()["notices"] == 1
    client.force_login(players[1])
    assert client.get("/notifications/counts/").json()["notices"] == 0


def test_the_board_of_a_page_may_be_followed_too(game, players, db):
    board = Board.objects.get(pk=game.board_id)

    client = _client(players[0])

    async def main():
        stream = await open_stream(client, f"?board={board.pk}")
        await subscribed()
        send("board", board.pk, board.version + 1)
        await settle()
        await stream.close()
        return stream.events()

    assert run(main) == [{"t": "board", "id": board.pk, "v": board.version + 1}]


def test_a_change_of_what_the_reader_may_read_ends_their_stream(game, players, db):
    """A seat alive again stops watching (games.services.watching.end_watching): its
    reader's "access" event ends every stream of theirs, so the browser reconnects and is
    checked again; an event for someone else ends nothing, and nothing after it is sent."""
    thread = Thread.objects.filter(board=game.board).first()
    reader = players[0]
    client = _client(reader)

    async def main():
        stream = await open_stream(client, f"?thread={thread.pk}")
        await subscribed()
        send("user", players[1].pk, 0, "access")     # someone else's: nothing happens
        send("thread", thread.pk, thread.version + 1)
        await settle()
        before = stream.events()
        send("user", reader.pk, 0, "access")
        await asyncio.wait({stream.task}, timeout=5)  # the stream ends by itself
        ended = stream.task.done()
        send("thread", thread.pk, thread.version + 2)
        await settle()
        await stream.close()
        return before, ended, stream.events()

    before, ended, after = run(main)
    assert before == [{"t": "thread", "id": thread.pk, "v": thread.version + 1}]
    assert ended
    assert after == before  # the access event itself is never sent on, nor anything later
