"""Classic's vote results for people, stage by stage (seed 001 §4.5, seed 003 guardian), from
real engine events: the day's vote (stage 0), the vote after the first tie (stage 1), the
vote after the second tie (stage 2), a seat voted out, and a seat with the most votes that a
guardian saves. The vote thread's tally (`vote_tallies`) and the announcement (`present`)
say what happened at each stage and nothing that did not."""

from __future__ import annotations

import pytest

from games.engine.base import SPECTATOR
from games.presenters import classic as P
from tests.engine.classic.helpers import Table
from tests.engine.classic.test_classic_day import CLASSIC, tie_day
from tests.engine.classic.test_classic_guardian import GUARDED

pytestmark = pytest.mark.usefixtures("chinese")

NAMES = {s: f"玩家{s + 1}" for s in range(12)}


def public_events(t: Table) -> list[dict]:
    return [dict(e, phase_number=1) for e in t.log_of(SPECTATOR)]


def results(t: Table) -> list[str]:
    """The result line of each vote tally of the day, in order."""
    return [tally.result for tally in P.vote_tallies(public_events(t), NAMES)]


def announced(t: Table, kind: str) -> list[str]:
    return [P.present(e, NAMES) for e in t.log_of(SPECTATOR) if e["kind"] == kind]


def test_each_tie_stage_says_who_speaks_and_votes_next():
    t = Table(CLASSIC)
    tie_day(t)
    t.day(tie1={9: 3, 10: 6}, tie2={11: 6, 0: 3})
    first, second, third = results(t)
    assert first.startswith("4号玩家4、7号玩家7 并列最高票：他们再次发言")
    assert "再次并列最高票：其他玩家依次发言" in second
    assert "他们再次发言" not in second
    assert "第三次平票：今天无人出局" in third
    assert announced(t, "vote_result") == [
        "4号玩家4、7号玩家7平票最高。",
        "4号玩家4、7号玩家7再次平票最高。",
        "4号玩家4、7号玩家7第三次平票：今天无人出局。",
    ]


def test_a_seat_voted_out_is_announced_voted_out():
    t = Table(CLASSIC)
    t.night(kill=8)
    t.day(t.all_vote(3))
    (result,) = results(t)
    assert "4号玩家4 得票最多" in result and "4号玩家4 被投票出局" in result
    assert "死亡：4号玩家4" in result


def test_a_seat_its_guardian_saves_is_not_announced_voted_out():
    t = Table(GUARDED)
    t.night(protect={6: 9})
    t.day(t.all_vote(9))
    assert t.alive(9) and not t.alive(6)
    (result,) = results(t)
    assert "10号玩家10 得票最多" in result
    assert "出局" not in result.split("。")[0] and "10号玩家10 被投票出局" not in result
    assert "10号玩家10 仍然存活：守护神代其死亡" in result
    assert "死亡：7号玩家7" in result
