"""A bomber struck the same day (§3.4.6, §3.4.7): the BOMB is gone once used, so the STRIKE
and the day's execution take the next cards of the loss order. The same order holds by day
and by night: the STRIKEs and BOMBs of a phase are spent first, then its losses are taken.

The deal is FIVE with seat 2 (the wolf, 0-based 1) holding BOMB and COUNTER_SNIPER instead of
SOULBINDER and WOLFSBANE; its loss order is PARDON, BOMB, SORCERER, COUNTER_SNIPER, WEREWOLF.
Seat 4 (0-based 3) holds the STRIKE. Steps use 0-based seats.
"""

from __future__ import annotations

from games.engine.base import visible_to

from .deals import FIVE
from .helpers import Game, deal_with

BOMBER, TARGET, STRIKER, KILLER_SEAT = 1, 2, 3, 0
ORDER = ["PARDON", "BOMB", "SORCERER", "COUNTER_SNIPER", "WEREWOLF"]
DEAL = deal_with(
    deal_with(FIVE, swap=((1, "SOULBINDER"), (4, "BOMB"))),
    swap=((1, "WOLFSBANE"), (4, "COUNTER_SNIPER")),
)


def game_at_day_3() -> Game:
    """Night 1 costs the bomber its PARDON (the first card of its order); days 1 and 2 end
    without an execution; nights 2 and 3 pass without a card. Returns the game at day 3."""
    g = Game(DEAL, orders={BOMBER: ORDER})
    assert g.losses(g.night({KILLER_SEAT: ("KILLER", BOMBER)})) == [(BOMBER, "PARDON")]
    g.quiet_day()
    g.night()
    g.quiet_day()
    g.night()
    assert g.phase() == ("day", 3)
    assert g.hand(BOMBER) == ["WEREWOLF", "SORCERER", "BOMB", "COUNTER_SNIPER"]
    return g


def private_to(events: list, seat: int) -> list[dict]:
    return [
        e for e in events if not e["visibility"]["public"] and visible_to(e["visibility"], seat)
    ]


def test_a_bomber_struck_the_same_day_loses_the_card_after_its_spent_bomb():
    g = game_at_day_3()
    g.use(BOMBER, "BOMB", TARGET)
    g.use(STRIKER, "STRIKE", BOMBER)
    events = g.all_vote(default=BOMBER)  # the bomber is executed, pending a pardon
    assert g.state["secret"]["execution"]["seat"] == BOMBER
    assert (BOMBER, "SORCERER") in g.losses(events)
    assert (BOMBER, "BOMB") not in g.losses(events)
    assert g.hand(BOMBER) == ["WEREWOLF", "COUNTER_SNIPER"]
    assert g.priv(BOMBER)["loss_order"] == ["COUNTER_SNIPER", "WEREWOLF"]
    # The BOMB is never announced; only the STRIKE's loss is (§3.4.7, §5.8).
    assert [e["data"]["cause"] for e in g.find("card_lost", events, seat=BOMBER)] == ["strike"]
    # What the bomber is told, in this order: its BOMB went off, then the STRIKE took its
    # SORCERER; nothing else about its own cards.
    told = [
        (e["kind"], e["data"].get("card"), e["data"].get("cause"))
        for e in private_to(events, BOMBER)
    ]
    assert told == [("bomb_spent", None, None), ("own_card_lost", "SORCERER", "strike")]

    # Nobody holds a PARDON any more: the execution costs the next card at night 4's end.
    events = g.night()
    assert g.losses(events)[0] == (BOMBER, "COUNTER_SNIPER")
    assert g.hand(BOMBER) == ["WEREWOLF"]


def test_a_bomber_struck_the_same_night_loses_the_same_card():
    g = game_at_day_3()
    g.quiet_day()
    events = g.night({BOMBER: ("BOMB", TARGET), STRIKER: ("STRIKE", BOMBER)})
    assert g.losses(events)[0] == (BOMBER, "SORCERER")
    assert g.hand(BOMBER) == ["WEREWOLF", "COUNTER_SNIPER"]
    told = [
        (e["kind"], e["data"].get("card"))
        for e in private_to(events, BOMBER)
        if e["kind"] in ("bomb_spent", "own_card_lost")
    ]
    assert told == [("bomb_spent", None), ("own_card_lost", "SORCERER")]


def test_a_bomb_and_a_strike_on_other_seats_by_day_are_spent_before_any_loss():
    g = game_at_day_3()
    g.use(BOMBER, "BOMB", 4)
    g.use(STRIKER, "STRIKE", TARGET)
    events = g.quiet_day()
    kinds = [e["kind"] for e in events if e["kind"] in ("bomb_spent", "own_card_lost")]
    assert kinds[0] == "bomb_spent"
    assert [s for s, _ in g.losses(events)] == [TARGET, 4]  # the STRIKE's, then the BOMB's
    assert g.priv(STRIKER)["dead_cards"] == ["STRIKE"]
