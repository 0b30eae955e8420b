"""One card per round (§3.5.3), changing a choice until the phase ends (§3.5.5), dead and
lost cards (§5.5), and what the service's clock reads: `phase().awaiting`.

FIVE deal; see test_cards.py for the hands and loss orders. Seats are 0-based in steps.
"""

from __future__ import annotations

from .helpers import RULES, Game


def test_a_new_choice_replaces_the_old_one():
    g = Game()
    g.use(0, "KILLER", 3)
    g.use(0, "KILLER", 2)
    assert g.losses(g.end()) == [(2, "DIVINER")]


def test_a_withdrawn_choice_has_no_effect():
    g = Game()
    g.use(0, "KILLER", 3)
    g.do(0, "withdraw")
    assert g.losses(g.end()) == []
    assert g.priv(0)["uses"] == {}  # a withdrawn card was not used


def test_withdraw_without_a_choice_is_refused():
    g = Game()
    assert g.refused(0, "withdraw").code == "nothing_to_withdraw"


def test_night_awaits_a_card_or_a_pass_and_the_loss_orders():
    g = Game(set_orders=False)
    assert RULES.phase(g.state).awaiting == {0, 1, 2, 3, 4}
    g.do(0, "pass")
    assert 0 in RULES.phase(g.state).awaiting  # still owes its loss order
    g.do(0, "loss_order", cards=["DEMON", "WITCH_DOCTOR", "VEST", "JAIL", "KILLER"])
    assert 0 not in RULES.phase(g.state).awaiting


def test_a_card_at_night_and_one_by_day_forbid_any_card_the_next_round():
    g = Game()
    g.night({3: ("DIVINER", 0)})
    g.use(3, "CURSE", 1)
    g.day({0: 1, 1: 0, 2: 0, 3: 1, 4: 2})  # seat 1 executed (curse)
    refusal = g.refused(3, "use_card", card="PROPHET", target=1)
    assert refusal.code == "banned_round"
    assert all(c.kind != "use_card" for c in RULES.legal_actions(g.state, 3))
    assert 3 not in RULES.phase(g.state).awaiting  # nothing to decide tonight
    g.end()
    assert g.refused(3, "use_card", card="CURSE", target=1).code == "banned_round"
    g.all_vote({3: 0, 0: 1}, default=0)
    g.use(3, "PROPHET", 1)  # round 3 is free again


def test_a_card_at_night_alone_leaves_the_next_round_free():
    g = Game()
    g.night({3: ("DIVINER", 0)})
    g.quiet_day()
    g.use(3, "DIVINER", 1)


def test_a_card_by_day_alone_leaves_the_next_round_free():
    g = Game()
    g.night()
    g.use(3, "CURSE", 1)
    g.day({0: 1, 1: 0, 2: 0, 3: 1, 4: 2})
    g.use(3, "DIVINER", 1)


def test_a_voided_card_still_counts_as_used():
    g = Game()
    g.night({3: ("DIVINER", 0), 0: ("JAIL", 3)})
    g.use(3, "CURSE", 1)
    g.day({0: 1, 1: 0, 2: 0, 3: 1, 4: 2})
    assert g.refused(3, "use_card", card="PROPHET", target=1).code == "banned_round"


def test_only_the_four_day_cards_can_be_used_by_day():
    g = Game()
    g.night()
    assert g.refused(0, "use_card", card="KILLER", target=3,
                     manifesto="x" * 100).code == "night_only"
    for seat, card in ((3, "STRIKE"), (4, "BOMB"), (3, "CURSE"), (4, "BLESS")):
        assert any(c.params.get("card") == card for c in RULES.legal_actions(g.state, seat))


def test_one_card_by_day_even_across_the_runoff():
    g = Game()
    g.night()
    g.use(4, "BLESS", 3)
    g.day({0: 1, 1: 0, 2: 0, 3: 1, 4: 2})
    assert g.phase() == ("runoff", 1)
    assert g.refused(4, "use_card", card="BOMB", target=2).code == "one_day_card"


def test_day_cards_may_also_be_used_at_night():
    g = Game()
    g.use(3, "CURSE", 1)
    g.use(4, "BOMB", 0)
    g.end()


def test_a_lost_card_cannot_be_used():
    g = Game()
    g.night({0: ("KILLER", 3)})  # seat 4 loses PROPHET
    g.quiet_day()
    assert g.refused(3, "use_card", card="PROPHET", target=1).code == "not_in_hand"


def test_unknown_cards_and_kinds_are_refused():
    g = Game()
    assert g.refused(0, "use_card", card="DRAGON", target=1).code == "unknown_card"
    assert g.refused(0, "use_card", card=["KILLER"], target=1).code == "unknown_card"
    assert g.refused(0, "fly").code == "unknown_kind"
    assert g.refused(0, "use_card", card="DEMON", target=1, colour="red").code == "bad_params"
    assert g.refused(9, "pass").code == "bad_actor"
    assert g.refused(True, "pass").code == "bad_actor"


def test_passing_is_for_the_night_only():
    g = Game()
    g.night()
    assert g.refused(0, "pass").code == "wrong_phase"


def test_a_game_over_accepts_nothing():
    g = Game()
    g.do("gm", "abort", reason="the forum went down")
    assert g.outcome().result == "aborted"
    assert g.refused(0, "pass").code == "game_over"
    assert RULES.phase(g.state).finished and RULES.legal_actions(g.state, 0) == []
