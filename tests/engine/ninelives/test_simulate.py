"""The simulator: games reach an end, nobody is put out for silence, intervals are right."""

from __future__ import annotations

import pytest

from games.engine.ninelives.simulate import play, report, simulate, wilson


@pytest.mark.parametrize("policy", ["random", "informed"])
def test_simulated_games_end_without_fouls(policy):
    for seed in range(3):
        played = play(5 + seed % 2, seed, policy=policy)
        assert played.result in ("civilian", "killer", "wolf", "draw")
        assert not any(e["kind"] == "foul_out" for e in played.state["log"])


def test_simulate_counts_every_game_once():
    stats = simulate(5, 4, seed=7)
    assert sum(stats["counts"].values()) == 4 and stats["games_per_second"] > 0
    assert "95% CI" in report(stats)


def test_wilson_interval():
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(1 - hi) and 0.40 < lo < 0.41
    assert wilson(0, 20)[0] == 0.0 and 0.15 < wilson(0, 20)[1] < 0.17
    assert wilson(0, 0) == (0.0, 1.0)
