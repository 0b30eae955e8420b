"""The engine interface (`games/engine/base.py`) and the generic conformance checks
(`games/engine/conformance.py`), exercised by a toy rule set small enough to read at once.

High card: every seat is dealt a secret card from 1 to 9 by lot. In each of a few rounds a
seat still in the game either raises, folds, or whispers to another seat (a private message
only the two of them see). When the rounds run out, or one seat is left, the cards are shown
and the highest card still in wins.
"""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import conformance
from games.engine.base import (
    AUDIENCE,
    GM,
    SPECTATOR,
    Choice,
    Outcome,
    PhaseInfo,
    Refusal,
    RuleSet,
    TextField,
    Transition,
    action,
    draw_random,
    emit,
    end_phase,
    fresh_state,
    gm_only,
    make_event,
    public,
    replay,
    seats,
)
from games.engine.events import NUMBER, SEAT, SPEAKER, WORDS, BySeat, PerSeat, Schema, kind


class HighCard(RuleSet):
    name = "highcard"
    min_seats = 2
    max_seats = 4
    schema = Schema(events={
        "dealt": kind("The deal (GM only).", cards=PerSeat(NUMBER)),
        "your_card": kind("A seat's card.", card=NUMBER),
        "round": kind("A round begins.", number=NUMBER),
        "raised": kind("A seat raised.", seat=SEAT),
        "folded": kind("A seat folded.", seat=SEAT),
        "whisper": kind("A whisper.", seat=SPEAKER, text=WORDS),
        "showdown": kind("The cards shown.", cards=BySeat(NUMBER)),
    })

    def default_config(self) -> dict:
        return {"rounds": 3}

    def initial_state(self, *, seats: int, config: dict | None = None,
                      seed: str) -> Transition:
        if not isinstance(seats, int) or not self.min_seats <= seats <= self.max_seats:
            raise ValueError("high card is played by 2 to 4 seats")
        state = fresh_state(self.name, seats=seats,
                            config={**self.default_config(), **(config or {})}, seed=seed)
        events: list[dict] = []
        cards = draw_random(state, "deal").sample(range(1, 10), seats)
        state["secret"]["cards"] = cards
        emit(state, events, make_event("dealt", gm_only(), because=[
            "Every seat was dealt one card from 1 to 9 by lot."], cards=cards))
        for seat, card in enumerate(cards):
            state["private"][seat]["card"] = card
            emit(state, events, make_event("your_card", _seats(seat), because=[
                f"Seat {seat + 1} was dealt a {card}."], card=card))
        state["public"] = {"round": 1, "raises": [0] * seats, "folded": [], "acted": [],
                           "shown": None}
        emit(state, events, make_event("round", public(), because=["The game begins."],
                                       number=1))
        return Transition(state, events)

    # what may be done now
    def phase(self, state) -> PhaseInfo:
        pub = state["public"]
        waiting = frozenset(self._in(state)) - set(pub["acted"])
        return PhaseInfo("round", pub["round"], waiting if pub["shown"] is None else frozenset(),
                         finished=pub["shown"] is not None)

    def legal_actions(self, state, actor) -> list[Choice]:
        if self._refusal(state, actor) is not None:
            return []
        others = [s for s in range(len(state["private"])) if s != actor]
        return [Choice("raise", {}), Choice("fold", {})] + [
            Choice("whisper", {"to": s}, (TextField("text", min_chars=3, max_chars=200),))
            for s in others]

    # doing it
    def apply(self, state, step) -> Transition | Refusal:
        if not isinstance(step, dict) or not isinstance(step.get("params"), dict):
            return Refusal("malformed")
        actor, kind, params = step.get("actor"), step.get("kind"), step["params"]
        refusal = self._refusal(state, actor)
        if refusal is not None:
            return refusal
        if kind not in ("raise", "fold", "whisper"):
            return Refusal("unknown_action")
        if kind == "whisper":
            to, text = params.get("to"), params.get("text")
            if not _is_seat(to, state) or to == actor:
                return Refusal("bad_target")
            if not isinstance(text, str) or not 3 <= len(text) <= 200:
                return Refusal("bad_text")
        new = copy.deepcopy(state)
        events: list[dict] = []
        pub = new["public"]
        pub["acted"].append(actor)
        who = f"Seat {actor + 1}"
        if kind == "raise":
            pub["raises"][actor] += 1
            emit(new, events, make_event("raised", public(), because=[f"{who} raised."],
                                         seat=actor))
        elif kind == "fold":
            pub["folded"].append(actor)
            emit(new, events, make_event("folded", public(), because=[f"{who} folded."],
                                         seat=actor))
        else:
            emit(new, events, make_event("whisper", _seats(actor, params["to"]), because=[
                f"{who} whispered to seat {params['to'] + 1}."], seat=actor, text=params["text"]))
        return Transition(new, events)

    def end_phase(self, state) -> Transition:
        new = copy.deepcopy(state)
        events: list[dict] = []
        pub = new["public"]
        if pub["shown"] is not None:
            return Transition(new, events)
        if pub["round"] < new["config"]["rounds"] and len(self._in(new)) > 1:
            pub["round"] += 1
            pub["acted"] = []
            emit(new, events, make_event("round", public(), because=[
                f"Round {pub['round'] - 1} ended."], number=pub["round"]))
        else:
            pub["shown"] = {str(s): new["secret"]["cards"][s] for s in self._in(new)}
            emit(new, events, make_event("showdown", public(), because=[
                "The last round ended, or one seat was left."], cards=pub["shown"]))
        return Transition(new, events)

    def outcome(self, state) -> Outcome | None:
        shown = state["public"]["shown"]
        if shown is None:
            return None
        if not shown:
            return Outcome("draw", (), "Everybody folded.")
        best = max(shown, key=shown.get)
        return Outcome("win", (int(best),), f"Seat {int(best) + 1} holds the highest card.")

    # helpers
    def _in(self, state) -> list[int]:
        return [s for s in range(len(state["private"])) if s not in state["public"]["folded"]]

    def _refusal(self, state, actor) -> Refusal | None:
        if not _is_seat(actor, state):
            return Refusal("not_a_seat")
        pub = state["public"]
        if pub["shown"] is not None:
            return Refusal("over")
        if actor in pub["folded"]:
            return Refusal("folded")
        if actor in pub["acted"]:
            return Refusal("already_acted")
        return None


