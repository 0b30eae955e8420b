"""The engine's `because` chains in the reader's language: what every rule set shares.

Each rule set's own reasons (codes with typed arguments, games/engine/<rule set>/reasons.py)
are checked by tests/presenters/test_reasons_<rule set>.py: every code has a sentence, random
games give no other, each reads in Chinese. Here: the GM's own acts, which every rule set's
event log holds, read the same everywhere; and a sentence no table knows is shown as it was
written and logged once.
"""

from __future__ import annotations

import logging

import pytest
from django.utils import translation

from games.presenters import because_text

NAMES = {s: f"{'甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳'[s]}君" for s in range(16)}


@pytest.fixture(autouse=True)
def _chinese(chinese):
    with translation.override("zh-hans"):
        yield


@pytest.mark.parametrize("ruleset", ["classic", "gold", "ninelives"])
def test_the_gm_s_own_acts_read_the_same_in_every_rule_set(ruleset):
    reason = {"code": "gm_action", "args": {"act": "pause"}}
    assert because_text(ruleset, reason, NAMES) == "天神操作：暂停游戏"


def test_an_unknown_sentence_is_shown_as_written_and_logged_once(caplog):
    sentence = "Seat 9 did something the table has never heard of (§99)."
    with caplog.at_level(logging.WARNING, logger="games.presenters"):
        assert because_text("gold", sentence, NAMES) == sentence
        assert because_text("gold", sentence.replace("9", "7"), NAMES) != ""
    assert len([r for r in caplog.records if "never heard of" in r.getMessage()]) == 1
