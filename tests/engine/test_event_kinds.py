"""Every engine declares the event kinds it can emit (games/engine/<name>/kinds.py, which the
rule-set table hands to the presenter-coverage check in games/checks.py); random play emits
no other kind."""

from __future__ import annotations

import importlib

import pytest

from games.engine import registry
from games.engine.conformance import random_playthrough

# (rule set, seat counts, seeds): enough random games to meet every common event.
PLAYS = [("ninelives", (5, 6), range(8)), ("gold", (4, 5, 6), range(3)),
         ("classic", (11, 12), range(1000, 1002))]


def declared(name: str) -> tuple[str, ...]:
    return importlib.import_module(f"games.engine.{name}.kinds").EVENT_KINDS


@pytest.mark.parametrize(("name", "seat_counts", "seeds"), PLAYS, ids=[p[0] for p in PLAYS])
def test_random_play_emits_only_declared_kinds(name, seat_counts, seeds):
    engine = registry.get(name)
    emitted = set()
    for seats in seat_counts:
        for seed in seeds:
            play = random_playthrough(engine, seats=seats, seed=seed)
            emitted |= {e["kind"] for e in play.final["log"]}
    assert emitted, "random play emitted nothing"
    assert sorted(emitted - set(declared(name))) == []


def test_the_kinds_are_declared_once_each():
    for name in registry.RULESETS:
        kinds = declared(name)
        assert kinds and len(set(kinds)) == len(kinds), name
