"""The deal commitment text: the dealer's canonical form of the deal the game was dealt, the
same at every point of the game and on replay (the service hashes it at the start and reveals
it at the end)."""

from __future__ import annotations

import json

from games.engine.base import replay
from games.engine.ninelives import dealing

from .deals import FIVE, SIX
from .helpers import RULES, Game


def test_the_text_is_the_canonical_form_of_the_fixed_deal():
    g = Game(FIVE)
    text = RULES.commitment_text(g.state)
    assert text == dealing.canonical(dealing.Deal.from_json(FIVE))
    # the canonical form: sorted keys, no spaces, every hand in it, seat by seat
    parsed = json.loads(text)
    assert [s["camp"] for s in parsed["seats"]] == [s["camp"] for s in FIVE["seats"]]
    assert [sorted(s["cards"]) for s in parsed["seats"]] == [
        sorted(s["cards"]) for s in FIVE["seats"]]
    assert " " not in text


def test_two_different_deals_give_two_different_texts():
    assert RULES.commitment_text(Game(FIVE).state) != RULES.commitment_text(Game(SIX).state)


def test_a_random_deal_is_committed_as_drawn():
    state = RULES.initial_state(seats=5, seed="commit-random").state
    drawn = next(e for e in state["log"] if e["kind"] == "chance")["data"]["deal"]
    assert RULES.commitment_text(state) == dealing.canonical(dealing.Deal.from_json(drawn))


def test_the_text_does_not_change_during_the_game_nor_on_replay():
    g = Game(FIVE)
    start = RULES.commitment_text(g.state)
    g.night({0: ("KILLER", 2), 3: ("DIVINER", 0), 1: ("WEREWOLF", 4)})
    g.all_vote(default=1)
    g.end()
    assert RULES.commitment_text(g.state) == start
    setup = {"seats": 5, "config": {"deal": FIVE}, "seed": "test"}
    replayed = replay(RULES, setup, g.steps)
    assert replayed == g.state
    assert RULES.commitment_text(replayed) == start


def test_the_text_verifies_against_its_commitment():
    state = Game(SIX).state
    text = RULES.commitment_text(state)
    salt = dealing.new_salt()
    digest = dealing.commitment(dealing.Deal.from_json(state["secret"]["deal"]), salt)
    assert dealing.verify(text, salt, digest)
    assert not dealing.verify(text.replace("KILLER", "DEMON", 1), salt, digest)
