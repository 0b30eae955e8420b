"""Every card kind of 猫有n条命 (§3), one behaviour per test.

The FIVE deal (tests/engine/ninelives/deals.py) with the default loss orders:
    seat 1 killer:   DEMON, WITCH_DOCTOR, VEST, JAIL, KILLER
    seat 2 wolf:     SORCERER, SOULBINDER, WOLFSBANE, PARDON, WEREWOLF
    seat 3 civilian: DIVINER, KILLER, SORCERER, SAINT, SNIPER
    seat 4 civilian: PROPHET, WEREWOLF, STRIKE, CURSE, DIVINER
    seat 5 civilian: DEMON, BLESS, COUNTER_SNIPER, BOMB, PROPHET
    taints: killer STRIKE (seat 4), BLESS (seat 5); wolf JAIL (seat 1), SAINT (seat 3)
Steps use 0-based seats: seat 1 above is 0 below.
"""

from __future__ import annotations

from games.engine.base import GM, SPECTATOR, visible_to

from .deals import FIVE
from .helpers import MANIFESTO, RULES, Game, deal_with, seats_named

KILLER_SEAT, WOLF_SEAT = 0, 1


# --- attacks (§3.1.1, §3.2.1, §3.3.1) and manifestos (§3.5.2) ------------------------------

def test_killer_attack_costs_the_first_card_of_the_loss_order():
    g = Game()
    events = g.night({0: ("KILLER", 3)})
    assert g.losses(events) == [(3, "PROPHET")]
    public = [e for e in events if e["kind"] == "card_lost"]
    assert [(e["data"]["seat"], e["data"]["camp"]) for e in public] == [(3, "civilian")]
    assert "PROPHET" not in str(public)
    private = g.find("own_card_lost", events)[0]
    assert private["visibility"] == {"public": False, "seats": [3]}
    assert g.hand(3) == ["DIVINER", "WEREWOLF", "STRIKE", "CURSE"]


def test_attack_publishes_the_manifesto_without_its_author():
    g = Game()
    events = g.night({0: ("KILLER", 3)})
    (m,) = g.find("manifesto", events)
    assert m["visibility"]["public"] and m["data"] == {"target": 3, "text": MANIFESTO,
                                                       "story": False}
    assert 0 not in seats_named(m["because"])


def test_werewolf_attack_costs_a_card():
    g = Game()
    assert g.losses(g.night({1: ("WEREWOLF", 2)})) == [(2, "DIVINER")]


def test_sniper_attack_costs_a_card():
    g = Game()
    assert g.losses(g.night({2: ("SNIPER", 1)})) == [(1, "SORCERER")]


def test_manifesto_counts_characters_not_bytes():
    g = Game()
    short = g.refused(0, "use_card", card="KILLER", target=3, manifesto="猫" * 99)
    assert short.code == "manifesto_too_short" and short.params == {"min": 100, "got": 99}
    assert g.refused(0, "use_card", card="KILLER", target=3, manifesto="a" * 99).code \
        == "manifesto_too_short"
    g.do(0, "use_card", card="KILLER", target=3, manifesto="猫" * 100)  # 300 bytes, 100 chars


def test_attack_without_any_text_is_refused():
    g = Game()
    assert g.refused(0, "use_card", card="KILLER", target=3).code == "manifesto_too_short"


def test_a_story_lifts_the_minimum_length():
    g = Game()
    g.do(0, "use_card", card="KILLER", target=3, story="短篇")
    events = g.end()
    assert g.find("manifesto", events)[0]["data"]["story"] is True
    assert g.losses(events) == [(3, "PROPHET")]


def test_rejected_manifesto_drops_the_attack_unless_sent_again():
    g = Game()
    g.use(0, "KILLER", 3)
    g.do(GM, "reject_manifesto", seat=0, reason="copied from a book")
    assert 0 in RULES.phase(g.state).awaiting
    events = g.end()
    assert g.losses(events) == [] and g.find("attack_dropped", events)


def test_attack_sent_again_after_a_rejection_lands():
    g = Game()
    g.use(0, "KILLER", 3, story="a lazy story")
    g.do(GM, "reject_manifesto", seat=0)
    g.use(0, "KILLER", 3)
    assert g.losses(g.end()) == [(3, "PROPHET")]


def test_non_attack_cards_take_no_manifesto():
    g = Game()
    assert g.refused(0, "use_card", card="DEMON", target=2, manifesto=MANIFESTO).code == "no_text"


