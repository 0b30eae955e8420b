"""The one small interface every rule set implements.

The engine is a pure library: no Django, no clock, no I/O. The web service loads a state,
hands it a step, stores what comes back and publishes the events each viewer may see.

State layout (every rule set follows it; the generic conformance suite relies on it):

    {
      "ruleset": "ninelives",      # which rule set owns this state
      "config":  {...},            # public game options
      "public":  {...},            # what every seat and spectator may know
      "private": [{...}, ...],     # private[i]: what seat i (and the GM) may know
      "secret":  {...},            # GM only: taints, random seed, commitments...
      "log":     [event, ...],     # every event so far, each with its visibility
    }

The state is plain JSON data (dicts with string keys, lists, str, int, bool, None) so
`json.loads(json.dumps(state)) == state` always holds. Functions never mutate their input
state; they return a new one.

`view(state, viewer)` is the only way anything outside the engine reads a state. The default
view below only ever reads `config`, `public`, the viewer's own `private` entry and the log
entries visible to the viewer; a rule set that overrides it must keep that promise (the
conformance suite scrambles everything else and checks the view does not change).

Randomness is a recorded step: every draw goes through `draw_random`, which derives a fresh
generator from the secret seed and a counter kept in the state, so that
`replay(setup, steps)` reproduces a game exactly, and records a GM-only `chance` event.
"""

from __future__ import annotations

import copy
import hashlib
import json
import marshal
import random
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .events import Schema

GM = "gm"
SPECTATOR = "spectator"
# Everything any seat knew: every seat's private part and every event some seat or the
# public saw, never the GM's secret part (the random seed, commitments, taints) nor a
# GM-only event. Watchers get it of a state some phases old (games.selectors.watch).
AUDIENCE = "audience"
CLOCK = "clock"  # the actor of an end-of-phase step

# A viewer is a seat number (0-based), GM, SPECTATOR or AUDIENCE.
Viewer = int | str
State = dict[str, Any]


# --- visibility --------------------------------------------------------------------------

def public() -> dict:
    """Visibility of an event every seat and spectator sees."""
    return {"public": True, "seats": []}


def seats(*numbers: int) -> dict:
    """Visibility of an event only the given seats (and the GM) see."""
    return {"public": False, "seats": sorted(set(numbers))}


def gm_only() -> dict:
    return {"public": False, "seats": []}


def clone(data):
    """A deep copy of plain JSON data (much faster than copy.deepcopy for it)."""
    return json.loads(json.dumps(data))


def copy_plain(data):
    """A deep copy of data that is already plain JSON data (dicts with str keys, lists, str,
    int, float, bool, None), three times faster than a JSON round trip and some twenty times
    faster than copy.deepcopy. Precondition: no tuple and no non-str key (the conformance
    checks hold every state to a lossless JSON round trip, so a state always meets it)."""
    return marshal.loads(marshal.dumps(data))


def is_seat(viewer, seats: int) -> bool:
    """Is `viewer` a seat number of a table of `seats` (not a bool, not GM or spectator)?"""
    return isinstance(viewer, int) and not isinstance(viewer, bool) and 0 <= viewer < seats


def visible_to(visibility: dict, viewer: Viewer) -> bool:
    if viewer == GM or visibility["public"]:
        return True
    if viewer == AUDIENCE:
        return bool(visibility["seats"])
    return isinstance(viewer, int) and viewer in visibility["seats"]


def make_event(kind: str, visibility: dict, *, because: list[dict] | None = None,
               **data: Any) -> dict:
    """An event: what happened, who may see it, and the chain of causes that explains it.

    `because` is a list of reasons (games/engine/reasons.py: a code of the rule set's table
    with typed arguments) tracing the event to the actions and rule sections that caused it;
    the presenters render them in the reader's language.
    """
    return {"kind": kind, "visibility": visibility, "because": list(because or []),
            "data": data}


# --- steps, refusals, transitions ---------------------------------------------------------

def action(actor: Viewer, kind: str, **params: Any) -> dict:
    """A step taken by a seat (int) or the GM: plain data, stored as is by the service."""
    return {"actor": actor, "kind": kind, "params": params}


def end_phase() -> dict:
    """The step the clock takes when a phase's deadline passes (or it ends early)."""
    return {"actor": CLOCK, "kind": "end_phase", "params": {}}


