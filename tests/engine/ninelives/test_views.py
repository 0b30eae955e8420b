"""Views: a seat sees its own hand, order, results and the public events; never another
seat's cards, taints, loss order or private results. The GM sees everything.

On top of the generic scramble check of the conformance suite, each seat's view of a game
full of private facts is searched for every other seat's secrets.
"""

from __future__ import annotations

import json

from games.engine.base import GM, SPECTATOR, visible_to
from games.engine.conformance import assert_no_leaks
from games.engine.ninelives.reasons import R

from .deals import FIVE
from .helpers import RULES, Game

ORDERS = {  # distinctive loss orders, easy to search for
    0: ["JAIL", "VEST", "WITCH_DOCTOR", "DEMON", "KILLER"],
    1: ["PARDON", "WOLFSBANE", "SOULBINDER", "SORCERER", "WEREWOLF"],
    2: ["SAINT", "SORCERER", "KILLER", "DIVINER", "SNIPER"],
    3: ["CURSE", "STRIKE", "WEREWOLF", "PROPHET", "DIVINER"],
    4: ["BOMB", "COUNTER_SNIPER", "BLESS", "DEMON", "PROPHET"],
}


def busy_game() -> Game:
    """Night 1 full of private facts, then day 1 with a proxy vote pending."""
    g = Game(orders=ORDERS)
    g.night({0: ("DEMON", 2), 1: ("SORCERER", 3), 2: ("KILLER", 4), 3: ("DIVINER", 0),
             4: ("PROPHET", 1)})
    g.do(4, "proxy_vote", target=1)
    g.use(3, "CURSE", 0)
    return g


def test_a_seat_view_holds_only_its_own_private_part():
    g = busy_game()
    for seat in range(5):
        view = RULES.view(g.state, seat)
        assert view["me"] == g.state["private"][seat]
        assert "private" not in view and "secret" not in view
        for e in view["log"]:
            assert visible_to(e["visibility"], seat)


def test_no_seat_sees_another_seat_hand_order_or_results():
    g = busy_game()
    for seat in range(5):
        text = json.dumps(RULES.view(g.state, seat), ensure_ascii=False)
        assert "taints" not in text
        for other in range(5):
            if other == seat:
                assert json.dumps(ORDERS[seat]) in text
                continue
            assert json.dumps(ORDERS[other]) not in text
            assert json.dumps(FIVE["seats"][other]["cards"]) not in text
        results = [e for e in RULES.view(g.state, seat)["log"] if e["kind"] == "investigation"]
        assert [e["data"]["seat"] for e in results] == ([] if seat == 2 else [seat])


def test_proxy_votes_and_day_cards_are_private_until_the_count():
    g = busy_game()
    for seat in (0, 1, 2, SPECTATOR):
        text = json.dumps(RULES.view(g.state, seat))
        assert "proxy_vote_received" not in text and "card_chosen" not in text[-2000:]
    assert RULES.view(g.state, 4)["me"]["proxy"] == 1


def test_the_spectator_sees_only_public_facts():
    g = busy_game()
    view = RULES.view(g.state, SPECTATOR)
    assert "me" not in view and "legal_actions" not in view
    assert all(e["visibility"]["public"] for e in view["log"])


def test_the_gm_sees_everything_with_the_causes():
    g = busy_game()
    view = RULES.view(g.state, GM)
    assert view["private"] == g.state["private"] and view["secret"] == g.state["secret"]
    assert len(view["log"]) == len(g.state["log"])
    assert view["awaiting"] == [0, 1, 2, 3]
    assert all(e["because"] for e in view["log"])


def test_every_event_explains_itself():
    g = busy_game()
    g.all_vote(default=1)
    g.night({0: ("KILLER", 1)})
    for e in g.state["log"]:
        assert e["because"] and all(not R.problems(reason) for reason in e["because"])


def test_a_seat_view_offers_its_legal_actions():
    g = busy_game()
    view = RULES.view(g.state, 2)
    assert view["legal_actions"] == [
        {"kind": c.kind, "params": c.params, "label": c.label,
         "text_fields": [dict(name=f.name, min_chars=f.min_chars, max_chars=f.max_chars,
                              required=f.required) for f in c.text_fields]}
        for c in RULES.legal_actions(g.state, 2)]
    assert any(a["kind"] == "vote" for a in view["legal_actions"])


def test_views_survive_the_scramble_check_at_every_step():
    g = busy_game()
    g.all_vote(default=1)
    g.night({0: ("KILLER", 1), 1: ("PARDON", None)})
    assert_no_leaks(RULES, g.state)
