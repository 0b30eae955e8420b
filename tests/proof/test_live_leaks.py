"""The leak side of the live feed: at a few moments of a game, every kind of viewer opens
every page of the site (each thread, board and game, a game's act and watch pages; the GM's
board, a GM-only thread, a draft game among them) and takes the subscription token each
page gives its live script (config/live_token.py). Then:
- every object a token names is one whose own page that viewer may open (a 200);
- a stream asking for anything its token does not name is refused (403), whatever it asks;
- with every object and every user of the site given an event, the viewer's streams hear
  exactly the objects their tokens name and their own `user`, never anyone else's.
Events carry no content (config/live.parse keeps four fields), so an event for an object
one may not see is the only thing the feed could leak.
"""

from __future__ import annotations

import asyncio
import itertools

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from games import services
from games.models import Game
from messaging import services as forum
from messaging.models import Board, Thread
from tests.factories import toy as toy_play
from tests.web.live_harness import Reader, connect, open_stream, run, send, subscribed

pytestmark = pytest.mark.usefixtures("toy_ruleset")

PER_STREAM = 8  # live_view.MAX_OBJECTS
# Each round's events are newer than the last round's (the feed keeps the newest version,
# and a stream takes what it kept as what its page has: only newer news is sent on).
_rounds = itertools.count(10_000, 1_000)


def _objects() -> list[tuple[str, int, str]]:
    """(kind, id, page) of every object of the site."""
    found = [("thread", t.pk, t.get_absolute_url()) for t in Thread.objects.all()]
    found += [("board", b.pk, b.get_absolute_url()) for b in Board.objects.all()]
    found += [("game", g.pk, reverse("game-home", args=[g.pk])) for g in Game.objects.all()]
    return found


def _other_pages() -> list[str]:
    """The pages that follow a game without being its home: its act and watch pages."""
    return [reverse(name, args=[pk]) for pk in Game.objects.values_list("pk", flat=True)
            for name in ("game-act", "game-watch")]


def _tokens(reader: Reader, objects) -> tuple[set[tuple[str, int]], dict[str, str]]:
    """What `reader` may open (the objects whose own page answers 200) and the tokens the
    pages give it ({channels text: token}, one per distinct set of objects)."""
    may, tokens = set(), {}
    pages = [(kind, pk, page) for kind, pk, page in objects] + [
        (None, None, page) for page in _other_pages()]
    for kind, pk, page in pages:
        got = reader.page(page)
        if kind is not None and got["status"] == 200:
            may.add((kind, pk))
        if got["token"]:
            tokens.setdefault(got["channels"], got["token"])
    return may, tokens


def _heard(reader: Reader, objects, tokens: dict[str, str]):
    """What `reader`'s streams hear, each opened with a token and the objects it names,
    when every object and every user of the site gets an event; and what each token's
    stream answered when it asked for every object of the site instead."""
    users = list(get_user_model().objects.values_list("pk", flat=True))
    everything = [f"{kind}={pk}" for kind, pk, _page in objects]
    chunks = [everything[n:n + PER_STREAM] for n in range(0, len(everything), PER_STREAM)]

    async def main():
        greedy = set()
        for channels, token in tokens.items():
            for chunk in chunks:
                stream = await connect(reader.query(token, *chunk), reader)
                await asyncio.wait_for(stream.ended.wait(), 5)
                named = set(channels.split("&")) if channels else set()
                greedy.add((stream.status, set(chunk) <= named))
        streams, lasts = [], []
        for channels, token in tokens.items():
            named = channels.split("&") if channels else []
            streams.append(await open_stream(reader.query(token, *named), reader))
            # A key the stream listens to: its reader's own, or the first object it names
            # (a stream for nobody names one, or it would not open).
            if reader.user is not None:
                lasts.append(("user", reader.user.pk))
            else:
                kind, _eq, pk = named[0].partition("=")
                lasts.append((kind, int(pk)))
        if not streams:
            return greedy, set()
        await subscribed()
        version = next(_rounds)
        for kind, pk, _page in objects:
            send(kind, pk, version, "phase")
        for pk in users:
            send("user", pk, version, "notices")
        # Then each stream's last event, on a key of its own: a stream that has it has been
        # given every event sent before it (one feed, read and handed on in order). The wait
        # is on that, the timeout only for a stream that never gets it.
        last = next(_rounds)
        for kind, pk in dict.fromkeys(lasts):
            send(kind, pk, last, "last")

        async def every_stream_has_its_last():
            while not all({"t": kind, "id": pk, "v": last, "what": "last"} in stream.events()
                          for stream, (kind, pk) in zip(streams, lasts, strict=True)):
                await asyncio.sleep(0.01)

        await asyncio.wait_for(every_stream_has_its_last(), 10)
        heard = set()
        for stream in streams:
            await stream.close()
            heard |= {(e["t"], e["id"]) for e in stream.events()}
        return greedy, heard

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
        reader = Reader(user)
        may, tokens = _tokens(reader, objects)
        named = {(kind, int(pk)) for channels in tokens for part in channels.split("&") if part
                 for kind, _eq, pk in [part.partition("=")]}
        assert named <= may, (moment, name, sorted(named - may))
        own = {("user", user.pk)} if user is not None else set()
        greedy, heard = _heard(reader, objects, tokens)
        # Asking beyond the token is a 403; asking within it opens the stream.
        assert greedy <= {(403, False), (200, True)}, (moment, name, greedy)
        assert heard == named | own, (moment, name, sorted(heard ^ (named | own)))


@pytest.mark.slow(seconds=40)
def test_every_viewer_hears_exactly_what_its_pages_show_it_at_each_moment(
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