def _is_seat(value, state) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)
            and 0 <= value < len(state["private"]))


def _seats(*numbers: int) -> dict:
    """`base.seats`, under a name the `seats` argument of `initial_state` does not hide."""
    return seats(*numbers)


RULES = HighCard()


def start(n: int = 3, seed: str = "s1") -> dict:
    return RULES.initial_state(seats=n, seed=seed).state


# --- the generic conformance checks ----------------------------------------------------------

@settings(max_examples=15, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 10**6))
def test_the_toy_rule_set_passes_the_conformance_checks(players, seed):
    play = conformance.check_ruleset(RULES, seats=players, seed=seed)
    assert RULES.outcome(play.final) is not None
    assert play.steps and len(play.states) == len(play.steps) + 1


class LeakyHighCard(HighCard):
    def view(self, state, viewer):
        out = super().view(state, viewer)
        out["everyone"] = state["secret"].get("cards")  # a bug: every seat sees every card
        return out


class MutatingHighCard(HighCard):
    def end_phase(self, state):
        state["public"]["touched"] = True                # a bug: changes its input
        return super().end_phase(state)


def test_the_conformance_checks_catch_a_leaky_view():
    with pytest.raises(AssertionError, match="reads hidden state"):
        conformance.check_ruleset(LeakyHighCard(), seats=3, seed=1)


def test_the_conformance_checks_catch_a_rule_set_that_mutates_its_input():
    with pytest.raises(AssertionError, match="mutated its input"):
        conformance.check_ruleset(MutatingHighCard(), seats=3, seed=1)


class StingyHighCard(HighCard):
    """Offers nothing to seat 2 but still accepts its steps."""

    def legal_actions(self, state, actor) -> list[Choice]:
        return [] if actor == 1 else super().legal_actions(state, actor)


def test_the_conformance_checks_catch_a_rule_set_that_accepts_a_step_it_did_not_offer():
    with pytest.raises(AssertionError, match="did not offer was accepted"):
        for seed in range(5):
            conformance.random_playthrough(StingyHighCard(), seats=3, seed=seed,
                                           probe_odds=1.0)