# --- investigations (§3.1.2, §3.2.2, §3.3.2, §3.3.3, §3.5.1) ---------------------------------

def answer(events, seat):
    (e,) = [e for e in events if e["kind"] == "investigation" and e["data"]["seat"] == seat]
    return e


def test_demon_asks_for_a_diviner():
    g = Game()
    events = g.night({0: ("DEMON", 2), 4: ("DEMON", 1)})
    assert answer(events, 0)["data"]["found"] is True
    assert answer(events, 4)["data"]["found"] is False


def test_sorcerer_asks_for_a_prophet():
    g = Game()
    events = g.night({1: ("SORCERER", 3), 2: ("SORCERER", 0)})
    assert answer(events, 1)["data"]["found"] is True
    assert answer(events, 2)["data"]["found"] is False


def test_diviner_finds_a_killer_card():
    g = Game()
    assert answer(g.night({3: ("DIVINER", 0)}), 3)["data"]["found"] is True


def test_diviner_cannot_see_a_demon():
    deal = deal_with(FIVE, taints={"killer": ["VEST", "STRIKE"], "wolf": ["JAIL", "SAINT"]})
    g = Game(deal)
    assert answer(g.night({3: ("DIVINER", 4)}), 3)["data"]["found"] is False  # seat 5: DEMON


def test_diviner_is_fooled_by_a_killer_taint():
    g = Game()  # seat 5 holds BLESS, killer-tainted, and no KILLER
    assert answer(g.night({3: ("DIVINER", 4)}), 3)["data"]["found"] is True


def test_prophet_finds_a_werewolf_card():
    g = Game()
    assert answer(g.night({4: ("PROPHET", 1)}), 4)["data"]["found"] is True


def test_prophet_cannot_see_a_sorcerer():
    deal = deal_with(FIVE, taints={"killer": ["STRIKE", "BLESS"], "wolf": ["JAIL", "BOMB"]})
    g = Game(deal)
    assert answer(g.night({4: ("PROPHET", 2)}), 4)["data"]["found"] is False  # SORCERER only


def test_prophet_is_fooled_by_a_wolf_taint():
    g = Game()  # seat 3 holds SAINT, wolf-tainted, and no WEREWOLF
    assert answer(g.night({4: ("PROPHET", 2)}), 4)["data"]["found"] is True


def test_investigation_result_is_private_to_the_investigator():
    g = Game()
    e = answer(g.night({3: ("DIVINER", 0)}), 3)
    assert e["visibility"] == {"public": False, "seats": [3]}
    for viewer in (0, 1, 2, 4, SPECTATOR):
        assert not visible_to(e["visibility"], viewer)


def test_investigation_sees_the_hand_at_nightfall():
    g = Game()  # seat 3's DIVINER is lost tonight, yet the DEMON still finds it
    events = g.night({0: ("KILLER", 2), 4: ("DEMON", 2)})
    assert g.losses(events) == [(2, "DIVINER")]
    assert answer(events, 4)["data"]["found"] is True


def test_investigations_cannot_target_oneself():
    g = Game()
    assert g.refused(3, "use_card", card="DIVINER", target=3).code == "not_self"


# --- SOULBINDER and WITCH_DOCTOR (§3.3.4, §3.3.5) -------------------------------------------

def test_soulbinder_saves_from_a_killer_and_the_saved_seat_may_not_vote():
    g = Game()
    events = g.night({0: ("KILLER", 3), 1: ("SOULBINDER", 3)})
    assert g.losses(events) == []
    assert g.find("protected", events, seat=3)[0]["visibility"]["public"]
    assert g.public["no_vote"] == [3]
    assert g.refused(3, "vote", target=0).code == "may_not_vote"
    assert 3 not in RULES.phase(g.state).awaiting


def test_saved_seat_may_not_vote_in_the_runoff_either():
    g = Game()
    g.night({0: ("KILLER", 3), 1: ("SOULBINDER", 3)})
    g.all_vote({0: 1, 1: 0, 2: 0, 4: 1})
    assert g.phase() == ("runoff", 1)
    assert g.refused(3, "vote", target=0).code == "may_not_vote"


def test_soulbinder_does_not_stop_a_werewolf():
    g = Game()
    assert g.losses(g.night({3: ("WEREWOLF", 2), 1: ("SOULBINDER", 2)})) == [(2, "DIVINER")]


