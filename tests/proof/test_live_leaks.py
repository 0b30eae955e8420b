"""The leak side of the live feed: at a few moments of a game, every kind of viewer connected
to /live/ asking for EVERY object there is (each thread, board and game of the site, the
GM's board, a GM-only thread, a draft game) hears an event exactly for the objects whose
page that viewer may open (read from the pages themselves: a 200), and for their own
`user`, never for anyone else's. Events carry no content (config/live.parse keeps four
fields), so an event for an object one may not see is the only thing the feed could leak.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import AsyncClient, Client
from django.urls import reverse

from games import services
from games.models import Game
from messaging import services as forum
from messaging.models import Board, Thread
from tests.factories import toy as toy_play
from tests.web.live_harness import Stream, run, send, settle, subscribed

pytestmark = pytest.mark.usefixtures("toy_ruleset")

PER_STREAM = 8  # live_view.MAX_OBJECTS


def _objects() -> list[tuple[str, int, str]]:
    """(kind, id, page) of every object of the site."""
    found = [("thread", t.pk, t.get_absolute_url()) for t in Thread.objects.all()]
    found += [("board", b.pk, b.get_absolute_url()) for b in Board.objects.all()]
    found += [("game", g.pk, reverse("game-home", args=[g.pk])) for g in Game.objects.all()]
    return found


def _may_open(user, page: str) -> bool:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client.get(page).status_code == 200


def _heard(user, objects) -> set[tuple[str, int]]:
    """What `user`'s pages hear when they ask for every object in `objects` and every object
    and every user of the site gets an event."""
    chunks = [objects[n:n + PER_STREAM] for n in range(0, len(objects), PER_STREAM)]
    clients = []
    for _ in chunks:
        client = AsyncClient()
        if user is not None:
            client.force_login(user)
        clients.append(client)
    users = list(get_user_model().objects.values_list("pk", flat=True))

    async def main():
        streams = []
        for client, chunk in zip(clients, chunks, strict=True):
            query = "&".join(f"{kind}={pk}" for kind, pk, _page in chunk)
            response = await client.get(f"/live/?{query}")
            if response.status_code == 204:
                continue  # nothing it asked for may be read, and no session
            assert response.status_code == 200, response.status_code
            streams.append(await Stream(response).start())
        if not streams:
            return set()
        await subscribed()
        for kind, pk, _page in objects:
            send(kind, pk, 10_000, "phase")
        for pk in users:
            send("user", pk, 10_000, "notices")
        await settle(0.5)
        heard = set()
        for stream in streams:
            await stream.close()
            heard |= {(e["t"], e["id"]) for e in stream.events()}
        return heard

    return run(main)


def _viewers(game, make_user):
    """Anonymous, a signed-in spectator, the GM, the wolf, the villager the wolf kills at
    night (`toy_play.night_kill`: the first other seat) and a villager who lives."""
    wolf = toy_play.wolf_seat(game)
    others = [s.user for s in game.seats.order_by("number") if s.number != wolf]
    return [("anonymous", None), ("spectator", make_user("旁观者")), ("gm", game.gm),
            ("wolf", toy_play.seat_user(game, "wolf")), ("killed at night", others[0]),
            ("villager", others[-1])]


def _check_moment(moment: str, viewers) -> None:
    objects = _objects()
    assert len(objects) >= 6
    for name, user in viewers:
        may = {(kind, pk) for kind, pk, page in objects if _may_open(user, page)}
        own = {("user", user.pk)} if user is not None else set()
        heard = _heard(user, objects)
        assert heard == may | own, (moment, name, sorted(heard ^ (may | own)))


@pytest.mark.slow(seconds=20)
def test_every_viewer_hears_exactly_what_they_may_open_at_each_moment(
        game, players, gm, make_user, db):
    # Besides the game: a lobby thread, the GM board with a thread, a GM-only thread on the
    # game's board and a draft game (whose board nobody but its GM may read, whose page
    # nobody may open).
    forum.start_thread(board=forum.lobby_board(), author=players[0], kind=Thread.Kind.DISCUSSION,
                       title="大厅", body="大家好")
    forum.start_thread(board=services.gm_board(game), author=gm, kind=Thread.Kind.DISCUSSION,
                       title="天神版", body="天神之间的话")
    forum.start_thread(board=game.board, author=gm, kind=Thread.Kind.GM_ONLY,
                       title="天神的笔记", body="只有天神能看")
    services.create_game(name="草稿局", ruleset="toy", gm=gm, seat_count=5,
                         durations={"night": 60, "day": 60})
    viewers = _viewers(game, make_user)
    _check_moment("night 1", viewers)
    toy_play.night_kill(game)  # a seat dies; the day's vote thread opens
    _check_moment("day 1", viewers)
    # The day: every living seat votes the wolf out (the wolf votes for another): it ends.
    game = Game.objects.get(pk=game.pk)
    wolf = toy_play.wolf_seat(game)
    for seat in game.seats.filter(alive=True).order_by("number"):
        target = wolf if seat.number != wolf else next(
            s.number for s in game.seats.filter(alive=True) if s.number != wolf)
        services.submit_action(game_id=game.pk, user=seat.user, kind="vote",
                               params={"target": target})
    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED
    _check_moment("game over", viewers)
