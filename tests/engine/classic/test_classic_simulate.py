"""The random-play simulation: its interval arithmetic and a few real games."""

from __future__ import annotations

import pytest

from games.engine.classic.rules import Classic
from games.engine.classic.simulate import VARIANTS, play_random_game, simulate, table, wilson


def test_wilson_interval_matches_known_values():
    p, lo, hi = wilson(50, 100)
    assert p == 0.5
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 20)[1] == 0.0 and wilson(0, 20)[2] == pytest.approx(0.1611, abs=1e-4)
    assert wilson(0, 0) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_random_games_reach_a_result_with_every_rule_mix(variant):
    results = {play_random_game(Classic(), 11, VARIANTS[variant], seed)[0] for seed in range(3)}
    assert results <= {"police", "bandit", "draw"}


def test_a_simulation_counts_every_game_and_reports_the_shift():
    base = simulate(11, "classic", 6, seed=1)
    ghost = simulate(11, "ghost + poison", 6, seed=1)
    assert base.games == 6 and sum(base.wins.values()) + base.unfinished == 6
    text = table([base, ghost])
    assert "| 11 | classic | 6 |" in text and "ghost + poison" in text
    assert text.count("\n") == 3
