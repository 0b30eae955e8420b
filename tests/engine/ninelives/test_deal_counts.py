"""The dealer's shipped tables of completions (games/engine/ninelives/deal_counts_N.json):
regenerating them gives the same files, the counts they give are exact, and the deals drawn
with them are the deals the whole dynamic programme draws."""

from __future__ import annotations

import random

import pytest

from games.engine.ninelives import dealing
from games.engine.ninelives.dealing import DealCounter

DOCUMENTED = {5: 5_871_325_286_400, 6: 324_256_054_947_840}


@pytest.mark.parametrize("players", [5, 6])
def test_regenerating_the_tables_gives_the_checked_in_file(players):
    path = dealing.counts_file(players)
    assert dealing.counts_file_text(players).encode("utf-8") == path.read_bytes(), (
        f"{path.name} is stale: run `python manage.py deal --write-tables`")


@pytest.mark.parametrize("players", [5, 6])
def test_the_counts_are_exact(players):
    rules = dealing.rules_for(players)
    shipped = DealCounter(rules, dealing.shipped_counts(rules))
    built = DealCounter(rules)
    assert shipped.total() == built.total()
    assert dealing.count_deals(players) == DOCUMENTED[players]
    assert dealing.camp_assignments(rules) * built.total() == DOCUMENTED[players]


@pytest.mark.parametrize("players", [5, 6])
def test_the_shipped_tables_draw_the_same_deals_as_the_programme(players):
    rules = dealing.rules_for(players)
    shipped = DealCounter(rules, dealing.shipped_counts(rules))
    built = DealCounter(rules)
    for seed in range(30):
        assert shipped.sample_hands(random.Random(seed)) == built.sample_hands(
            random.Random(seed))


def test_a_table_built_for_other_rules_refuses_to_run(monkeypatch):
    real = dealing.read_shipped(6)
    monkeypatch.setattr(dealing, "read_shipped", lambda players: dict(real, rules="0" * 64))
    with pytest.raises(RuntimeError, match="--write-tables"):
        dealing.shipped_counts(dealing.rules_for(6))


def test_other_rules_build_their_own_table():
    rules = dealing.small_rules(("killer", "civilian"), 2, {"KILLER": 1, "DEMON": 1,
                                                            "SNIPER": 1, "VEST": 1})
    assert dealing.shipped_counts(rules) is None


def test_state_keys_are_distinct_and_refuse_what_they_cannot_pack():
    a = ((1, 0, 0, 0, 0, 0),)
    b = ((0, 1, 0, 0, 0, 0),)
    assert dealing.state_key(a) != dealing.state_key(b)
    with pytest.raises(ValueError):
        dealing.state_key(((16, 0, 0, 0, 0, 0),))
