"""The live stream (/live/, config/live_view.py) and its fan-out (config/live.py): a page
hears the objects its subscription token names (config/live_token.py: minted by the page
that showed them), its reader's own events and nothing else; opening a stream costs no
database work; a bad token is a 403; a change of the reader's rights makes their old tokens
worthless; attempts beyond the process's rate are told to come back; a page catches up by
version when it reconnects; Redis away never breaks it."""

from __future__ import annotations

import asyncio
import time

import orjson
import pytest
from asgiref.sync import sync_to_async
from django.core import signing
from django.urls import reverse

from config import feed, live, live_token, live_view
from games import services
from messaging import services as forum
from messaging.models import Board, Thread
from tests.factories.toy import night_kill, open_to_outsiders
from tests.web.live_harness import Reader, connect, open_stream, run, send, settle, subscribed

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


def _gm_only_thread(game, gm) -> Thread:
    return forum.start_thread(board=game.board, author=gm, kind=Thread.Kind.GM_ONLY,
                              title="天神的笔记", body="只有天神能看")


def test_a_page_hears_its_thread_and_game_and_its_reader_hears_their_own_notices(
        game, players, db):
    thread = Thread.objects.filter(board=game.board).first()
    other = _lobby_thread(players[2])
    reader = Reader(players[0])
    query = reader.query(reader.token(("thread", thread.pk), ("game", game.pk)),
                         f"thread={thread.pk}", f"game={game.pk}")

    async def main():
        stream = await open_stream(query, reader)
        await subscribed()
        send("thread", thread.pk, thread.version + 1)
        send("game", game.pk, game.page_version + 1, "phase")
        send("thread", other.pk, 99)                 # not named by this page
        send("user", players[0].pk, 4, "notices")   # the reader's own
        send("user", players[1].pk, 4, "notices")   # someone else's
        await settle()
        await stream.close()
        return stream

    stream = run(main)
    assert stream.text.startswith("retry: ")
    assert stream.events() == [
        {"t": "thread", "id": thread.pk, "v": thread.version + 1},
        {"t": "game", "id": game.pk, "v": game.page_version + 1, "what": "phase"},
        {"t": "user", "id": players[0].pk, "v": 4, "what": "notices"}]
    # Each event's id is every version the page has then (the browser's Last-Event-ID).
    assert stream.ids()[-1] == (f"game={game.pk}.{game.page_version + 1}"
                                f"&thread={thread.pk}.{thread.version + 1}"
                                f"&user={players[0].pk}.4")


def test_a_user_named_in_the_query_is_ignored(players, db):
    reader = Reader(players[0])
    query = reader.query(reader.token(), f"user={players[1].pk}")

    async def main():
        stream = await open_stream(query, reader)
        await subscribed()
        send("user", players[1].pk, 1, "notices")
        send("user", players[0].pk, 1, "notices")
        await settle()
        await stream.close()
        return stream

    assert [e["id"] for e in run(main).events()] == [players[0].pk]


def test_each_page_gives_its_script_a_token_for_what_it_shows_and_its_reader(
        game, players, gm, db):
    """The token is minted from the page's own markers (`{% live %}`), after its view
    decided the reader may read them; it opens exactly those, and the reader's events."""
    thread = _discussion(game, players[3])
    reader, anonymous = Reader(players[0]), Reader()
    thread_page = reader.page(thread.get_absolute_url())
    home = reader.page(reverse("game-home", args=[game.pk]))
    assert thread_page["status"] == home["status"] == 200
    assert thread_page["channels"] == f"thread={thread.pk}"
    assert home["channels"] == f"game={game.pk}"
    grant = live_token.check(home["token"], session_key=reader.session_key)
    assert grant.channels == {("game", game.pk)} and grant.user_id == players[0].pk
    outside = anonymous.page(thread.get_absolute_url())
    assert live_token.check(outside["token"], session_key=None).user_id is None
    # A page that follows nothing, for a reader not signed in: no token, no stream.
    assert anonymous.page(reverse("lobby"))["token"] is None
    assert reader.page(reverse("lobby"))["token"]  # the reader's own events

    async def main():
        stream = await open_stream(reader.query(thread_page["token"], f"thread={thread.pk}"),
                                   reader)
        await subscribed()
        send("thread", thread.pk, thread.version + 1)
        await settle()
        await stream.close()
        return stream.events()

    assert run(main) == [{"t": "thread", "id": thread.pk, "v": thread.version + 1}]


