"""The generic conformance suite (games.engine.conformance) on 谁偷了我的金币, 2-6 players:
random legal play to the end, garbage refused, JSON round trips, replay, no view leaks."""

from __future__ import annotations

import pytest

from games.engine import registry
from games.engine.conformance import check_ruleset
from games.engine.gold.rules import Gold


def test_the_registry_knows_the_rule_set():
    assert isinstance(registry.get("gold"), Gold)


@pytest.mark.parametrize("players", range(2, 7))
@pytest.mark.parametrize("seed,config", [(1, None), (2, {"lead": 1})])
def test_conformance(players, seed, config):
    rules = Gold()
    play = check_ruleset(rules, seats=players, seed=seed * 100 + players, config=config)
    assert rules.outcome(play.final) is not None, "random play must reach the end"
    assert play.final["public"]["round"] == players
