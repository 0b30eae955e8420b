"""The resolution order and the pairwise interaction table (docs/rules/ninelives.md).

Each test names the row of the table it checks ("T3" is row 3). FIVE deal unless said; see
test_cards.py for the hands and loss orders. Seats are 0-based in steps.
"""

from __future__ import annotations

import pytest

from games.engine.ninelives.resolution import resolve_blocks

from .deals import FIVE
from .helpers import Game, deal_with

# FIVE with seat 1's JAIL and seat 5's COUNTER_SNIPER swapped: the jailer is seat 5 (index
# 4), so VEST and WITCH_DOCTOR (seat 1) can be jailed too.
JAILER_5 = deal_with(FIVE, swap=((0, "JAIL"), (4, "COUNTER_SNIPER")))

JAILABLE = [  # (seat, card, target) for every card kind but JAIL, used by someone jailed
    (1, "WEREWOLF", 2), (1, "SORCERER", 3), (1, "SOULBINDER", 2), (1, "WOLFSBANE", None),
    (2, "SNIPER", 1), (2, "DIVINER", 0), (2, "KILLER", 3), (2, "SAINT", None),
    (3, "PROPHET", 1), (3, "STRIKE", 1), (3, "CURSE", 1), (0, "DEMON", 2),
    (0, "WITCH_DOCTOR", 2), (0, "VEST", None), (0, "COUNTER_SNIPER", None),
]


# T1 ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("seat,card,target", JAILABLE,
                         ids=[c for _, c, _ in JAILABLE])
def test_t1_jail_voids_any_card_of_its_target(seat, card, target):
    g = Game(JAILER_5)
    g.use(4, "JAIL", seat)
    g.use(seat, card, target)
    events = g.end()
    assert g.find("power_voided", events, seat=seat, card=card)
    assert g.find("action_resolved", events, seat=seat, result="void")
    assert g.losses(events) == []
    assert not g.find("investigation", events)
    assert g.state["secret"]["saint"] is None and g.state["secret"]["count_effects"] == []
    if card == "STRIKE":
        assert g.priv(seat)["dead_cards"] == []  # a voided STRIKE is not spent


def test_t1_jailed_vest_does_not_protect():
    g = Game(JAILER_5)
    assert g.losses(g.night({4: ("JAIL", 0), 0: ("VEST", None), 2: ("KILLER", 0)})) \
        == [(0, "DEMON")]


def test_t1_jailed_soulbinder_does_not_save():
    g = Game()
    events = g.night({0: ("JAIL", 1), 1: ("SOULBINDER", 3), 2: ("KILLER", 3)})
    assert g.losses(events) == [(3, "PROPHET")] and g.public["no_vote"] == []


def test_t1_jailed_counter_sniper_does_not_stop_the_sniper():
    g = Game(JAILER_5)
    assert g.losses(g.night({4: ("JAIL", 0), 0: ("COUNTER_SNIPER", None),
                             2: ("SNIPER", 1)})) == [(1, "SORCERER")]


def test_t1_jailed_pardon_lets_the_execution_land():
    g = Game()
    g.night()
    g.all_vote({3: 4}, default=3)
    events = g.night({0: ("JAIL", 1), 1: ("PARDON", None)})
    assert g.find("execution", events, seat=3) and g.losses(events) == [(3, "PROPHET")]


def test_t1_jailed_saint_is_not_armed_so_no_voter_loses():
    g = Game()
    g.night({0: ("JAIL", 2), 2: ("SAINT", None)})
    events = g.day({0: 2, 1: 2, 2: 0, 3: 2, 4: 0})
    assert not g.find("saint_fired", events) and g.find("vote_closed", events)


def test_t1_jailed_bomb_is_not_spent():
    g = Game()
    events = g.night({0: ("JAIL", 4), 4: ("BOMB", 1)})
    assert g.losses(events) == [] and "BOMB" in g.hand(4)


# T2: JAIL and BOMB on each other ------------------------------------------------------------

def test_t2_jail_and_bomb_on_each_other_the_jail_lands_first():
    g = Game()
    events = g.night({0: ("JAIL", 4), 4: ("BOMB", 0)})
    assert g.losses(events) == [] and "BOMB" in g.hand(4)
    assert g.find("power_voided", events, seat=4, card="BOMB")