def test_opening_a_stream_costs_no_database_work(game, players, django_assert_num_queries,
                                                 monkeypatch, db):
    """No query and no connection in any thread, from the request to the catch-up and the
    first events: the token is checked without the database (a reconnect storm of 1,000
    pages once opened 956 PostgreSQL connections)."""
    from django.db.backends.base.base import BaseDatabaseWrapper
    from django.db.backends.signals import connection_created

    thread = Thread.objects.filter(board=game.board).first()
    reader = Reader(players[0])
    query = reader.query(reader.token(("thread", thread.pk), ("game", game.pk)),
                         f"thread={thread.pk}.{thread.version}", f"game={game.pk}")
    send("thread", thread.pk, thread.version + 1)   # kept by the feed: a catch-up at connect
    touched = []
    real_cursor = BaseDatabaseWrapper.cursor

    def cursor(self):
        touched.append("cursor")
        return real_cursor(self)

    monkeypatch.setattr(BaseDatabaseWrapper, "cursor", cursor)

    def opened(sender, connection, **kwargs):
        touched.append("connection")

    connection_created.connect(opened)

    async def main():
        stream = await open_stream(query, reader, **{"Last-Event-ID": ""})
        await subscribed()
        send("user", players[0].pk, 2, "notices")
        await settle()
        await stream.close()
        return stream.events()

    try:
        with django_assert_num_queries(0):
            events = run(main)
    finally:
        connection_created.disconnect(opened)
    assert touched == []
    assert events == [{"t": "thread", "id": thread.pk, "v": thread.version + 1},
                      {"t": "user", "id": players[0].pk, "v": 2, "what": "notices"}]


def test_a_forged_expired_or_foreign_token_is_a_403_with_nothing_streamed(
        game, players, monkeypatch, db):
    thread = Thread.objects.filter(board=game.board).first()
    reader, other, anonymous = Reader(players[0]), Reader(players[1]), Reader()
    token = reader.token(("thread", thread.pk))
    body, stamp, signature = token.rsplit(":", 2)
    forged = [
        "", "not-a-token",
        f"{body}:{stamp}:{signature[:-2]}xx",                       # the signature altered
        signing.dumps({"c": f"thread={thread.pk}", "u": 0, "s": "", "a": 0},
                      salt="another.salt"),                         # signed for something else
        signing.dumps({"c": f"thread={thread.pk}&game={game.pk}", "u": 0, "s": "", "a": 0},
                      key="not the site's key", salt=live_token.SALT),
    ]
    monkeypatch.setattr(signing.TimestampSigner, "timestamp", lambda self: signing.b62_encode(
        int(time.time()) - live_token.TOKEN_SECONDS - 1))
    expired = reader.token(("thread", thread.pk))
    monkeypatch.undo()
    cases = [(t, reader, "forged") for t in forged] + [
        (expired, reader, "expired"),
        (token, other, "foreign"),        # another browser's session
        (token, anonymous, "foreign"),    # no session: signed out since
    ]

    async def main():
        answers = []
        for value, who, _why in cases:
            stream = await connect(who.query(value, f"thread={thread.pk}"), who)
            await asyncio.wait_for(stream.ended.wait(), 5)
            answers.append((stream.status, stream.text))
        return answers

    answers = run(main)
    assert answers == [(403, f"403 {why}\n") for _t, _w, why in cases]


def test_an_object_the_token_does_not_name_is_refused(game, players, gm, db):
    thread = Thread.objects.filter(board=game.board).first()
    hidden = _gm_only_thread(game, gm)
    reader = Reader(players[0])
    token = reader.token(("thread", thread.pk))

    async def main():
        answers = []
        for objects in ([f"thread={hidden.pk}"], [f"thread={thread.pk}", f"game={game.pk}"],
                        [f"board={game.board_id}"]):
            stream = await connect(reader.query(token, *objects), reader)
            await asyncio.wait_for(stream.ended.wait(), 5)
            answers.append((stream.status, stream.text))
        return answers

    assert run(main) == [(403, "403 not in the token\n")] * 3


