"""Every rule set's golden playthroughs, through the one harness (tests/engine/golden.py):
each game's text must equal its checked-in file byte for byte (a missing file fails), and
replaying its setup and steps must give its final state."""

from __future__ import annotations

import pytest

from games.engine.base import replay
from games.engine.registry import get

from .classic.golden_games import GOLDEN as CLASSIC
from .gold.golden_games import GOLDEN as GOLD
from .golden import GOLDEN_DIR, GoldenGame, check_golden
from .ninelives.golden_games import GOLDEN as NINELIVES

GAMES = [*NINELIVES, *CLASSIC, *GOLD]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"{g.ruleset}/{g.name}")
def test_golden_playthrough(game: GoldenGame):
    played = game.play()
    check_golden(game.path, played.text)
    assert replay(get(game.ruleset), played.setup, played.steps) == played.final


def test_every_checked_in_golden_file_belongs_to_a_game():
    files = {p.relative_to(GOLDEN_DIR).as_posix() for p in GOLDEN_DIR.rglob("*.txt")}
    assert files == {f"{g.ruleset}/{g.name}.txt" for g in GAMES}
