"""The generic conformance checks every rule set must pass (OpenSpiel's basic_tests, ours).

Pure Python, importable from tests and from benchmark commands. For one seeded game:

1. random legal play to the end never raises, and every offered `Choice` is accepted;
   and the other way round: near-miss steps (another actor's choices, the last state's
   choices, choices with a parameter changed) are tried along the way, and every one the
   rule set accepts was among the actor's offered choices (`legal_actions`);
2. random garbage steps are refused with a `Refusal` (never an exception) and leave the
   state untouched;
3. every state round-trips through JSON losslessly;
4. `replay(setup, steps)` reproduces the final state exactly;
5. no view leaks: for every seat and the spectator, scrambling every part of the state the
   viewer may not read (other seats' private parts, the secret part, invisible log entries)
   does not change `view(state, viewer)`;
6. every event's data is what the rule set declares for its kind (`RuleSet.schema`,
   games/engine/events.py): no undeclared field, every value of its type, every seat one of
   the table's (the export numbers seats from 1 by these declarations).
"""

from __future__ import annotations

import json
import random
import string
from dataclasses import dataclass, field

from .base import (
    AUDIENCE,
    GM,
    SPECTATOR,
    Choice,
    Refusal,
    RuleSet,
    State,
    Transition,
    action,
    copy_plain,
    end_phase,
    replay,
    visible_to,
)


@dataclass
class Playthrough:
    setup: dict
    steps: list[dict] = field(default_factory=list)
    states: list[State] = field(default_factory=list)
    refused: int = 0
    probes: int = 0            # near-miss steps tried (check 1, the other way round)
    probes_accepted: int = 0   # ... of which the rule set accepted (each one offered)

    @property
    def final(self) -> State:
        return self.states[-1]


ALPHABET = string.ascii_letters + "猫有条命杀手狼人平民天神，。 "


ALPHABET_BITS = len(ALPHABET).bit_length()


def random_text(rng: random.Random, n: int) -> str:
    """`n` characters drawn one by one as `rng.choice(ALPHABET)` would draw them (the same
    draws from the generator, so seeded games stay the same), without two calls per
    character: `choice` takes `getrandbits(k)` for the alphabet's bit length k until the
    result is below the alphabet's size (`Random._randbelow`); so does this loop.
    tests/engine/test_interface.py checks that the texts are the same."""
    bits, size, draw = ALPHABET_BITS, len(ALPHABET), rng.getrandbits
    out = []
    for _ in range(n):
        r = draw(bits)
        while r >= size:
            r = draw(bits)
        out.append(ALPHABET[r])
    return "".join(out)


def fill(choice: Choice, actor, rng: random.Random) -> dict:
    """The step a player would submit for `choice`, with random text of a legal length."""
    texts = {}
    for f in choice.text_fields:
        if f.required or rng.random() < 0.5:
            lo = max(f.min_chars, 1 if f.required else 0)
            text = random_text(rng, rng.randint(lo, min(f.max_chars, lo + 40)))
            # A player's text is counted without its surrounding spaces: a draw of mostly
            # spaces is made up to the least length (other draws stay as they were).
            if len(text.strip()) < lo:
                text = text.strip() + "猫" * (lo - len(text.strip()))
            texts[f.name] = text
    return action(actor, choice.kind, **choice.params, **texts)


GARBAGE_ACTORS = [-1, 99, "nobody", None, 2.5]


def garbage_step(rng: random.Random, seats: int) -> dict:
    """A step no rule set should accept: unknown kinds, bad actors, ill-typed params."""
    kind = rng.choice(["", "fly", "use_card", "vote", "end_phase", "x" * 300])
    actor = rng.choice(GARBAGE_ACTORS + [rng.randrange(seats)])
    params = rng.choice([
        {}, {"card": "NOT_A_CARD"}, {"target": -5}, {"target": "3"}, {"card": None},
        {"card": ["KILLER"], "target": {"a": 1}}, {"target": 10**9}, {"choice": "🐱"},
    ])
    if kind in ("use_card", "vote") and isinstance(actor, int) and 0 <= actor < seats:
        params = dict(params, target=rng.choice([-1, seats, "me", None]))
    return {"actor": actor, "kind": kind, "params": params}


def canonical(params: dict) -> str:
    """Parameters as text, so that True and 1 (or 1 and 1.0) differ."""
    return json.dumps(params, sort_keys=True, default=repr)


def was_offered(choices: list[Choice], step: dict) -> bool:
    """Whether `step` is one of `choices`: same kind, same parameters once the choice's
    free-text fields are set aside, and every required text given."""
    params = step["params"]
    for c in choices:
        if c.kind != step["kind"]:
            continue
        names = {f.name for f in c.text_fields}
        plain = {k: v for k, v in params.items() if k not in names}
        if canonical(plain) == canonical(c.params) and all(
                f.name in params for f in c.text_fields if f.required):
            return True
    return False


def near_miss(rng: random.Random, ruleset: RuleSet, state: State, actors: list,
              stale: list[dict]) -> dict | None:
    """A step close to a legal one: another actor's choice, a choice of the last state, or
    a choice with one parameter changed to another plausible value."""
    actor = rng.choice(actors)
    how = rng.randrange(3)
    if how == 0:
        other = rng.choice(actors)
        pool = ruleset.legal_actions(state, other)
        return dict(fill(rng.choice(pool), other, rng), actor=actor) if pool else None
    if how == 1:
        return dict(rng.choice(stale), actor=actor) if stale else None
    pool = ruleset.legal_actions(state, actor)
    if not pool:
        return None
    step = fill(rng.choice(pool), actor, rng)
    if step["params"]:
        key = rng.choice(sorted(step["params"]))
        values = [v for c in pool for v in c.params.values()]
        values += [-1, len(state["private"]), None, True, *range(len(state["private"]))]
        step["params"][key] = rng.choice(values)
    return step


