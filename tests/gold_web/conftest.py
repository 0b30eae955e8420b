"""A 谁偷了我的金币 game run through games.services, with named players and small helpers.

The tests read `game.state["secret"]` (the truth) only to decide what to play and what must
not leak; every check of what a player sees goes through a page or a message.
"""

from __future__ import annotations

import datetime as dt
import itertools

import pytest
from django.utils import timezone

from games import services
from games.engine.gold.rules import CARDS, Gold, judge
from games.models import Game

T0 = dt.datetime(2025, 3, 1, 12, 0, tzinfo=dt.UTC)
DURATIONS = {"pick": 60, "priority": 30, "operation": 30}
NAMES = ["金子", "银子", "铜子"]


@pytest.fixture
def gold_players(make_user):
    return [make_user(name) for name in NAMES]


@pytest.fixture
def gold_gm(make_user):
    return make_user("金主", staff=True)


@pytest.fixture
def start_gold(gold_players, gold_gm):
    """start_gold(seed=..., lead=0, players=3) -> a running gold game (started at T0)."""

    def start(*, seed: str = "gold-web-1", lead: int | None = 0, players: int = 3,
              users=None) -> Game:
        users = users or gold_players[:players]
        g = services.create_game(name="金币局", ruleset="gold", gm=gold_gm, seat_count=players,
                                 config={"lead": lead}, durations=dict(DURATIONS))
        return services.start_game(game_id=g.pk, users=users, seed=seed, now=T0)

    return start


def fresh(game: Game) -> Game:
    game.refresh_from_db()
    return game


def user_of(game: Game, number: int):
    return game.seats.get(number=number).user


def act(game: Game, number: int, kind: str, now: dt.datetime | None = None, **params):
    """Seat `number` submits a step through the service, just before the current deadline."""
    game = fresh(game)
    when = now or (game.deadline - dt.timedelta(minutes=20) if game.deadline else timezone.now())
    return services.submit_action(game_id=game.pk, user=user_of(game, number), kind=kind,
                                  params=params, now=when)


def after_deadline(game: Game) -> dt.datetime:
    """A moment when the sweeper must end the current phase (deadline + grace + 1 s)."""
    game = fresh(game)
    return game.deadline + services.grace() + dt.timedelta(seconds=1)


def picks_for(virtual: list[str], players: int, wanted) -> tuple[str, ...] | None:
    """The first combination of picks (in seat order) whose preliminary shares satisfy
    `wanted(shares)`, judged by the engine's own coin rule; None if there is none."""
    for picks in itertools.product(CARDS, repeat=players):
        result = judge(list(picks) + virtual)
        if wanted([result.per_card[c] for c in picks]):
            return picks
    return None


def seed_where(players: int, wanted) -> tuple[str, tuple[str, ...]]:
    """A seed whose first-round virtual cards allow picks satisfying `wanted(shares)`, and
    those picks. The table is read from the engine (what `start_game` will deal)."""
    for n in range(200):
        seed = f"gold-web-{n}"
        state = Gold().initial_state(seats=players, config={"lead": 0}, seed=seed).state
        picks = picks_for([v["shown"] for v in state["public"]["virtual"]], players, wanted)
        if picks:
            return seed, picks
    raise LookupError("no seed gives such a table")


def pick_all(game: Game, picks, now: dt.datetime | None = None) -> Game:
    for number, card in enumerate(picks):
        act(game, number, "pick", card=card, now=now)
    return fresh(game)


@pytest.fixture
def chinese(settings, tmp_path):
    """The Chinese catalogue with the gold fragment merged in (until the lead merges it into
    django.po); changing LOCALE_PATHS makes Django reload its translations."""
    from .helpers import build_chinese_catalog

    settings.LOCALE_PATHS = [build_chinese_catalog(tmp_path)]
    yield