def test_a_revived_watchers_old_token_no_longer_opens_the_graveyard(
        game, players, gm, django_capture_on_commit_callbacks, db):
    """Revival revokes (docs/community.md): the GM's undo makes a dead watcher alive again;
    games.services.kernel.access_changed's event gives the reader a new access version
    (config/feed.py) and ends their streams with `renew`. The old token, which named the
    graveyard's thread, opens nothing any more (its page must load again, and the
    graveyard's pages refuse them now)."""
    from django.db import transaction

    from games.services.kernel import lock_game
    from games.services.watching import end_watching

    game = open_to_outsiders(night_kill(game))
    dead = game.seats.get(alive=False).user
    services.watch(game_id=game.pk, user=dead)
    game.refresh_from_db()
    grave = forum.start_thread(board=game.graveyard, author=dead, kind=Thread.Kind.DISCUSSION,
                               title="墓地闲聊", body="我是被刀的", enforce_rate_limit=False)
    reader = Reader(dead)
    page = reader.page(grave.get_absolute_url())
    assert page["status"] == 200 and page["channels"] == f"thread={grave.pk}"
    query = reader.query(page["token"], f"thread={grave.pk}.{grave.version}")

    def revive():
        with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
            end_watching(lock_game(game.pk), [dead.pk])

    async def main():
        stream = await open_stream(query, reader)
        await subscribed()
        send("thread", grave.pk, grave.version + 1)
        await settle(0.2)
        await sync_to_async(revive)()
        await asyncio.wait_for(stream.ended.wait(), 5)  # ended by the access event
        send("thread", grave.pk, grave.version + 2)
        again = await connect(query, reader)            # the browser's own reconnect
        await asyncio.wait_for(again.ended.wait(), 5)
        return stream, again

    stream, again = run(main)
    assert stream.events() == [{"t": "thread", "id": grave.pk, "v": grave.version + 1}]
    assert stream.text.endswith(live.RENEW.decode())
    assert (again.status, again.text) == (403, "403 access changed\n")
    # The page itself, loaded again for a new token, refuses them.
    assert reader.page(grave.get_absolute_url())["status"] == 404


def test_a_stream_ends_with_renew_when_its_token_runs_out(game, players, monkeypatch, db):
    monkeypatch.setattr(live_token, "TOKEN_SECONDS", 1)
    reader = Reader(players[0])
    query = reader.query(reader.token(("game", game.pk)), f"game={game.pk}")

    async def main():
        stream = await open_stream(query, reader)
        await asyncio.wait_for(stream.ended.wait(), 5)
        return stream.text

    assert run(main).endswith(live.RENEW.decode())


@pytest.mark.parametrize("query", ["?thread=abc", "?game=1.x", "?thread=0", "?game=-3",
                                   "?thread=１", "?" + "&".join(f"thread={n}" for n in range(1, 10))])
def test_bad_input_is_a_400_with_a_sentence(query, db):
    async def main():
        stream = await connect(query)
        await asyncio.wait_for(stream.ended.wait(), 5)
        return stream

    stream = run(main)
    assert stream.status == 400
    assert stream.headers["content-type"].startswith("text/plain")
    assert stream.text.strip()


def test_under_a_server_that_is_not_asgi_the_stream_is_a_204(client, game):
    response = client.get(f"/live/?game={game.pk}")
    assert response.status_code == 204 and not response.content


def test_the_asgi_application_serves_live_before_the_middleware():
    from config import asgi

    assert isinstance(asgi.application, live_view.LiveASGIHandler)


# --- admission --------------------------------------------------------------------------------

class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_admission_lets_in_a_burst_then_its_rate_and_spreads_the_refused():
    clock = _Clock()
    gate = live_view.Admission(rate=10, burst=5, per_address=1000, address_burst=1000,
                               clock=clock)
    waits = [gate.admit(f"10.0.0.{n}") for n in range(25)]
    assert waits[:5] == [0] * 5
    refused = waits[5:]
    assert all(w > 0 for w in refused)
    # Each refused attempt gets the next slot at the rate (0.1 s apart), plus 0.5-1.5 s of
    # jitter: the crowd comes back spread over the 2 s the process needs to let it in.
    for n, wait in enumerate(refused, start=1):
        assert n / 10 + 0.5 <= wait <= n / 10 + 1.5
    assert len({round(w, 9) for w in refused}) == len(refused)  # jittered, not in step
    clock.now += 0.5  # five tokens back
    assert [gate.admit("10.0.1.1") == 0 for _ in range(6)] == [True] * 5 + [False]


