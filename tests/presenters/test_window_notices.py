"""No window notice to a dead or fouled-out seat: the 猫有n条命 panel lists
a reorder window among a seat's results only while the seat is alive."""

from __future__ import annotations

import pytest

from games.presenters.ninelives import panel

pytestmark = pytest.mark.usefixtures("chinese")

NAMES = {0: "阿猫", 1: "阿狗", 2: "小白"}


def event(kind, **data):
    return {"kind": kind, "visibility": {"public": True, "seats": []}, "data": data}


def view_of(seat: int, alive: list[bool], log: list[dict]) -> dict:
    return {"me": {"seat": seat, "hand": ["SNIPER"], "dead_cards": [], "loss_order": [],
                   "uses": {}, "camp": "civilian", "dealt_camp": "civilian"},
            "public": {"alive": alive, "phase": {"name": "day", "number": 3}, "lost": [[]] * 3},
            "log": log, "legal_actions": []}


LOG = [
    event("phase_started", phase={"name": "night", "number": 3}),
    event("seat_died", seat=2, cause="foul_out", camp="civilian"),
    event("reorder_window", window=1, total_lost=8, until={"name": "day", "number": 3}),
    event("phase_started", phase={"name": "day", "number": 3}),
]


def texts(seat: int, alive: list[bool]) -> list[str]:
    return [r["text"] for r in panel(view_of(seat, alive, LOG), NAMES)["results"]]


def test_a_living_seat_is_told_of_the_reorder_window():
    assert any("换序窗口已开放" in t for t in texts(0, [True, True, False]))


def test_a_fouled_out_seat_is_not_told_of_a_window_it_cannot_use():
    results = texts(2, [True, True, False])
    assert results == ["你已出局，视为死亡。"], results
    assert not any("换序窗口" in t for t in results)