def probe(ruleset: RuleSet, state: State, step: dict | None, play: Playthrough) -> None:
    """Check 1 the other way round: if the rule set accepts `step`, it was offered."""
    if step is None:
        return
    play.probes += 1
    result = ruleset.apply(state, step)
    if isinstance(result, Refusal):
        return
    play.probes_accepted += 1
    assert was_offered(ruleset.legal_actions(state, step["actor"]), step), (
        f"a step the rule set did not offer was accepted: {step}")


def random_playthrough(ruleset: RuleSet, *, seats: int, seed: int, config: dict | None = None,
                       max_steps: int = 3000, end_phase_odds: float = 0.15,
                       garbage_odds: float = 0.1, probe_odds: float = 0.15) -> Playthrough:
    """Play one seeded random game to its end (or `max_steps`), checking 1-3 as it goes.

    The near-miss probes draw from a generator of their own, so the game played is the same
    whatever `probe_odds` is.
    """
    rng = random.Random(seed)
    probe_rng = random.Random(f"probe-{seed}")
    stale: list[dict] = []
    setup = {"seats": seats, "config": config, "seed": f"seed-{seed}"}
    t = ruleset.initial_state(seats=seats, config=config, seed=setup["seed"])
    play = Playthrough(setup=setup, states=[t.state])
    state = t.state
    actors: list = list(range(seats))
    for _ in range(max_steps):
        if ruleset.outcome(state) is not None:
            break
        assert_json_round_trip(state)
        if probe_rng.random() < probe_odds:
            probe(ruleset, state, near_miss(probe_rng, ruleset, state, [*actors, GM], stale),
                  play)
        if rng.random() < garbage_odds:
            before = copy_plain(state)
            result = ruleset.apply(state, garbage_step(rng, seats))
            assert isinstance(result, Refusal), f"garbage step accepted: {result}"
            assert result.code and isinstance(result.params, dict)  # a reason code, no prose
            assert state == before, "a refused step changed the state"
            play.refused += 1
            continue
        step = None
        if rng.random() >= end_phase_odds:
            order = actors[:]
            rng.shuffle(order)
            for actor in order:
                choices = ruleset.legal_actions(state, actor)
                if choices:
                    step = fill(rng.choice(choices), actor, rng)
                    stale = [step]
                    break
        if step is None:
            step = end_phase()
        before = copy_plain(state)
        result = ruleset.step(state, step)
        assert state == before, f"step {step} mutated its input state"
        assert not isinstance(result, Refusal), (
            f"a legal choice was refused: {step} -> {getattr(result, 'reason', '')}")
        assert isinstance(result, Transition)
        play.steps.append(step)
        play.states.append(result.state)
        state = result.state
    return play


def assert_json_round_trip(state: State) -> None:
    text = json.dumps(state, ensure_ascii=False, sort_keys=True)
    assert json.loads(text) == state, "state does not survive a JSON round trip"


def assert_replays(ruleset: RuleSet, play: Playthrough) -> None:
    again = replay(ruleset, play.setup, play.steps)
    assert again == play.final, "replay(setup, steps) does not reproduce the final state"


def scramble_hidden(state: State, viewer, rng: random.Random) -> State:
    """A copy of `state` with everything `viewer` may not read replaced by noise."""
    out = copy_plain(state)
    noise = {"scrambled": random_text(rng, 12), "n": rng.randrange(10**6)}
    out["secret"] = dict(noise)
    if viewer != AUDIENCE:  # the audience reads every seat's private part
        out["private"] = [
            p if i == viewer else dict(noise, seat=i) for i, p in enumerate(out["private"])]
    out["log"] = [
        e if visible_to(e["visibility"], viewer)
        else dict(e, kind="scrambled", data=dict(noise), because=["noise"])
        for e in out["log"]]
    return out


def assert_no_leaks(ruleset: RuleSet, state: State, seed: int = 0) -> None:
    rng = random.Random(seed)
    for viewer in [*range(len(state["private"])), SPECTATOR, AUDIENCE]:
        seen = ruleset.view(state, viewer)
        scrambled = ruleset.view(scramble_hidden(state, viewer, rng), viewer)
        assert seen == scrambled, f"view of {viewer!r} reads hidden state"
        json.dumps(seen)  # views are plain data too
    json.dumps(ruleset.view(state, GM))


def assert_events_declared(ruleset: RuleSet, play: Playthrough) -> None:
    seats = play.setup["seats"]
    found = [p for e in play.final["log"] for p in ruleset.schema.event_problems(e, seats)]
    assert not found, f"events that do not match their declared fields: {found[:10]}"


def check_ruleset(ruleset: RuleSet, *, seats: int, seed: int, config: dict | None = None,
                  leak_every: int = 7) -> Playthrough:
    """Run checks 1-6 on one seeded random game and return the playthrough."""
    play = random_playthrough(ruleset, seats=seats, seed=seed, config=config)
    for i, s in enumerate(play.states):
        if i % leak_every == 0 or i == len(play.states) - 1:
            assert_no_leaks(ruleset, s, seed + i)
    assert_replays(ruleset, play)
    assert_events_declared(ruleset, play)
    return play
