"""Losing cards (§5.8), the loss order and the core card (§6), reorder windows (§6.3).

FIVE deal; see test_cards.py for the hands and loss orders. Seats are 0-based in steps.
"""

from __future__ import annotations

from games.engine.base import GM, visible_to
from games.engine.ninelives.cards import camp_of
from games.engine.ninelives.common import open_reorder_window
from games.engine.ninelives.reasons import R, use

from .helpers import RULES, Game


def test_a_missing_loss_order_is_drawn_with_a_core_card_of_the_seat_camp():
    for seed in range(12):
        g = Game(set_orders=False, seed=f"order {seed}")
        events = g.end()
        for seat in range(5):
            priv = g.priv(seat)
            assert sorted(priv["loss_order"]) == sorted(g.deal["seats"][seat]["cards"])
            assert camp_of(priv["core_card"]) == priv["camp"]
            assert priv["loss_order"][-1] == priv["core_card"]
        (drawn,) = g.find("loss_order_set", events, seat=2)
        assert drawn["data"]["by"] == "random" and drawn["visibility"]["seats"] == [2]
        chance = g.find("chance", events, seat=2)
        assert chance and not chance[0]["visibility"]["public"]


def test_random_loss_orders_vary_with_the_seed():
    orders = set()
    for seed in range(12):
        g = Game(set_orders=False, seed=f"order {seed}")
        g.end()
        orders.add(tuple(g.priv(2)["loss_order"]))
    assert len(orders) > 3


def test_the_core_card_must_be_of_the_seat_camp():
    g = Game(set_orders=False)
    refusal = g.refused(0, "loss_order", cards=["KILLER", "DEMON", "WITCH_DOCTOR", "VEST",
                                                "JAIL"])
    assert refusal.code == "core_camp"
    g.do(0, "loss_order", cards=["KILLER", "WITCH_DOCTOR", "VEST", "JAIL", "DEMON"])


def test_a_loss_order_lists_every_card_once():
    g = Game(set_orders=False)
    for cards in (["KILLER"], ["KILLER"] * 5, "KILLER", None, [1, 2, 3, 4, 5],
                  ["DEMON", "WITCH_DOCTOR", "VEST", "JAIL", "SNIPER"]):
        assert g.refused(0, "loss_order", cards=cards).code == "bad_order"


def test_the_loss_order_may_be_revised_during_night_1():
    g = Game()
    g.do(3, "loss_order", cards=["CURSE", "STRIKE", "WEREWOLF", "PROPHET", "DIVINER"])
    assert g.losses(g.night({0: ("KILLER", 3)})) == [(3, "CURSE")]


def test_the_loss_order_is_closed_after_night_1():
    g = Game()
    g.night()
    refusal = g.refused(3, "loss_order", cards=["CURSE", "STRIKE", "WEREWOLF", "PROPHET",
                                                "DIVINER"])
    assert refusal.code == "order_closed"


def test_losses_announce_only_the_camp_and_every_camp_is_kept_publicly():
    g = Game()
    events = g.night({0: ("KILLER", 1), 2: ("SNIPER", 1)})
    assert g.public["lost"][1] == ["wolf", "civilian"]  # SORCERER, SOULBINDER
    for e in events:
        if e["kind"] == "card_lost":
            assert set(e["data"]) == {"seat", "camp", "cause"}
    explained = g.find("loss_explained", events, seat=1)
    assert len(explained) == 2 and not any(visible_to(e["visibility"], 1) for e in explained)
    assert R("attacked_with", use=use(0, "KILLER", 1), ref=["3.1.1"]) in \
        explained[0]["because"]


def test_two_attacks_on_one_seat_cost_two_cards():
    g = Game()
    assert g.losses(g.night({0: ("KILLER", 4), 1: ("WEREWOLF", 4)})) == [(4, "DEMON"),
                                                                         (4, "BLESS")]


