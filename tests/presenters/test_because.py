"""The engine's `because` chains in the reader's language: what every rule set shares.

Each rule set's own reasons (codes with typed arguments, games/engine/<rule set>/reasons.py)
are checked by tests/presenters/test_reasons_<rule set>.py: every code has a sentence, random
games give no other, each reads in Chinese. Here: the GM's own acts, which every rule set's
event log holds, read the same everywhere; a code no table knows is shown as its code and
logged once; and anything that is not a reason (text) is shown as nothing, never as prose.
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


def test_an_unknown_code_is_shown_as_its_code_and_logged_once(caplog):
    reason = {"code": "never_heard_of", "args": {"seat": 8}}
    with caplog.at_level(logging.WARNING, logger="games.presenters"):
        assert because_text("gold", reason, NAMES) == "never_heard_of"
        assert because_text("gold", dict(reason, args={"seat": 6}), NAMES) == "never_heard_of"
    assert len([r for r in caplog.records if "never_heard_of" in r.getMessage()]) == 1


def test_text_is_no_reason_and_is_not_shown():
    assert because_text("gold", "Seat 9 did something (§99).", NAMES) == ""