def test_unneeded_protection_is_not_announced():
    g = Game()
    events = g.night({1: ("SOULBINDER", 3)})
    assert not g.find("protected", events) and g.public["no_vote"] == []


def test_soulbinder_on_the_same_unattacked_seat_two_nights_running_costs_it_a_card():
    g = Game()
    g.night({1: ("SOULBINDER", 4)})
    g.quiet_day()
    events = g.night({1: ("SOULBINDER", 4)})
    assert g.losses(events) == [(4, "DEMON")]
    assert g.find("card_lost", events)[0]["data"]["cause"] == "failed_protection"


def test_soulbinder_twice_is_no_failure_if_a_killer_attacked_one_of_the_nights():
    g = Game()
    events = g.night({1: ("SOULBINDER", 4), 0: ("KILLER", 4)})
    assert g.losses(events) == []
    g.quiet_day()
    assert g.losses(g.night({1: ("SOULBINDER", 4)})) == []


def test_soulbinder_with_a_night_between_is_no_failure():
    g = Game()
    g.night({1: ("SOULBINDER", 4)})
    g.quiet_day()
    g.night()
    g.quiet_day()
    assert g.losses(g.night({1: ("SOULBINDER", 4)})) == []


def test_witch_doctor_saves_from_a_werewolf():
    g = Game()
    events = g.night({1: ("WEREWOLF", 2), 0: ("WITCH_DOCTOR", 2)})
    assert g.losses(events) == [] and g.public["no_vote"] == [2]


def test_witch_doctor_does_not_stop_a_killer():
    g = Game()
    assert g.losses(g.night({2: ("KILLER", 3), 0: ("WITCH_DOCTOR", 3)})) == [(3, "PROPHET")]


def test_witch_doctor_on_the_same_unattacked_seat_two_nights_running_costs_it_a_card():
    g = Game()
    g.night({0: ("WITCH_DOCTOR", 3)})
    g.quiet_day()
    assert g.losses(g.night({0: ("WITCH_DOCTOR", 3)})) == [(3, "PROPHET")]


def test_a_protector_may_protect_itself():
    g = Game()
    assert g.losses(g.night({1: ("WEREWOLF", 0), 0: ("WITCH_DOCTOR", 0)})) == []


# --- VEST, WOLFSBANE, COUNTER_SNIPER (§3.4.1, §3.4.2, §3.4.5) --------------------------------

def test_vest_stops_a_killer_and_the_seat_may_still_vote():
    g = Game()
    events = g.night({2: ("KILLER", 0), 0: ("VEST", None)})
    assert g.losses(events) == [] and g.find("attack_failed", events, seat=0)
    assert g.public["no_vote"] == []


def test_vest_does_not_stop_a_werewolf():
    g = Game()
    assert g.losses(g.night({1: ("WEREWOLF", 0), 0: ("VEST", None)})) == [(0, "DEMON")]


def test_vest_does_not_stop_a_sniper():
    g = Game()
    assert g.losses(g.night({2: ("SNIPER", 0), 0: ("VEST", None)})) == [(0, "DEMON")]


def test_vest_takes_no_target():
    g = Game()
    assert g.refused(0, "use_card", card="VEST", target=3).code == "no_target"


def test_wolfsbane_stops_a_werewolf():
    g = Game()
    assert g.losses(g.night({3: ("WEREWOLF", 1), 1: ("WOLFSBANE", None)})) == []


def test_wolfsbane_does_not_stop_a_killer():
    g = Game()
    assert g.losses(g.night({0: ("KILLER", 1), 1: ("WOLFSBANE", None)})) == [(1, "SORCERER")]


def test_counter_sniper_makes_every_sniper_attack_fail():
    g = Game()
    assert g.losses(g.night({2: ("SNIPER", 0), 4: ("COUNTER_SNIPER", None)})) == []


def test_counter_sniper_does_not_stop_a_killer():
    g = Game()
    events = g.night({0: ("KILLER", 4), 4: ("COUNTER_SNIPER", None)})
    assert g.losses(events) == [(4, "DEMON")]


def test_counter_sniper_can_be_used_again_and_again():
    g = Game()
    g.night({4: ("COUNTER_SNIPER", None)})
    g.quiet_day()
    g.use(4, "COUNTER_SNIPER")


# --- JAIL (§3.4.3) -------------------------------------------------------------------------

