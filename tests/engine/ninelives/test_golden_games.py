"""What the 猫有n条命 golden games show (the files themselves: tests/engine/test_golden.py)."""

from __future__ import annotations

from games.engine.base import replay

from .golden_games import GAMES
from .helpers import RULES


def test_the_free_agent_joined_the_killer_camp_and_won_alone():
    setup, steps, _ = GAMES["six_free_agent_killer_win"]()
    state = replay(RULES, setup, steps)
    assert state["private"][5]["camp"] == "killer" and RULES.outcome(state).winners == (5,)
    assert state["public"]["alive"] == [False] * 5 + [True]