@dataclass(frozen=True)
class Refusal:
    """An action the rules do not allow: `code`, a reason code of the rule set's table
    (games/engine/reasons.py), and `params`, its typed arguments; the presenter renders it in
    the reader's language.
    """

    code: str
    params: dict = field(default_factory=dict)

    def __bool__(self) -> bool:  # a refusal is falsy, so `if not result:` reads naturally
        return False


@dataclass(frozen=True)
class Transition:
    """The new state and the events the step produced (already appended to state['log'])."""

    state: State
    events: list[dict]


@dataclass(frozen=True)
class TextField:
    """A free-text parameter of an action, e.g. a manifesto of at least 100 characters."""

    name: str
    min_chars: int = 0
    max_chars: int = 20_000
    required: bool = True


@dataclass(frozen=True)
class Choice:
    """One legal action for a seat, as a form would offer it.

    `params` are the fixed choices (card, target...); `text_fields` are free texts the player
    must still write. `action(actor, kind, **params, **texts)` is the step to submit.
    """

    kind: str
    params: dict
    text_fields: tuple[TextField, ...] = ()
    label: str = ""

    def __init__(self, kind: str, params: dict, text_fields: tuple[TextField, ...] = (),
                 label: str = ""):
        # One update of the instance dict instead of a frozen dataclass's four
        # object.__setattr__ calls: legal actions are built by the thousand in simulations.
        fields = self.__dict__
        fields["kind"], fields["params"] = kind, params
        fields["text_fields"], fields["label"] = text_fields, label


@dataclass(frozen=True)
class PhaseInfo:
    """What the service needs to run the clock: the phase's name and who still owes a move."""

    name: str            # e.g. "night", "day", "runoff", "loss_order"
    number: int          # 1 for the first night/day...
    awaiting: frozenset[int]  # seats that still owe an action (reminders, early end)
    finished: bool = False


@dataclass(frozen=True)
class Outcome:
    result: str                  # e.g. "civilian", "killer", "wolf", "draw", "aborted"
    winners: tuple[int, ...]     # seats that share the prize
    reason: dict | None = None   # why the game ended: a reason of the rule set's table


# --- recorded randomness -------------------------------------------------------------------

def new_seed(rng: random.Random | None = None) -> str:
    """A fresh secret seed (hex). Pass a seeded `rng` in tests for reproducible games."""
    rng = rng or random.SystemRandom()
    return f"{rng.getrandbits(128):032x}"