def test_t2_block_loops_resolve_jails_first_then_bombs():
    # a loop of one kind lands all at once; in a mixed loop the JAIL wins
    assert resolve_blocks([(0, 4, "JAIL"), (4, 0, "BOMB")]) == {0: True, 4: False}
    assert resolve_blocks([(0, 1, "JAIL"), (1, 0, "JAIL")]) == {0: True, 1: True}
    assert resolve_blocks([(0, 1, "BOMB"), (1, 0, "BOMB")]) == {0: True, 1: True}
    # a chain: 2 blocks 0, so 0's block on 1 fails and 1's block on 3 lands
    assert resolve_blocks([(2, 0, "JAIL"), (0, 1, "JAIL"), (1, 3, "BOMB")]) \
        == {2: True, 0: False, 1: True}


def test_t2_a_jailed_jailer_blocks_nobody():
    g = Game()
    # the bomber blocks the jailer: the jail on the werewolf does not land
    events = g.night({4: ("BOMB", 0), 0: ("JAIL", 1), 1: ("WEREWOLF", 2)})
    assert g.losses(events) == [(2, "DIVINER"), (0, "DEMON")]  # WEREWOLF losses before BOMB


# T3-T4: BOMB --------------------------------------------------------------------------------

def test_t3_night_bomb_voids_its_target_and_costs_a_card():
    g = Game()
    assert g.losses(g.night({4: ("BOMB", 2), 2: ("SNIPER", 1)})) == [(2, "DIVINER")]


def test_t4_day_bomb_voids_the_vote_but_not_a_day_card():
    g = Game()
    g.night()
    g.use(4, "BOMB", 3)
    g.use(3, "CURSE", 0)
    events = g.day({0: 1, 1: 0, 2: 0, 3: 1, 4: 1})
    assert g.find("vote_void", events, seat=3)
    # votes: 0 <- 1, 2; 1 <- 0, 4 (3's is void); the curse on 0 makes it 3 to 2
    assert g.state["secret"]["execution"]["seat"] == 0


# T5-T9: protections ------------------------------------------------------------------------

@pytest.mark.parametrize("attacker,card,guard", [
    (2, "SNIPER", "VEST"), (3, "STRIKE", "VEST"), (4, "BOMB", "VEST"),
])
def test_t5_vest_stops_only_the_killer(attacker, card, guard):
    g = Game()
    assert g.losses(g.night({attacker: (card, 0), 0: (guard, None)})) == [(0, "DEMON")]


@pytest.mark.parametrize("attacker,card", [(0, "KILLER"), (2, "SNIPER"), (3, "STRIKE"),
                                           (4, "BOMB")])
def test_t6_wolfsbane_stops_only_the_werewolf(attacker, card):
    g = Game()
    assert g.losses(g.night({attacker: (card, 1), 1: ("WOLFSBANE", None)})) \
        == [(1, "SORCERER")]


@pytest.mark.parametrize("attacker,card", [(2, "SNIPER"), (3, "STRIKE"), (4, "BOMB"),
                                           (3, "WEREWOLF")])
def test_t7_soulbinder_saves_only_from_the_killer(attacker, card):
    g = Game()
    events = g.night({attacker: (card, 0), 1: ("SOULBINDER", 0)})
    assert g.losses(events) == [(0, "DEMON")] and g.public["no_vote"] == []


@pytest.mark.parametrize("attacker,card", [(2, "SNIPER"), (3, "STRIKE"), (4, "BOMB"),
                                           (2, "KILLER")])
def test_t8_witch_doctor_saves_only_from_the_werewolf(attacker, card):
    g = Game()
    events = g.night({attacker: (card, 1), 0: ("WITCH_DOCTOR", 1)})
    assert g.losses(events) == [(1, "SORCERER")] and g.public["no_vote"] == []


def test_t9_own_vest_acts_before_a_soulbinder_so_the_seat_may_vote():
    g = Game()
    events = g.night({2: ("KILLER", 0), 0: ("VEST", None), 1: ("SOULBINDER", 0)})
    assert g.losses(events) == [] and g.public["no_vote"] == []
    assert g.find("attack_failed", events, seat=0) and not g.find("protected", events)


