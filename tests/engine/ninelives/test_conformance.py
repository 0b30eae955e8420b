"""The generic conformance suite (games.engine.conformance) over many seeded 猫有n条命 games.

Random legal play to the end, garbage steps refused, JSON round trips, exact replay and no
leaks from any seat's or the spectator's view. The default run is short; set
NINELIVES_GAMES=1500 (games per player count) for the long run.
"""

from __future__ import annotations

import os

import pytest

from games.engine.conformance import check_ruleset
from games.engine.registry import get

from .deals import FIVE, SIX

GAMES = int(os.environ.get("NINELIVES_GAMES", "40"))
RULES = get("ninelives")


@pytest.mark.slow
@pytest.mark.parametrize("players", [5, 6])
def test_random_games_with_random_deals_conform(players):
    results = set()
    for seed in range(GAMES):
        play = check_ruleset(RULES, seats=players, seed=1000 * players + seed)
        outcome = RULES.outcome(play.final)
        results.add(outcome.result if outcome else None)
    assert results & {"civilian", "killer", "wolf", "draw"}  # games do reach an end


@pytest.mark.parametrize("deal", [FIVE, SIX], ids=["five", "six"])
def test_random_games_with_a_fixed_deal_conform(deal):
    for seed in range(max(GAMES // 6, 3)):
        play = check_ruleset(RULES, seats=deal["players"], seed=seed, config={"deal": deal})
        assert play.setup["config"]["deal"] == deal
        assert "deal" not in play.final["config"]  # the deal never sits in the public config
