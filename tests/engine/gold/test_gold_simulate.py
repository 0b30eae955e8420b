"""The 谁偷了我的金币 simulations: strategies play legal games, and the statistics count right.
(The long runs live in `manage.py simulate_gold`, not here.)"""

from __future__ import annotations

import math
import random

import pytest

from games.engine.base import SPECTATOR
from games.engine.gold.rules import ASSASSIN, KILLER, THIEF, Gold
from games.engine.gold.simulate import (
    STRATEGIES,
    GameRecord,
    Mean,
    by_position,
    by_strategy,
    choose,
    play_game,
)

RULES = Gold()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_strategy_plays_whole_legal_games(strategy):
    rec = play_game(3, [strategy] * 3, seed=7)
    assert len(rec.rounds) == 3
    assert [sum(g[i] for _, g in rec.rounds) for i in range(3)] == rec.coins
    assert [lead for lead, _ in rec.rounds] == [(rec.first_lead + r) % 3 for r in range(3)]


def pick_view(virtual: list[str]) -> tuple[dict, list]:
    state = RULES.initial_state(seats=2, config={"lead": 0}, seed="view").state
    state["public"]["virtual"] = [{"shown": c, "covered": False, "cover": None}
                                  for c in virtual]
    return RULES.view(state, 0), RULES.legal_actions(state, 0)


def test_greedy_avoids_the_card_that_cannot_win():
    # With K, A and four T on the virtual side, a THIEF can never be paid: a tie would put
    # 5 or more thieves on the table. KILLER or ASSASSIN expect 1 coin each.
    view, choices = pick_view([KILLER, ASSASSIN, THIEF, THIEF, THIEF, THIEF])
    picks = {choose("greedy", view, choices, random.Random(n)).params["card"]
             for n in range(20)}
    assert picks == {KILLER, ASSASSIN}


def test_the_thief_strategy_always_picks_thief():
    view, choices = pick_view([KILLER] * 6)
    assert choose("thief", view, choices, random.Random(0)).params == {"card": THIEF}


def test_greedy_keeps_the_bonus_and_greedy_double_trades_it():
    choices = RULES.legal_actions(priority_state(), 0)
    view = RULES.view(priority_state(), 0)
    assert choose("greedy", view, choices, random.Random(0)).kind == "take_bonus"
    assert choose("greedy_double", view, choices, random.Random(0)).kind == "take_double"


def priority_state() -> dict:
    state = RULES.initial_state(seats=2, config={"lead": 0}, seed="prio").state
    state["public"]["virtual"] = [{"shown": c, "covered": False, "cover": None}
                                  for c in [ASSASSIN, THIEF, THIEF, THIEF, THIEF, THIEF]]
    state["secret"]["cards"]["virtual"] = [ASSASSIN] + [THIEF] * 5
    for seat, card in ((0, KILLER), (1, KILLER)):
        state = RULES.apply(state, {"actor": seat, "kind": "pick",
                                    "params": {"card": card}}).state
    state = RULES.end_phase(state).state
    assert RULES.phase(state).name == "priority", RULES.view(state, SPECTATOR)["public"]
    return state


def test_an_unknown_strategy_is_an_error():
    view, choices = pick_view([KILLER] * 6)
    with pytest.raises(ValueError):
        choose("psychic", view, choices, random.Random(0))


def test_mean_and_interval():
    m = Mean([1.0, 2.0, 3.0])
    assert m.mean == 2.0
    assert math.isclose(m.half_width, 1.96 / math.sqrt(3))
    assert str(m) == "2.00 ± 1.13"


def test_positions_count_from_the_first_lead_and_from_each_rounds_lead():
    rec = GameRecord(players=2, strategies=["random", "greedy"], first_lead=1, coins=[5, 1],
                     rounds=[(1, [4, 1]), (0, [1, 0])])
    game, per_round = by_position([rec])
    assert [m.values for m in game] == [[1], [5]]           # seat 2 led first
    assert [m.values for m in per_round] == [[1, 1], [4, 0]]  # lead: seat 2 then seat 1


def test_strategies_share_a_tied_win():
    rec = GameRecord(players=3, strategies=["random", "greedy", "thief"], first_lead=0,
                     coins=[3, 3, 0])
    stats = by_strategy([rec])
    assert stats["random"][1].values == [0.5] and stats["greedy"][1].values == [0.5]
    assert stats["thief"][1].values == [0.0] and stats["thief"][0].values == [0]
