"""The generic conformance suite (games.engine.conformance) on Classic, for every option
combination: random legal play to the end, garbage refused, JSON round trips, replay, and
no view leaks. Seeded and short; heavier sampling lives in `simulate_classic`."""

from __future__ import annotations

import itertools

import pytest

from games.engine import registry
from games.engine.classic.reasons import R as WHY
from games.engine.classic.rules import Classic
from games.engine.conformance import check_ruleset

GUARDIANS = [{}, {"guardian": True}, {"dual_guardians": True}]


def combos() -> list[dict]:
    """Every option combination. `all_civilians_dead` has two behaviours per game (the
    seed's default, "seed", is one of them: tested in test_classic_setup), so each variant
    mix runs with the default and with the other rule."""
    out = []
    for ghost, guard in itertools.product((False, True), GUARDIANS):
        base = {**({"variant_ghost_poison": True} if ghost else {}), **guard}
        other = "bandit" if not (ghost or guard) else "draw"
        out += [base, {**base, "all_civilians_dead": other}]
    return out


COMBOS = combos()


def test_the_registry_knows_the_rule_set():
    assert isinstance(registry.get("classic"), Classic)


@pytest.mark.parametrize("index", range(len(COMBOS)))
def test_conformance_for_every_option_combination(index):
    config = COMBOS[index]
    seats = (11, 12)[index % 2]
    rules = Classic()
    play = check_ruleset(rules, seats=seats, seed=1000 + index, config=config, leak_every=20)
    assert rules.outcome(play.final) is not None, "random play must reach the end"


@pytest.mark.slow
def test_conformance_with_sixteen_players():
    rules = Classic()
    config = {"variant_ghost_poison": True, "dual_guardians": True}
    play = check_ruleset(rules, seats=16, seed=16, config=config, leak_every=40)
    assert rules.outcome(play.final) is not None


def test_every_event_explains_itself_with_reasons_of_the_table():
    rules = Classic()
    config = {"variant_ghost_poison": True, "guardian": True}
    play = check_ruleset(rules, seats=11, seed=77, config=config, leak_every=10_000)
    assert play.final["log"]
    for event in play.final["log"]:
        assert event["because"], event
        assert [p for b in event["because"] for p in WHY.problems(b)] == [], event
