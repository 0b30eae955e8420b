"""A finished game's result in the reader's language (presenters.outcome_text), never the
engine's data on a Chinese page."""

from __future__ import annotations

import pytest
from django.utils import translation

from games.presenters import outcome_text

NAMES = {0: "阿猫", 1: "阿狗", 2: "小白"}
CIVILIANS = {"result": "civilian", "winners": [0, 2]}
GOLD = {"result": "win", "winners": [1]}
ABORTED = {"result": "aborted", "winners": [], "note": "The GM had to leave."}


@pytest.fixture
def zh(chinese):
    with translation.override("zh-hans"):
        yield


def test_ninelives_in_chinese(zh):
    assert outcome_text("ninelives", CIVILIANS, NAMES) == \
        "平民阵营获胜。获胜者：1号阿猫、3号小白。"


def test_gold_with_and_without_the_coins(zh):
    with_coins = outcome_text("gold", GOLD, NAMES, {"public": {"coins": [1, 3, 0]}})
    assert "阿狗" in with_coins and "3 枚金币" in with_coins and "wins" not in with_coins
    assert outcome_text("gold", GOLD, NAMES) == "获胜者：2号阿狗。"


def test_classic_in_chinese(zh):
    text = outcome_text("classic", {"result": "bandit", "winners": [1]}, NAMES)
    assert text.startswith("匪徒获胜。") and "阿狗" in text


def test_an_aborted_game_gives_the_gms_words_not_the_engines(zh):
    assert outcome_text("ninelives", ABORTED, NAMES) == "本局无结果结束。"
    own = dict(ABORTED, note="天神临时有事，本局作废")
    assert outcome_text("ninelives", own, NAMES) == "本局无结果结束：天神临时有事，本局作废"
    assert outcome_text("ninelives", None, NAMES) == ""


def test_english_readers_read_english(chinese):
    with translation.override("en"):
        assert outcome_text("ninelives", CIVILIANS, NAMES).startswith("The civilians win.")
        assert outcome_text("ninelives", ABORTED, NAMES) == \
            "The game ended without a result: The GM had to leave."
