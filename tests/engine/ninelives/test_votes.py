"""Day votes, runoffs and proxy votes (§8), the executions they lead to, and §9.1.5.

FIVE deal; see test_cards.py for the hands and loss orders. Seats are 0-based in steps.
"""

from __future__ import annotations

from games.engine.base import GM, SPECTATOR, visible_to

from .helpers import RULES, Game


def day_one() -> Game:
    g = Game()
    g.night()
    return g


def test_the_seat_with_most_votes_is_executed_but_named_only_after_the_next_night():
    g = day_one()
    events = g.day({0: 1, 1: 0, 2: 0, 3: 0, 4: 1})
    closed = g.find("vote_closed", events)
    assert closed and closed[0]["visibility"]["public"]
    public_text = str([e for e in events if e["visibility"]["public"]])
    assert "execution_pending" not in public_text
    assert g.find("execution_pending", events, seat=0)[0]["visibility"] == {"public": False,
                                                                            "seats": []}
    assert g.alive(0) and "DEMON" in g.hand(0)  # keeps its card through the night
    assert g.losses(g.night()) == [(0, "DEMON")]


def test_the_executed_seat_may_still_use_its_cards_that_night():
    g = day_one()
    g.day({0: 1, 1: 0, 2: 0, 3: 0, 4: 1})
    events = g.night({0: ("DEMON", 2)})  # DEMON is the card it loses at dawn
    assert g.find("investigation", events, seat=0)[0]["data"]["found"] is True
    assert g.losses(events) == [(0, "DEMON")]


def test_votes_are_public_and_final():
    g = day_one()
    (e,) = g.do(2, "vote", target=0)
    assert e["kind"] == "vote_cast" and e["visibility"]["public"]
    assert g.refused(2, "vote", target=1).code == "vote_final"


def test_a_vote_must_name_a_living_seat():
    g = day_one()
    assert g.refused(2, "vote", target=7).code == "bad_target"
    assert g.refused(2, "vote", target=None).code == "bad_target"
    assert g.refused(2, "vote", target=True).code == "bad_target"
    g.do(2, "vote", target=2)  # a seat may vote for itself


def test_votes_are_for_the_day_only():
    g = Game()
    assert g.refused(2, "vote", target=0).code == "no_vote_now"


def test_a_tie_opens_a_runoff_among_the_tied_seats():
    g = day_one()
    events = g.day({0: 1, 1: 0, 2: 0, 3: 1, 4: 2})
    (r,) = g.find("runoff_started", events)
    assert r["data"]["candidates"] == [0, 1] and g.phase() == ("runoff", 1)
    assert g.refused(2, "vote", target=3).code == "vote_among_tied"
    g.day({0: 1, 1: 0, 2: 0, 3: 0, 4: 1})
    assert g.state["secret"]["execution"]["seat"] == 0


def test_a_second_tie_means_no_execution():
    g = day_one()
    g.day({0: 1, 1: 0, 2: 0, 3: 1, 4: 2})
    g.use(4, "BOMB", 2)  # a runoff vote is voided, so the four others can tie 2-2
    events = g.day({0: 1, 1: 0, 2: 0, 3: 1, 4: 0})
    assert g.find("vote_void", events, seat=2)
    assert g.find("no_execution", events) and g.phase() == ("night", 2)
    assert g.state["secret"]["execution"] is None


def test_a_tied_seat_bombed_dead_leaves_the_other_tied_seat_executed():
    g = Game()
    # night 1: seat 2 loses four of its five cards (one attacks itself)
    g.night({0: ("KILLER", 1), 2: ("SNIPER", 1), 3: ("STRIKE", 1), 1: ("WEREWOLF", 1)})
    assert g.hand(1) == ["WEREWOLF"]
    g.use(4, "BOMB", 1)
    # 0 and 1 get two votes each; the bomb voids seat 2's vote and kills it
    events = g.day({0: 1, 1: 2, 2: 0, 3: 1, 4: 0})
    assert not g.alive(1) and not g.find("runoff_started", events)
    assert g.state["secret"]["execution"]["seat"] == 0