def test_jail_voids_every_power_of_its_target():
    g = Game()
    events = g.night({1: ("WEREWOLF", 2), 0: ("JAIL", 1)})
    assert g.losses(events) == []
    voided = g.find("power_voided", events, seat=1)
    assert voided and voided[0]["visibility"]["seats"] == [1]


def test_jail_cannot_hold_the_same_seat_two_nights_running():
    g = Game()
    g.night({0: ("JAIL", 1)})
    g.quiet_day()
    assert g.refused(0, "use_card", card="JAIL", target=1).code == "jail_twice"
    g.use(0, "JAIL", 2)
    g.end()
    g.quiet_day()
    g.use(0, "JAIL", 1)  # a night between: allowed again


def test_jail_cannot_target_its_user():
    g = Game()
    assert g.refused(0, "use_card", card="JAIL", target=0).code == "not_self"


# --- PARDON (§3.4.4, §8.1) -----------------------------------------------------------------

def execute_on_day_1(g: Game, seat: int):
    """Everybody else votes for `seat`; `seat` votes for the next seat."""
    g.all_vote({seat: (seat + 1) % g.players}, default=seat)


def test_pardon_spares_the_executed_seat():
    g = Game()
    g.night()
    execute_on_day_1(g, 3)
    assert g.public["pending_execution"] == {"day": 1, "pardonable": True}
    events = g.night({1: ("PARDON", None)})
    assert g.losses(events) == [] and g.find("pardoned", events, seat=3)
    assert g.public["pardoned"] == [3]


def test_pardon_is_refused_when_nobody_awaits_one():
    g = Game()
    assert g.refused(1, "use_card", card="PARDON").code == "nothing_to_pardon"


def test_unpardoned_execution_is_announced_at_the_end_of_the_next_night():
    g = Game()
    g.night()
    day_events = execute_on_day_1(g, 3) or g.events
    assert not g.find("execution", day_events)
    events = g.night()
    assert g.find("execution", events, seat=3, day=1) and g.losses(events) == [(3, "PROPHET")]


def test_a_seat_is_pardoned_only_once():
    g = Game()
    g.night()
    execute_on_day_1(g, 3)
    g.night({1: ("PARDON", None)})
    before = len(g.events)
    g.all_vote({3: 4}, default=3)  # day 2: seat 4 executed again
    events = g.events[before:]
    assert g.find("execution", events, seat=3) and g.losses(events) == [(3, "PROPHET")]
    assert g.public["pending_execution"] is None
    assert g.refused(1, "use_card", card="PARDON").code == "nothing_to_pardon"


def test_pardon_may_spare_its_own_user():
    g = Game()
    g.night()
    execute_on_day_1(g, 1)
    assert g.losses(g.night({1: ("PARDON", None)})) == []


# --- STRIKE and BOMB (§3.4.6, §3.4.7) ---------------------------------------------------------

def test_strike_costs_a_card_and_stays_as_a_dead_card():
    g = Game()
    assert g.losses(g.night({3: ("STRIKE", 0)})) == [(0, "DEMON")]
    assert "STRIKE" in g.hand(3) and g.priv(3)["dead_cards"] == ["STRIKE"]
    g.quiet_day()
    assert g.refused(3, "use_card", card="STRIKE", target=1).code == "dead_card"


def test_strike_is_not_stopped_by_a_vest():
    g = Game()
    assert g.losses(g.night({3: ("STRIKE", 0), 0: ("VEST", None)})) == [(0, "DEMON")]


def test_strike_by_day_lands_when_the_day_ends():
    g = Game()
    g.night()
    g.use(3, "STRIKE", 1)
    assert g.losses(g.events) == []
    events = g.quiet_day()
    assert g.losses(events) == [(1, "SORCERER")]
    assert g.find("card_lost", events, seat=1)[0]["data"]["cause"] == "strike"


def test_bomb_at_night_costs_a_card_voids_the_target_and_is_spent():
    g = Game()
    events = g.night({1: ("WEREWOLF", 2), 4: ("BOMB", 1)})
    assert g.losses(events) == [(1, "SORCERER")]
    assert "BOMB" not in g.hand(4) and "BOMB" not in g.priv(4)["loss_order"]
    assert g.public["lost"][4] == []  # the spent BOMB is not announced


def test_the_bomber_is_not_named_to_anyone_but_the_gm():
    g = Game()
    events = g.night({4: ("BOMB", 1)})
    for e in events:
        if visible_to(e["visibility"], 1) or e["visibility"]["public"]:
            assert 4 not in seats_named(e["because"]), e
            assert 4 not in e["data"].values(), e


