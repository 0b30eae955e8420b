"""The simulator: games reach an end, nobody is put out for silence, intervals are right."""

from __future__ import annotations

import copy

import pytest

from games.engine.base import Refusal, action, replay
from games.engine.ninelives.rules import NineLives
from games.engine.ninelives.simulate import play, report, simulate, speed, wilson

RULES = NineLives()


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


def test_speed_reports_games_per_second_as_a_ratio_to_a_baseline_of_the_same_run():
    stats = speed(5, 3, seed=1)
    assert stats["copies_per_game"] == pytest.approx(
        stats["baseline_copies_per_second"] / stats["games_per_cpu_second"])
    assert "JSON copies of a fresh state" in report(stats)


def test_the_in_place_play_replays_to_the_same_state():
    played = play(6, 4)
    assert replay(RULES, played.setup, played.steps) == played.state


def test_a_refused_step_in_place_changes_nothing():
    rules = NineLives()
    state = rules.initial_state(seats=5, seed="x").state
    before = copy.deepcopy(state)
    refused = rules.apply_in_place(state, action(0, "vote", target=1))
    assert isinstance(refused, Refusal) and refused.code == "no_vote_now"
    assert state == before
    events = rules.apply_in_place(state, action(0, "pass"))
    assert [e["kind"] for e in events] == ["passed"] and state["private"][0]["action"]
