"""Golden playthroughs of 谁偷了我的金币, one per player count (2-6).

Each game is played by a seeded script that sometimes misses a deadline, so the defaults
show up too. Every step is written out with its events (visibility and causes), the view all
viewers share, and what only each seat, the spectator and the GM see. The one harness
(tests/engine/golden.py, tests/engine/test_golden.py) diffs them against
tests/engine/golden/gold/ and replays the steps.
"""

from __future__ import annotations

import random

from games.engine.base import GM, SPECTATOR, Refusal, end_phase
from games.engine.conformance import fill
from games.engine.gold.rules import Gold
from games.engine.gold.text import render_event, render_private, render_public, render_truth

from ..golden import GoldenGame, Played

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


def describe(step: dict) -> str:
    actor = step["actor"]
    who = "clock" if actor == "clock" else f"seat {actor + 1}"
    # seat and virtual player indices are 0-based in steps, 1-based for readers
    params = " ".join(f"{k} {v + 1}" if k in ("seat", "virtual") else f"{k} {v}"
                      for k, v in sorted(step["params"].items()))
    return f"{who} {step['kind']}" + (f" {params}" if params else "")


def render_block(title: str, state: dict, seen: dict) -> list[str]:
    """One step of the golden file. `seen` maps each viewer to the log length it has read."""
    players = state["public"]["players"]
    viewers = [*range(players), SPECTATOR, GM]
    views = {v: RULES.view(state, v) for v in viewers}
    shared = views[SPECTATOR]["public"]
    assert all(views[v]["public"] == shared for v in viewers)
    lines = [f"== {title} =="]
    new = state["log"][seen[GM]:]
    if new:
        lines.append("events:")
        for event in new:
            lines += ["  " + line for line in render_event(event)]
    lines.append("shared view:")
    lines += ["  " + line for line in render_public(shared)]
    lines.append("own views:")
    for v in viewers:
        visible = [e["seq"] for e in views[v]["log"][seen[v]:]]
        seen[v] = len(views[v]["log"])
        parts = []
        if v == GM:
            parts.append(render_truth(views[v]["secret"]["cards"]))
        elif v != SPECTATOR:
            parts.append(render_private(views[v]["me"]))
        parts.append("new events " + (" ".join(f"#{n}" for n in visible) or "none"))
        name = "GM" if v == GM else "spectator" if v == SPECTATOR else f"seat {v + 1}"
        lines.append(f"  {name}: " + " · ".join(parts))
    lines.append("")
    return lines


def golden_game(players: int) -> tuple[str, dict, list[dict], dict]:
    """Play the scripted game; return its text, setup, steps and final state."""
    config = {"lead": None} if players % 2 else {"lead": players - 1}
    setup = {"seats": players, "config": config, "seed": f"golden-{players}"}
    state = RULES.initial_state(**setup).state
    lines = [f"# 谁偷了我的金币 golden playthrough: {players} players, config {config}",
             "# Regenerate with UPDATE_GOLDEN=1. A covered place reads SHOWN/COVER "
             "(?? = still face down).", ""]
    seen = {v: 0 for v in [*range(players), SPECTATOR, GM]}
    lines += render_block("setup", state, seen)
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
            lines += render_block(f"step {len(steps)}: {describe(step)}", state, seen)
            step = script.send(state)
    except StopIteration:
        pass
    outcome = RULES.outcome(state)
    lines.append(f"outcome: {outcome.result}, winners "
                 f"{', '.join(str(w + 1) for w in outcome.winners)}: {outcome.summary}")
    return "\n".join(lines) + "\n", setup, steps, state


def golden(players: int) -> Played:
    return Played(*golden_game(players))


GOLDEN = [GoldenGame("gold", f"players_{n}", lambda n=n: golden(n)) for n in range(2, 7)]