def test_t9_own_wolfsbane_acts_before_a_witch_doctor():
    g = Game()
    events = g.night({3: ("WEREWOLF", 1), 1: ("WOLFSBANE", None), 0: ("WITCH_DOCTOR", 1)})
    assert g.losses(events) == [] and g.public["no_vote"] == []


def test_t9_a_stopped_attack_still_counts_as_an_attack_for_the_failure_rule():
    g = Game()
    g.night({2: ("KILLER", 0), 0: ("VEST", None), 1: ("SOULBINDER", 0)})
    g.quiet_day()
    assert g.losses(g.night({1: ("SOULBINDER", 0)})) == []


def test_t10_counter_sniper_stops_a_sniper_on_any_seat():
    for target in (0, 1, 3, 4):
        g = Game()
        assert g.losses(g.night({2: ("SNIPER", target), 4: ("COUNTER_SNIPER", None)})) == []


# T11-T13: attacks together ----------------------------------------------------------------

def test_t11_each_landing_attack_costs_its_own_card():
    g = Game()
    events = g.night({0: ("KILLER", 4), 1: ("WEREWOLF", 4), 2: ("SNIPER", 4)})
    assert g.losses(events) == [(4, "DEMON"), (4, "BLESS"), (4, "COUNTER_SNIPER")]
    assert [e["data"]["cause"] for e in events if e["kind"] == "card_lost"] == ["attack"] * 3


def test_t11_a_soulbinder_stops_the_killer_but_not_the_werewolf_on_the_same_seat():
    g = Game()
    events = g.night({0: ("KILLER", 4), 3: ("WEREWOLF", 4), 1: ("SOULBINDER", 4)})
    assert g.losses(events) == [(4, "DEMON")] and g.public["no_vote"] == [4]


def test_t12_yesterdays_execution_is_lost_before_tonights_attacks():
    g = Game()
    g.night()
    g.all_vote({3: 4}, default=3)
    events = g.night({0: ("KILLER", 3)})
    assert g.losses(events) == [(3, "PROPHET"), (3, "WEREWOLF")]
    causes = [e["data"]["cause"] for e in events if e["kind"] == "card_lost"]
    assert causes == ["execution", "attack"]


def test_t13_losses_follow_the_fixed_order_of_kinds():
    g = Game()
    events = g.night({3: ("STRIKE", 4), 2: ("SNIPER", 4), 0: ("KILLER", 4),
                      1: ("WEREWOLF", 4)})
    causes = [e["because"][0]["args"]["use"] for e in events if e["kind"] == "loss_explained"]
    assert [c["card"] for c in causes] == ["KILLER", "WEREWOLF", "SNIPER", "STRIKE"]


# T14-T16: votes -----------------------------------------------------------------------------

def test_t14_curse_and_bless_on_the_same_seat_cancel_out():
    g = Game()
    g.night({3: ("CURSE", 0)})
    g.use(4, "BLESS", 0)
    events = g.day({0: 1, 1: 0, 2: 0, 3: 1, 4: 2})
    assert g.find("runoff_started", events)[0]["data"]["candidates"] == [0, 1]


def test_t15_pardon_cannot_spare_a_saint_that_fired():
    g = Game()
    g.night({2: ("SAINT", None)})
    g.day({0: 2, 1: 2, 2: 0, 3: 2, 4: 0})
    assert g.public["pending_execution"] is None
    assert g.refused(1, "use_card", card="PARDON").code == "nothing_to_pardon"


def test_t16_saint_voters_through_a_proxy_lose_a_card_too():
    g = Game()
    g.night({2: ("SAINT", None)})
    g.do(4, "proxy_vote", target=2)
    events = g.day({0: 2, 1: 0, 2: 0, 3: 2})
    assert g.find("saint_fired", events)[0]["data"]["voters"] == [0, 3, 4]


def test_t16_saint_fires_on_an_execution_by_runoff_and_costs_the_runoff_voters():
    g = Game()
    g.night({2: ("SAINT", None)})
    g.day({0: 2, 1: 0, 2: 0, 3: 2, 4: 1})   # 0 and 2 tie
    events = g.day({0: 2, 1: 0, 2: 0, 3: 2, 4: 2})
    assert g.find("saint_fired", events)[0]["data"]["voters"] == [0, 3, 4]
