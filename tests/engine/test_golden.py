"""Every rule set's golden playthroughs, through the one harness (tests/engine/golden.py):
each game's text must equal its checked-in file byte for byte (a missing file fails), and
replaying its setup and steps must give its final state. The files are written for people:
Chinese through the presenters, never an engine key."""

from __future__ import annotations

import re

import pytest

from games.engine.base import replay
from games.engine.registry import get

from .classic.golden_games import GOLDEN as CLASSIC
from .gold.golden_games import GOLDEN as GOLD
from .golden import GOLDEN_DIR, GoldenGame, check_golden
from .ninelives.golden_games import GOLDEN as NINELIVES

GAMES = [*NINELIVES, *CLASSIC, *GOLD]
# Latin letters in a line of a golden file: an engine key, a code or English left untranslated.
LATIN = re.compile(r"[A-Za-z_]{2,}")


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"{g.ruleset}/{g.name}")
def test_golden_playthrough(game: GoldenGame):
    played = game.play()
    check_golden(game.path, played.text)
    assert replay(get(game.ruleset), played.setup, played.steps) == played.final


def test_every_checked_in_golden_file_belongs_to_a_game():
    files = {p.relative_to(GOLDEN_DIR).as_posix() for p in GOLDEN_DIR.rglob("*.txt")}
    assert files == {f"{g.ruleset}/{g.name}.txt" for g in GAMES}


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"{g.ruleset}/{g.name}")
def test_a_golden_file_reads_in_chinese(game: GoldenGame):
    """Below its header (the game's name, its seed), no line holds an engine key, a reason's
    code or an English sentence: every word comes from the presenters' Chinese."""
    lines = game.path.read_text(encoding="utf-8").splitlines()
    english = [line for line in lines if not line.startswith("#") and LATIN.search(line)]
    assert not english, english[:5]


def test_who_saw_each_event_is_said_in_words():
    """Everyone, the GM alone, or the seats by number and name; a seat's view by its name."""
    text = (GOLDEN_DIR / "ninelives" / "five_civilian_win.txt").read_text(encoding="utf-8")
    assert "] 第1夜开始" in text and "#5 [所有人] " in text
    assert re.search(r"#\d+ \[仅天神\] ", text)
    assert "#0 [1号阿猫] 你的阵营：杀手。" in text
    classic = (GOLDEN_DIR / "classic" / "ghost_poison.txt").read_text(encoding="utf-8")
    assert "[2号阿狗、6号大黄、9号木木] 匪徒是2号阿狗、6号大黄、9号木木" in classic
    assert "\n  天神：\n" in classic and "\n  4号老黑：身份牌：毒药\n" in classic
