"""A 谁偷了我的金币 game run through games.services, with named players and small helpers.

The tests read `game.state["secret"]` (the truth) only to decide what to play and what must
not leak; every check of what a player sees goes through a page or a message.
"""

from __future__ import annotations

import pytest

from games import services
from games.models import Game

from .helpers import DURATIONS, NAMES, T0


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


@pytest.fixture
def chinese(settings, tmp_path):
    """The Chinese catalogue (django.po) compiled afresh; changing LOCALE_PATHS makes Django
    reload its translations."""
    from .helpers import build_chinese_catalog

    settings.LOCALE_PATHS = [build_chinese_catalog(tmp_path)]
    yield