def test_a_seat_without_cards_is_dead_and_its_camp_is_announced():
    g = Game()
    g.night({0: ("KILLER", 4), 1: ("WEREWOLF", 4), 2: ("SNIPER", 4), 3: ("STRIKE", 4)})
    assert g.hand(4) == ["PROPHET"]
    g.quiet_day()
    events = g.night({0: ("KILLER", 4), 4: ("PROPHET", 1)})
    assert not g.alive(4) and g.hand(4) == []
    (died,) = g.find("seat_died", events)
    assert died["data"] == {"seat": 4, "camp": "civilian", "cause": "no_cards"}
    assert died["visibility"]["public"]
    assert g.find("investigation", events, seat=4)  # a seat dying at dawn still acted


def reach_eight_losses() -> Game:
    """Four losses on night 1, an execution on day 1, four more losses at the end of night 2:
    the first window opens for day 2."""
    g = Game()
    g.night({1: ("WEREWOLF", 3), 2: ("SNIPER", 1), 3: ("STRIKE", 0), 4: ("BOMB", 0)})
    assert g.public["total_lost"] == 4
    g.all_vote({4: 0}, default=4)
    events = g.night({0: ("KILLER", 2), 1: ("WEREWOLF", 3), 2: ("SNIPER", 1)})
    assert g.public["total_lost"] == 8
    assert g.find("reorder_window", events)
    return g


def test_a_reorder_window_opens_for_the_next_phase_after_8_losses():
    g = reach_eight_losses()
    assert g.public["reorder"] == {"window": 1, "phase": {"name": "day", "number": 2}}
    assert g.priv(2)["loss_order"] == ["KILLER", "SORCERER", "SAINT", "SNIPER"]
    g.do(2, "loss_order", cards=["SAINT", "KILLER", "SORCERER", "SNIPER"])
    g.quiet_day()
    assert g.public["reorder"] is None
    assert g.refused(2, "loss_order", cards=["KILLER", "SORCERER", "SAINT", "SNIPER"]).code \
        == "order_closed"
    assert g.losses(g.night({0: ("KILLER", 2)})) == [(2, "SAINT")]


def test_the_core_card_cannot_change_in_a_reorder_window():
    g = reach_eight_losses()
    refusal = g.refused(2, "loss_order", cards=["SNIPER", "SAINT", "KILLER", "SORCERER"])
    assert refusal.code == "core_fixed" and refusal.params == {"core": "SNIPER"}


def test_silence_in_a_window_keeps_the_old_order():
    g = reach_eight_losses()
    g.quiet_day()
    assert g.losses(g.night({0: ("KILLER", 2)})) == [(2, "KILLER")]


def test_crossing_8_and_16_at_once_opens_a_single_window():
    g = Game()
    state = g.state
    state["public"]["total_lost"] = 17
    events: list = []
    open_reorder_window(state, events, {"name": "day", "number": 4})
    assert state["public"]["windows_opened"] == 2
    assert [e["data"]["window"] for e in events] == [2]
    open_reorder_window(state, events, {"name": "night", "number": 5})
    assert len(events) == 1  # no third window


def test_the_second_window_opens_at_16():
    g = Game()
    state = g.state
    state["public"].update(total_lost=9, windows_opened=1)
    events: list = []
    open_reorder_window(state, events, {"name": "night", "number": 3})
    assert events == []
    state["public"]["total_lost"] = 16
    open_reorder_window(state, events, {"name": "night", "number": 3})
    assert state["public"]["reorder"] == {"window": 2, "phase": {"name": "night", "number": 3}}


def test_the_gm_sees_the_chain_of_causes_of_every_loss():
    g = Game()
    events = g.night({1: ("WEREWOLF", 3), 0: ("WITCH_DOCTOR", 3), 2: ("SNIPER", 3)})
    assert g.losses(events) == [(3, "PROPHET")]
    chains = [e["because"] for e in events if e["kind"] == "action_resolved"
              and visible_to(e["visibility"], GM)]
    assert [R("attacked_with", use=use(1, "WEREWOLF", 3), ref=["3.2.1"]),
            R("protected_by", use=use(0, "WITCH_DOCTOR"), seat=3, n=1, ref=["3.3.5"]),
            R("no_loss")] in chains
    assert any(c[0] == R("attacked_with", use=use(2, "SNIPER", 3), ref=["3.3.1"])
               and c[-1] == R("target_loses", seat=3) for c in chains)
    assert RULES.view(g.state, 3)["log"] == [e for e in g.state["log"]
                                             if visible_to(e["visibility"], 3)]
