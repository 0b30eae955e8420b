"""What the 谁偷了我的金币 golden games show (the files: tests/engine/test_golden.py)."""

from __future__ import annotations

from .golden_games import scripted_game


def test_golden_games_cover_every_choice_and_default():
    kinds = set()
    flipped = set()
    missed = set()
    for players in range(2, 7):
        _, _, final = scripted_game(players)
        for event in final["log"]:
            kinds.add(event["kind"])
            if event["kind"] == "flipped":
                flipped.add(next(iter(event["data"]["target"])))
            if event["data"].get("missed"):
                missed.add(event["kind"])
    assert {"pick_defaulted", "bonus", "double", "kept", "swapped", "replaced",
            "flipped", "final", "game_over"} <= kinds
    assert flipped == {"seat", "virtual"}
    assert missed == {"bonus", "kept"}