def test_a_flood_from_one_address_is_refused_at_its_rate_not_by_exhausting_anything():
    clock = _Clock()
    gate = live_view.Admission(rate=1000, burst=1000, per_address=2, address_burst=4,
                               kept=100, clock=clock)
    admitted = 0
    for _ in range(10_000):  # 10 s of 1,000 attempts a second from one address
        clock.now += 0.001
        admitted += gate.admit("203.0.113.9") == 0
    assert 4 + 2 * 10 - 1 <= admitted <= 4 + 2 * 10  # its burst, then 2 a second
    assert gate.admit("198.51.100.1") == 0  # everyone else is let in meanwhile
    wait = gate.admit("203.0.113.9")
    assert 0.5 <= wait <= 2.0  # told to come back when its next token is there, jittered
    for n in range(1000):  # many addresses: a bounded table, never more
        gate.admit(f"10.1.{n // 250}.{n % 250}")
    assert len(gate.addresses) == 100


def test_beyond_the_rate_a_connect_is_told_to_come_back_never_a_204(game, monkeypatch, db):
    monkeypatch.setattr(live_view, "CONNECTS_BURST", 2)
    monkeypatch.setattr(live_view, "CONNECTS_PER_SECOND", 0.5)
    reader = Reader()
    query = reader.query(reader.token(("game", game.pk)), f"game={game.pk}")

    async def main():
        streams = [await connect(query, reader) for _ in range(3)]
        await asyncio.wait_for(streams[2].ended.wait(), 5)
        refused = streams[2]
        for stream in streams:
            await stream.close()
        return [s.status for s in streams], refused

    statuses, refused = run(main)
    assert statuses == [200, 200, 200]
    retry = int(refused.text.split("\n", 1)[0].removeprefix("retry: "))
    # The browser's EventSource comes back after `retry` ms by itself: 2 s apart at 0.5 a
    # second, with up to 1.5 s of jitter; nothing else on the stream, which ends.
    assert 2500 <= retry <= 3500, retry
    assert refused.text == f"retry: {retry}\n: busy\n\n"
    assert refused.headers["retry-after"] == str(-(-retry // 1000))
    assert refused.ended.is_set()


# --- catching up ------------------------------------------------------------------------------

def test_a_page_that_reconnects_gets_what_changed_while_it_was_away(
        game, players, django_capture_on_commit_callbacks, db):
    """What the services committed (and the feed published and kept) while the page was
    away reaches it at connect, read from Redis, not from the database."""
    thread = _discussion(game, players[3])
    seen_thread, seen_game = thread.version, game.page_version
    with django_capture_on_commit_callbacks(execute=True):
        forum.reply(thread=thread, author=players[0], body="离线时的回复")
    with django_capture_on_commit_callbacks(execute=True):
        services.end_phase_now(game_id=game.pk, gm=game.gm)
    thread.refresh_from_db()
    game.refresh_from_db()
    assert thread.version > seen_thread and game.page_version > seen_game
    unchanged = _lobby_thread(players[2])
    reader = Reader(players[1])
    token = reader.token(("thread", thread.pk), ("game", game.pk), ("thread", unchanged.pk))

    def main(*objects, **headers):
        async def go():
            stream = await open_stream(reader.query(token, *objects), reader, **headers)
            await settle(0.3)
            await stream.close()
            return stream.events()
        return run(go)

    # The versions the page showed, in its query: one event for each object that moved.
    assert main(f"thread={thread.pk}.{seen_thread}", f"game={game.pk}.{seen_game}",
                f"thread={unchanged.pk}.{unchanged.version}") == [
        {"t": "game", "id": game.pk, "v": game.page_version},
        {"t": "thread", "id": thread.pk, "v": thread.version}]
    # The browser's Last-Event-ID (the versions of the last event it got) wins over the
    # query's older versions: nothing newer, nothing sent.
    last = f"game={game.pk}.{game.page_version}&thread={thread.pk}.{thread.version}"
    assert main(f"thread={thread.pk}.{seen_thread}", f"game={game.pk}.{seen_game}",
                **{"Last-Event-ID": last}) == []
    # A page that named no version is not sent anything at connect.
    assert main(f"thread={thread.pk}", f"game={game.pk}") == []


def test_the_feed_keeps_each_objects_newest_version_and_a_new_access_version_per_change(db):
    import redis
    from django.conf import settings

    client = redis.Redis.from_url(settings.REDIS_URL)
    send("thread", 42, 7)
    send("thread", 42, 5)  # a writer that published late: the newer version stays
    send("user", 5, 3, "notices")
    send("user", 5, 1, "notices")  # a count goes down too: the last one stays
    assert client.get(feed.version_key("thread", 42)) == b"7"
    assert client.get(feed.version_key("user", 5)) == b"1"
    assert 0 < client.ttl(feed.version_key("thread", 42)) <= feed.VERSION_SECONDS
    assert feed.VERSION_SECONDS > live_token.TOKEN_SECONDS  # a page that may connect finds it
    first = live_token.access_version(5)
    assert first and live_token.access_version(5) == first
    send("user", 5, 0, "access")
    second = live_token.access_version(5)
    assert second != first and client.get(feed.version_key("user", 5)) == b"1"


# --- Redis away ---------------------------------------------------------------------------------

def test_with_redis_down_a_signed_in_page_is_told_to_come_back_and_an_open_one_beats(
        game, players, db, settings, monkeypatch):
    monkeypatch.setattr(live_view, "HEARTBEAT_SECONDS", 0.2)
    monkeypatch.setattr(live_view, "READY_SECONDS", 0.2)
    reader, anonymous = Reader(players[0]), Reader()
    mine = reader.query(reader.token(("game", game.pk)), f"game={game.pk}.0")
    theirs = anonymous.query(anonymous.token(("game", game.pk)), f"game={game.pk}.0")
    settings.REDIS_URL = "redis://127.0.0.1:1/0"

    async def main():
        refused = await connect(mine, reader)
        await asyncio.wait_for(refused.ended.wait(), 5)
        stream = await open_stream(theirs, anonymous)
        await asyncio.sleep(0.9)
        await stream.close()
        return refused, stream

    refused, stream = run(main)
    assert refused.status == 200 and ": busy" in refused.text  # never a 204, never a 500
    retry = int(refused.text.split("\n", 1)[0].removeprefix("retry: "))
    assert 10_000 <= retry <= 20_000
    assert stream.events() == [] and stream.text.count(": heartbeat") >= 2


def test_the_stream_tells_proxies_not_to_buffer_it(game, players, db):
    reader = Reader(players[0])
    query = reader.query(reader.token(("game", game.pk)), f"game={game.pk}")

    async def main():
        stream = await open_stream(query, reader)
        await stream.close()
        return stream.headers

    headers = run(main)
    assert headers["x-accel-buffering"] == "no"
    assert "no-cache" in headers["cache-control"]


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
    reader = Reader(players[0])
    query = reader.query(reader.token(("board", board.pk)), f"board={board.pk}")

    async def main():
        stream = await open_stream(query, reader)
        await subscribed()
        send("board", board.pk, board.version + 1)
        await settle()
        await stream.close()
        return stream.events()

    assert run(main) == [{"t": "board", "id": board.pk, "v": board.version + 1}]


def test_a_change_of_what_the_reader_may_read_ends_their_stream(game, players, db):
    """A seat alive again stops watching (games.services.watching.end_watching): its
    reader's "access" event ends every stream of theirs with `renew` (the script loads its
    page again for a new token); an event for someone else ends nothing, and nothing after
    it is sent."""
    thread = Thread.objects.filter(board=game.board).first()
    reader = Reader(players[0])
    query = reader.query(reader.token(("thread", thread.pk)), f"thread={thread.pk}")

    async def main():
        stream = await open_stream(query, reader)
        await subscribed()
        send("user", players[1].pk, 0, "access")     # someone else's: nothing happens
        send("thread", thread.pk, thread.version + 1)
        await settle()
        before = stream.events()
        send("user", players[0].pk, 0, "access")
        await asyncio.wait_for(stream.ended.wait(), 5)  # the stream ends by itself
        send("thread", thread.pk, thread.version + 2)
        await settle()
        await stream.close()
        return before, stream

    before, stream = run(main)
    assert before == [{"t": "thread", "id": thread.pk, "v": thread.version + 1}]
    assert stream.events() == before  # the access event itself is never sent on, nor after
    assert stream.text.endswith(live.RENEW.decode())