def test_proxy_vote_counts_after_the_others_and_is_private_until_then():
    g = day_one()
    (e,) = g.do(4, "proxy_vote", target=0)
    assert e["visibility"] == {"public": False, "seats": [4]}
    for seat in range(4):
        g.do(seat, "vote", target=(seat + 1) % 4 if seat != 3 else 0)
    events = g.end()  # votes: 0 <- 3, 4(proxy); 1 <- 0; 2 <- 1; 3 <- 2
    kinds = g.kinds(events)
    assert kinds.index("proxy_vote_published") < kinds.index("vote_closed")
    assert g.state["secret"]["execution"]["seat"] == 0


def test_proxy_vote_may_change_until_the_count():
    g = day_one()
    g.do(4, "proxy_vote", target=1)
    g.do(4, "proxy_vote", target=0)
    g.day({0: 1, 1: 0, 2: 0, 3: 2})
    assert g.state["secret"]["execution"]["seat"] == 0


def test_the_same_proxy_vote_again_is_refused_as_it_is_not_offered():
    g = day_one()
    g.do(4, "proxy_vote", target=1)
    refused = g.refused(4, "proxy_vote", target=1)
    assert (refused.code, refused.params) == ("proxy_unchanged", {})
    offered = {(c.kind, c.params.get("target")) for c in RULES.legal_actions(g.state, 4)}
    assert ("proxy_vote", 1) not in offered and ("proxy_vote", 0) in offered


def test_voting_in_person_voids_the_proxy_vote():
    g = day_one()
    g.do(4, "proxy_vote", target=1)
    events = g.do(4, "vote", target=0)
    assert g.find("proxy_void", events, seat=4)
    events = g.day({0: 1, 1: 0, 2: 0, 3: 2})
    assert not g.find("proxy_vote_published", events)
    assert g.state["secret"]["execution"]["seat"] == 0


def test_proxy_vote_after_voting_is_refused():
    g = day_one()
    g.do(4, "vote", target=0)
    assert g.refused(4, "proxy_vote", target=1).code == "vote_final"


def test_no_vote_and_no_proxy_means_out():
    g = day_one()
    events = g.day({0: 1, 1: 0, 2: 0, 3: 0})
    assert g.find("foul_out", events, seat=4)
    died = g.find("seat_died", events, seat=4)
    assert died and died[0]["data"]["camp"] == "civilian" and not g.alive(4)
    assert g.refused(4, "use_card", card="BOMB", target=0).code == "dead"


def test_a_proxy_vote_alone_keeps_the_seat_in():
    g = day_one()
    g.do(4, "proxy_vote", target=1)
    g.day({0: 1, 1: 0, 2: 0, 3: 0})
    assert g.alive(4)


def test_awaiting_lists_the_seats_that_still_owe_a_vote():
    g = day_one()
    assert RULES.phase(g.state).awaiting == {0, 1, 2, 3, 4}
    g.do(0, "vote", target=1)
    g.do(1, "proxy_vote", target=0)
    assert RULES.phase(g.state).awaiting == {2, 3, 4}


def test_the_count_is_gm_only_while_a_pardon_is_possible():
    g = day_one()
    events = g.day({0: 1, 1: 0, 2: 0, 3: 0, 4: 1})
    (count,) = g.find("count", events)
    assert not count["visibility"]["public"]
    for viewer in (0, 1, 2, 3, 4, SPECTATOR):
        assert not visible_to(count["visibility"], viewer)
    assert visible_to(count["visibility"], GM)
    night = g.night()
    assert g.find("execution", night)[0]["data"]["tally"]["tally"] == {"0": 3, "1": 2}


def test_a_day_proxy_does_not_carry_into_the_runoff():
    g = day_one()
    g.do(4, "proxy_vote", target=2)
    g.day({0: 1, 1: 0, 2: 0, 3: 1})  # 0 and 1 tie; seat 5's proxy went to seat 3
    assert g.phase() == ("runoff", 1) and 4 in RULES.phase(g.state).awaiting
    assert g.priv(4)["proxy"] is None
    events = g.day({0: 1, 1: 0, 2: 0, 3: 0})
    assert g.find("foul_out", events, seat=4)