def test_bomb_by_day_voids_the_target_vote():
    g = Game()
    g.night()
    g.use(4, "BOMB", 2)
    g.do(0, "vote", target=1)
    g.do(1, "vote", target=0)
    g.do(2, "vote", target=0)  # void: seat 3 is bombed
    g.do(3, "vote", target=1)
    g.do(4, "vote", target=1)
    events = g.end()
    assert g.find("vote_void", events, seat=2)
    assert g.find("vote_closed", events)  # 3 votes to 1: seat 2 executed, not a tie
    assert g.state["secret"]["execution"]["seat"] == 1
    assert g.losses(events) == [(2, "DIVINER")]


def test_bomb_cannot_target_its_user():
    g = Game()
    assert g.refused(4, "use_card", card="BOMB", target=4).code == "not_self"


# --- CURSE and BLESS (§3.4.8, §3.4.9) ----------------------------------------------------------

def test_curse_adds_a_vote_at_the_count():
    g = Game()
    g.night()
    g.use(3, "CURSE", 0)
    # 0 and 1 get two votes each; the curse breaks the tie against seat 1
    events = g.day({0: 1, 1: 0, 2: 0, 3: 1, 4: 2})
    assert g.state["secret"]["execution"]["seat"] == 0
    assert not g.find("runoff_started", events)


def test_bless_removes_a_vote_at_the_count():
    g = Game()
    g.night()
    g.use(4, "BLESS", 0)
    g.day({0: 1, 1: 0, 2: 0, 3: 1, 4: 2})
    assert g.state["secret"]["execution"]["seat"] == 1


def test_curse_used_at_night_counts_at_the_next_day():
    g = Game()
    g.night({3: ("CURSE", 0)})
    g.day({0: 1, 1: 0, 2: 0, 3: 1, 4: 2})
    assert g.state["secret"]["execution"]["seat"] == 0


def test_curse_and_bless_do_not_reach_the_runoff():
    g = Game()
    g.night({3: ("CURSE", 0)})
    g.day({0: 1, 1: 0, 2: 0, 3: 1, 4: 2}, uses={4: ("BLESS", 0)})  # 2-1+1 = 2 vs 2: tie
    assert g.phase() == ("runoff", 1)
    assert g.refused(3, "use_card", card="CURSE", target=0).code == "not_in_runoff"
    events = g.day({0: 1, 1: 0, 2: 0, 3: 1, 4: 1})
    assert g.state["secret"]["execution"]["seat"] == 1
    assert not [e for e in events if e["kind"] == "count" and e["data"]["tally"].get("0") == 3]


def test_curse_can_be_used_again_and_again():
    g = Game()
    g.night({3: ("CURSE", 1)})
    g.day({0: 1, 1: 0, 2: 0, 3: 1, 4: 2})
    assert g.state["secret"]["execution"]["seat"] == 1
    g.use(3, "CURSE", 1)


# --- SAINT (§3.4.10) ---------------------------------------------------------------------------

def test_executed_saint_costs_each_of_its_voters_a_card():
    g = Game()
    g.night({2: ("SAINT", None)})
    events = g.day({0: 2, 1: 2, 2: 0, 3: 2, 4: 0})
    assert g.find("saint_fired", events, seat=2)
    assert g.losses(events) == [(2, "DIVINER"), (0, "DEMON"), (1, "SORCERER"), (3, "PROPHET")]
    assert "SAINT" in g.priv(2)["dead_cards"]
    assert g.public["pending_execution"] is None  # no PARDON for a saint: announced at once


def test_saint_stays_usable_until_it_fires():
    g = Game()
    g.night({2: ("SAINT", None)})
    g.quiet_day()
    g.use(2, "SAINT")
    g.end()
    events = g.day({0: 2, 1: 2, 2: 0, 3: 2, 4: 0})
    assert g.find("saint_fired", events)


def test_saint_armed_for_another_day_does_nothing():
    g = Game()
    g.night({2: ("SAINT", None)})
    g.quiet_day()
    g.night()
    events = g.day({0: 2, 1: 2, 2: 0, 3: 2, 4: 0})
    assert not g.find("saint_fired", events) and g.find("vote_closed", events)


def test_saint_can_only_be_used_at_night():
    g = Game()
    g.night()
    assert g.refused(2, "use_card", card="SAINT").code == "night_only"
