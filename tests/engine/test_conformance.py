"""The generic conformance checks (games/engine/conformance.py) on every registered rule
set (OpenSpiel's basic_tests): random legal play to the end with garbage refused, every
accepted step among the offered choices, JSON round trips, exact replay, no view leaks.

Per rule set, the option combinations and longer runs live in tests/engine/<ruleset>/.
"""

from __future__ import annotations

import pytest

from games import rulesets
from games.engine import registry
from games.engine.base import RuleSet
from games.engine.conformance import check_ruleset, random_playthrough

# Every rule set of the service's table (games/rulesets.py), which registers each engine in
# the engine's registry too: a rule set added to the table is checked here automatically.
NAMES = sorted(rulesets.names())


def test_the_service_table_and_the_engine_registry_agree():
    assert NAMES == sorted(registry.RULESETS)
    assert len(NAMES) >= 3
SEEDS = range(3)


def seat_counts(rules: RuleSet) -> list[int]:
    return sorted({rules.min_seats, rules.max_seats})


@pytest.mark.slow(seconds=60)
@pytest.mark.parametrize("name", NAMES)
def test_random_play_conforms_at_the_fewest_and_the_most_seats(name):
    rules = registry.get(name)
    assert rules.name == name
    for seats in seat_counts(rules):
        for seed in SEEDS:
            play = check_ruleset(rules, seats=seats, seed=seed, leak_every=25)
            assert rules.outcome(play.final) is not None, "random play must reach the end"


@pytest.mark.parametrize("name", NAMES)
def test_near_miss_steps_are_tried_and_only_offered_ones_accepted(name):
    """The probes do run, some are refused and some accepted (each accepted one was
    offered: `random_playthrough` fails otherwise)."""
    rules = registry.get(name)
    probes = accepted = 0
    for seed in SEEDS:
        play = random_playthrough(rules, seats=rules.min_seats, seed=seed, probe_odds=1.0)
        probes += play.probes
        accepted += play.probes_accepted
    assert probes > 20
    assert 0 < accepted < probes


@pytest.mark.parametrize("name", NAMES)
def test_a_seat_owes_something_exactly_when_the_phase_awaits_it(name):
    """`duties(state, seat)` (the console's "still owes") names a step for every awaited
    seat that has one to take, nothing for the others, and only kinds it may take now."""
    rules = registry.get(name)
    checked = 0
    for seed in SEEDS:
        play = random_playthrough(rules, seats=rules.min_seats, seed=seed)
        for state in play.states[::3]:
            awaiting = rules.phase(state).awaiting
            for seat in range(rules.min_seats):
                duties = rules.duties(state, seat)
                kinds = {c.kind for c in rules.legal_actions(state, seat)}
                if seat not in awaiting:
                    assert duties == [], (seat, duties)
                elif kinds:
                    assert duties and set(duties) <= kinds | {"use_card"}, (seat, duties, kinds)
                    checked += 1
    assert checked >= 5
