"""The 猫有n条命 tally walker (games/presenters/ninelives.py `vote_tallies`) on event lists
shaped like the engine's: a BOMB-voided vote, an execution no PARDON can undo, a runoff that
ties again, and private events that never reach a tally."""

from __future__ import annotations

import pytest

from games.presenters import tally_line
from games.presenters.ninelives import vote_tallies

pytestmark = pytest.mark.usefixtures("chinese")

NAMES = {0: "阿猫", 1: "阿狗", 2: "小白", 3: "老黑", 4: "花花"}


def public(kind, seq, **data):
    return {"kind": kind, "seq": seq, "visibility": {"public": True, "seats": []}, "data": data}


def private(kind, seq, to, **data):
    return {"kind": kind, "seq": seq, "visibility": {"public": False, "seats": [to]},
            "data": data}


DAY = {"name": "day", "number": 2}


def test_a_bombed_vote_is_marked_void_and_the_engine_count_is_used():
    events = [
        public("phase_started", 1, phase=DAY, no_vote=[], candidates=[]),
        public("vote_cast", 2, seat=0, target=1, runoff=False),
        public("vote_cast", 3, seat=2, target=1, runoff=False),
        public("vote_cast", 4, seat=1, target=0, runoff=False),
        private("proxy_vote_received", 5, 4, seat=4, target=0),
        public("phase_ended", 6, phase=DAY),
        public("proxy_vote_published", 7, seat=4, target=0, runoff=False),
        public("vote_void", 8, seat=2),
        public("execution", 9, seat=0, day=2, tally={"0": 2, "1": 1},
               adjustments=[]),
    ]
    [tally] = vote_tallies(events, NAMES)
    assert tally.status == "closed" and tally.settled_seq == 9
    assert [tally_line(r) for r in tally.rows] == [
        "1号阿猫：2票（亲自投票：2号阿狗；委托投票：5号花花）",
        "2号阿狗：1票（亲自投票：1号阿猫；作废：3号小白）",
    ]
    assert "1号阿猫 得票最多，被处决" in tally.result


def test_a_runoff_that_ties_again_executes_nobody():
    runoff = {"name": "runoff", "number": 1}
    events = [
        public("phase_started", 1, phase=runoff, no_vote=[2], candidates=[0, 1]),
        public("vote_cast", 2, seat=0, target=1, runoff=True),
        public("vote_cast", 3, seat=1, target=0, runoff=True),
        public("phase_ended", 4, phase=runoff),
        public("no_execution", 5, tally={"0": 1, "1": 1}, adjustments=[]),
    ]
    [tally] = vote_tallies(events, NAMES)
    assert tally.heading == "第1天的生死投票"
    assert tally.result == "无人被处决。生死投票再次平票。"
    assert tally.notes == ["3号小白 不能投票。"]


def test_a_private_event_never_changes_a_tally():
    events = [
        public("phase_started", 1, phase=DAY, no_vote=[], candidates=[]),
        private("vote_cast", 2, 3, seat=3, target=4, runoff=False),
    ]
    [tally] = vote_tallies(events, NAMES)
    assert tally.rows == [] and tally.status == "open"
