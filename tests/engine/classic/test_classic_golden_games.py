"""What the Classic golden games show (the files themselves: tests/engine/test_golden.py)."""

from __future__ import annotations

from .golden_games import played


def test_the_classic_golden_game_has_a_three_stage_tie_and_a_police_win():
    g = played("classic_12")
    stages = [e["data"] for e in g.state["log"] if e["kind"] == "vote_result"]
    assert [(r["stage"], r["eliminated"]) for r in stages[:3]] == [(0, []), (1, []), (2, [])]
    assert g.outcome().result == "police"


def test_the_ghost_golden_game_possesses_the_poison():
    g = played("ghost_poison")
    causes = {d["seat"]: d["cause"] for d in g.state["secret"]["deaths"]}
    assert causes[5] == causes[3] == "possession"
    assert g.outcome() is not None


def test_the_guardian_golden_game_ends_the_guardian_by_dereliction():
    g = played("guardian_dereliction")
    causes = {d["seat"]: d["cause"] for d in g.state["secret"]["deaths"]}
    assert causes[6] == "dereliction"
    assert g.outcome() is not None


def test_the_dual_guardian_golden_game_lapses_the_police_guardian():
    g = played("dual_guardians_lapse")
    causes = {d["seat"]: d["cause"] for d in g.state["secret"]["deaths"]}
    assert causes[7] == "killed" and g.state["secret"]["lapsed"] == [6]
    assert g.outcome() is not None
