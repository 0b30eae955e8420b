"""Golden playthroughs of 谁偷了我的金币, one per player count (2-6).

Each game is played by a seeded script that sometimes misses a deadline, so the defaults
show up too. The one harness (tests/engine/golden.py, tests/engine/test_golden.py) writes
each step in Chinese through the presenters (its events, who saw them and why, the public
view, each seat's and the GM's own part when it changes: `own`, `secret` and `public`
below), diffs the text against tests/engine/golden/gold/ and replays the steps.
"""

from __future__ import annotations

import random

from games.engine.base import Refusal, end_phase
from games.engine.conformance import fill
from games.engine.gold.rules import Gold
from games.presenters import gold as G
from games.presenters import review_facts, review_secret
from games.presenters.labels import labelled

from ..golden import GoldenGame, Played, Reader, facts_line, write

RULES = Gold()


def scripted_steps(players: int):
    """Yield (description, step) for a whole game, choosing from the legal actions.

    1. Pick phase: each awaited seat picks a random card (some miss, some change their mind),
       then the clock ends the phase.
    2. Turn phases: the seat whose turn it is picks a kind of choice at random (so flips and
       replacements are as common as keeping), or misses; then the clock ends the turn.
    """
    rng = random.Random(f"golden script {players}")
    state = yield None
    while RULES.outcome(state) is None:
        info = RULES.phase(state)
        if info.name == "pick":
            for seat in sorted(info.awaiting):
                if rng.random() < 0.08:
                    continue  # this seat misses the pick deadline
                for _ in range(2 if rng.random() < 0.1 else 1):
                    choice = rng.choice(RULES.legal_actions(state, seat))
                    state = yield fill(choice, seat, rng)
        elif info.awaiting and rng.random() >= 0.1:
            seat = next(iter(info.awaiting))
            choices = RULES.legal_actions(state, seat)
            kind = rng.choice(sorted({c.kind for c in choices}))
            choice = rng.choice([c for c in choices if c.kind == kind])
            state = yield fill(choice, seat, rng)
        state = yield end_phase()


def scripted_game(players: int) -> tuple[dict, list[dict], dict]:
    """Play the scripted game; return its setup, steps and final state."""
    config = {"lead": None} if players % 2 else {"lead": players - 1}
    setup = {"seats": players, "config": config, "seed": f"golden-{players}"}
    state = RULES.initial_state(**setup).state
    script = scripted_steps(players)
    next(script)
    steps = []
    try:
        step = script.send(state)
        while True:
            result = RULES.step(state, step)
            assert not isinstance(result, Refusal), (step, result)
            state = result.state
            steps.append(step)
            step = script.send(state)
    except StopIteration:
        pass
    return setup, steps, state


# --- reading the views ---------------------------------------------------------------------

def own(view: dict, names: dict[int, str]) -> list[str]:
    """A seat's own part: its hand, its secret pick, the card it laid face down
    (`review_facts`)."""
    me = view["me"]
    return [facts_line(review_facts("gold", me, view["viewer"], names))]


def secret(view: dict, names: dict[int, str]) -> list[str]:
    """The GM's own part: the true card at every seat (a pick not yet made: "未选"), then
    the virtual players' cards (`review_secret`)."""
    cards = view["secret"]["cards"]
    seats = "；".join(f"{G.who(names, s)} {G.card(c) if c else '未选'}"
                     for s, c in enumerate(cards["seats"]))
    return [labelled("各座位的牌", seats)] + [
        labelled(label, text) for label, text in review_secret("gold", view["secret"], names)]


def public(view: dict, names: dict[int, str]) -> list[str]:
    """Beyond each seat's facts: the lead, the seats still to act this turn, the virtual
    players' places, the replace and flip used this round, the coins left in the supply."""
    pub = view["public"]
    lines = [labelled("先手", G.who(names, pub["lead"]))]
    if pub.get("queue"):
        lines.append(labelled("之后轮到", G.seat_list(pub["queue"], names)))
    for v, spot in enumerate(pub["virtual"]):
        text = f"亮出{G.card(spot['shown'])}"
        if spot["covered"]:
            text += f" · 暗置的牌：{G.card(spot['cover']) if spot['cover'] else '?'}"
        lines.append(labelled(G.virtual_name(v), text))
    if pub.get("replace_used_by") is not None:
        lines.append(labelled("本轮已换牌", G.who(names, pub["replace_used_by"])))
    if pub.get("flip_used_by") is not None:
        lines.append(labelled("本轮已翻牌", G.who(names, pub["flip_used_by"])))
    lines.append(labelled("金币库存", str(pub["supply"])))
    return lines


READER = Reader(own=own, secret=secret, public=public)


def golden(players: int) -> Played:
    setup, steps, _final = scripted_game(players)
    return write("gold", f"players_{players}", setup, steps, READER)


GOLDEN = [GoldenGame("gold", f"players_{n}", lambda n=n: golden(n)) for n in range(2, 7)]