def draw_random(state: State, purpose: str) -> random.Random:
    """A generator for one random draw, derived from the secret seed and a counter.

    Precondition: `state` is a fresh copy the caller owns (the counter is advanced in place).
    The caller records the drawn result in an event (usually GM-only).
    """
    secret = state["secret"]
    n = secret.get("draws", 0)
    secret["draws"] = n + 1
    digest = hashlib.sha256(f"{secret['seed']}/{n}/{purpose}".encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


# --- the interface -----------------------------------------------------------------------

class RuleSet:
    """Base class of every rule set. Subclasses implement the methods that raise."""

    name: str = ""
    min_seats: int = 0
    max_seats: int = 0
    # What each event kind's data holds, field by field, the parameters of the GM's steps
    # and the shapes of the rule set's own reason argument types (games/engine/events.py;
    # each rule set's kinds.py declares them).
    schema: ClassVar[Schema] = Schema()

    # 1. setup
    def initial_state(self, *, seats: int, config: dict | None = None,
                      seed: str) -> Transition:
        raise NotImplementedError

    def default_config(self) -> dict:
        return {}

    # 2. what may be done now
    def phase(self, state: State) -> PhaseInfo:
        raise NotImplementedError

    def legal_actions(self, state: State, actor: Viewer) -> list[Choice]:
        raise NotImplementedError

    # 3. doing it
    def apply(self, state: State, step: dict) -> Transition | Refusal:
        """Accept an action (returning the new state) or refuse it with a reason."""
        raise NotImplementedError

    def end_phase(self, state: State) -> Transition:
        """Resolve the end of the current phase: the clock's step. Never refuses."""
        raise NotImplementedError

    def outcome(self, state: State) -> Outcome | None:
        raise NotImplementedError

    # 4. reading it
    def view(self, state: State, viewer: Viewer) -> dict:
        """What `viewer` may know. Default: config, public, own private part, visible log;
        the GM also gets every private part and the secret part, the audience every private
        part. Rule sets that add derived
        facts call this first and compute them only from what it returned."""
        out = {
            "ruleset": state["ruleset"],
            "viewer": viewer,
            "config": clone(state["config"]),
            "public": clone(state["public"]),
            "log": clone([e for e in state["log"] if visible_to(e["visibility"], viewer)]),
        }
        if viewer == GM:
            out["private"] = clone(state["private"])
            out["secret"] = clone(state["secret"])
        elif viewer == AUDIENCE:
            out["private"] = clone(state["private"])
        elif is_seat(viewer, len(state["private"])):
            out["me"] = clone(state["private"][viewer])
        return out

    # 5. optional facts the service uses (defaults suit most rule sets)
    vote_phases: frozenset[str] = frozenset({"day", "runoff"})  # phases with a vote thread
    # Phases that go on inside the phase before them, which the public sees going on
    # (Classic's extra check inside the night): the service keeps that phase's record and
    # its deadline, as long as the deadline leaves them their own duration.
    within_previous: frozenset[str] = frozenset()

    def reserved_for(self, state: State) -> str | None:
        """The phase of `within_previous` whose time the current phase keeps at its end (its
        choices close that phase's duration before its deadline, so that the phase, when it
        runs, ends at the same deadline for everyone), or None. Default: none."""
        return None

    def duties(self, state: State, seat: int) -> list[str]:
        """The kinds of step `seat` still owes this phase (the console shows them). Default:
        the kinds of its legal actions if `phase(state).awaiting` holds it, else none. A
        rule set whose seats may also take steps they do not owe overrides this."""
        if seat not in self.phase(state).awaiting:
            return []
        return list(dict.fromkeys(c.kind for c in self.legal_actions(state, seat)))

    def owes_words(self, state: State, seat: int) -> bool:
        """Whether dead `seat` still has something to say to the living, now or later in
        this round (Classic's last words, due from the night's end until their phase ends).
        The service lets such a seat watch the game only once this is False. Default: a
        step the engine offers the seat now."""
        return bool(self.legal_actions(state, seat))

    def living_seats(self, state: State) -> list[int]:
        """Seats still in the game (public knowledge). Default: read public["alive"]."""
        alive = state["public"].get("alive")
        if isinstance(alive, list) and all(isinstance(a, bool) for a in alive):
            return [i for i, a in enumerate(alive) if a]
        return list(range(len(state["private"])))

    def commitment_text(self, state: State) -> str | None:
        """Canonical text of the secret setup (e.g. the deal) to publish a commitment to at
        the start and reveal at the end; None when the rule set has no secret setup."""
        return None

    # the step dispatcher used by the service and by replay
    def step(self, state: State, step: dict) -> Transition | Refusal:
        if step["actor"] == CLOCK and step["kind"] == "end_phase":
            return self.end_phase(state)
        return self.apply(state, step)


def replay(ruleset: RuleSet, setup: dict, steps: list[dict]) -> State:
    """Rebuild a state from its setup ({"seats", "config", "seed"}) and accepted steps.

    Raises ValueError if a step that was once accepted is refused now (a corrupt log).
    """
    state = ruleset.initial_state(seats=setup["seats"], config=setup.get("config"),
                                  seed=setup["seed"]).state
    for i, s in enumerate(steps):
        result = ruleset.step(state, s)
        if isinstance(result, Refusal):
            raise ValueError(f"step {i} refused on replay: {result.code} {result.params}")
        state = result.state
    return state


def fresh_state(ruleset: str, *, seats: int, config: dict, seed: str) -> State:
    """The empty skeleton of a state in the common layout."""
    return {
        "ruleset": ruleset,
        "config": copy.deepcopy(config),
        "public": {},
        "private": [{} for _ in range(seats)],
        "secret": {"seed": seed, "draws": 0},
        "log": [],
    }


def emit(state: State, events: list[dict], event: dict) -> dict:
    """Append `event` to the state's log and to the list of new events; return it.

    Precondition: `event` is a fresh dict from `make_event`, which becomes the logged event
    (its number `seq` is added to it, not to a copy)."""
    event["seq"] = len(state["log"])
    state["log"].append(event)
    events.append(event)
    return event