# --- the interface itself -----------------------------------------------------------------

def test_a_refusal_is_a_falsy_value_with_a_reason_and_the_state_is_untouched():
    state = start()
    after = RULES.apply(state, action(0, "raise")).state
    before = copy.deepcopy(after)
    refused = RULES.apply(after, action(0, "fold"))
    assert isinstance(refused, Refusal) and not refused
    assert refused.code == "already_acted" and refused.params == {}
    assert after == before


@pytest.mark.parametrize("step", [
    None, {}, {"actor": 0, "kind": "raise"}, action(True, "raise"), action(7, "raise"),
    action("0", "raise"), action(0, "whisper", to=0, text="hello"),
    action(0, "whisper", to=1, text="no"), action(0, "whisper", to=1, text=["x" * 9]),
    action(GM, "raise"), action(0, "dance"),
])
def test_wrong_steps_are_refused_not_raised(step):
    assert isinstance(RULES.apply(start(), step), Refusal)


def test_a_seat_sees_its_own_card_and_only_the_gm_sees_all():
    state = start()
    cards = state["secret"]["cards"]
    me = RULES.view(state, 1)
    assert me["me"] == {"card": cards[1]}
    assert "secret" not in me and "private" not in me
    assert [e["kind"] for e in me["log"]] == ["your_card", "round"]
    assert "me" not in RULES.view(state, SPECTATOR)
    assert RULES.view(state, GM)["secret"]["cards"] == cards


def test_an_event_reaches_exactly_the_seats_it_names():
    state = RULES.apply(start(4), action(0, "whisper", to=2, text="trust me")).state
    saw = {v: any(e["kind"] == "whisper" for e in RULES.view(state, v)["log"])
           for v in [0, 1, 2, 3, SPECTATOR, GM]}
    assert saw == {0: True, 1: False, 2: True, 3: False, SPECTATOR: False, GM: True}
    (event,) = [e for e in state["log"] if e["kind"] == "whisper"]
    assert event["because"] == ["Seat 1 whispered to seat 3."]


def test_the_audience_sees_every_seats_part_and_what_some_seat_saw_never_the_gms():
    state = RULES.apply(start(4), action(0, "whisper", to=2, text="trust me")).state
    audience = RULES.view(state, AUDIENCE)
    assert audience["private"] == state["private"]
    assert "secret" not in audience and "me" not in audience
    gm_only = [e["kind"] for e in state["log"] if not e["visibility"]["public"]
               and not e["visibility"]["seats"]]
    assert gm_only  # the draws' record
    kinds = [e["kind"] for e in audience["log"]]
    assert "whisper" in kinds and "your_card" in kinds
    assert not set(gm_only) & set(kinds)


def test_every_draw_is_recorded_so_replay_reproduces_the_game():
    setup = {"seats": 3, "seed": "replay"}
    steps = [action(0, "raise"), action(1, "fold"), end_phase(), action(0, "raise"),
             end_phase(), end_phase()]
    state = start(3, "replay")
    assert state["secret"]["draws"] == 1
    for s in steps:
        state = RULES.step(state, s).state
    assert replay(RULES, setup, steps) == state
    assert json.loads(json.dumps(state)) == state
    assert RULES.outcome(state).winners in ((0,), (2,))


def test_the_draws_depend_on_the_seed_and_the_counter():
    a, b = fresh_state("x", seats=1, config={}, seed="a"), fresh_state("x", seats=1, config={},
                                                                         seed="a")
    first = [draw_random(a, "p").random() for _ in range(3)]
    assert first == [draw_random(b, "p").random() for _ in range(3)]
    assert len(set(first)) == 3 and a["secret"]["draws"] == 3
    c = fresh_state("x", seats=1, config={}, seed="c")
    assert draw_random(c, "p").random() != first[0]


def test_random_text_draws_exactly_what_choice_would():
    import random

    for seed in range(20):
        a, b = random.Random(seed), random.Random(seed)
        n = a.randint(0, 150)
        b.randint(0, 150)
        assert conformance.random_text(a, n) == "".join(
            b.choice(conformance.ALPHABET) for _ in range(n))
        assert a.random() == b.random()
