"""A tiny rule set for testing the lifecycle machinery: one wolf kills at night, all vote by day.

It is deliberately small; it implements the whole engine interface, so the machinery cannot
depend on anything a real rule set would have and this one has not.
"""

from __future__ import annotations

import copy

from games.engine.base import (
    Choice,
    Outcome,
    PhaseInfo,
    Refusal,
    RuleSet,
    Transition,
    draw_random,
    emit,
    fresh_state,
    make_event,
    public,
    seats,
)
from games.engine.events import KEY, SEAT, Schema, kind
from games.engine.reasons import SEAT as SEAT_ARG
from games.engine.reasons import Reasons

# The toy's reasons: its refusals, the one explanation of a night, its two results.
R = Reasons("toy", {
    "bad_params": {}, "already_voted": {}, "not_allowed": {},
    "wolf_attacked": {"seat": SEAT_ARG},
    "wolf_dead": {}, "wolf_outlived": {},
})


class Toy(RuleSet):
    name = "toy"
    min_seats = 3
    max_seats = 8
    schema = Schema(events={
        "role": kind("A seat's role (to that seat).", role=KEY),
        "kill_planned": kind("The wolf's plan (to the wolf).", target=SEAT),
        "vote_cast": kind("A vote.", voter=SEAT, target=SEAT),
        "killed": kind("The wolf killed a seat.", victim=SEAT),
        "quiet_night": kind("Nobody died."),
        "executed": kind("The vote executed a seat.", victim=SEAT),
        "no_execution": kind("The vote executed nobody."),
    })

    def initial_state(self, *, seats: int, config=None, seed: str) -> Transition:
        state = fresh_state("toy", seats=seats, config=config or {}, seed=seed)
        wolf = draw_random(state, "deal").randrange(seats)
        state["secret"]["wolf"] = wolf
        state["public"] = {"alive": [True] * seats, "phase": "night", "number": 1, "votes": {}}
        events: list[dict] = []
        for i in range(seats):
            role = "wolf" if i == wolf else "villager"
            state["private"][i] = {"role": role, "pending": None}
            emit(state, events, make_event("role", _seats(i), role=role))
        return Transition(state, events)

    def phase(self, state) -> PhaseInfo:
        pub = state["public"]
        alive = [i for i, a in enumerate(pub["alive"]) if a]
        if pub["phase"] == "night":
            wolf = state["secret"]["wolf"]
            awaiting = {wolf} if state["private"][wolf]["pending"] is None else set()
        else:
            awaiting = {i for i in alive if str(i) not in pub["votes"]}
        return PhaseInfo(pub["phase"], pub["number"], frozenset(awaiting))

    def legal_actions(self, state, actor) -> list[Choice]:
        pub = state["public"]
        if not isinstance(actor, int) or not 0 <= actor < len(pub["alive"]):
            return []
        if not pub["alive"][actor]:
            return []
        alive = [i for i, a in enumerate(pub["alive"]) if a]
        if pub["phase"] == "night":
            if state["private"][actor]["role"] != "wolf":
                return []
            return [Choice("kill", {"target": t}, label=f"kill seat {t + 1}")
                    for t in alive if t != actor]
        if str(actor) in pub["votes"]:
            return []
        return [Choice("vote", {"target": t}, label=f"vote seat {t + 1}") for t in alive]

    def apply(self, state, step):
        actor, kind, params = step.get("actor"), step.get("kind"), step.get("params")
        if not isinstance(params, dict):
            return Refusal("bad_params")
        legal = self.legal_actions(state, actor)
        if not any(c.kind == kind and c.params == params for c in legal):
            if kind == "vote" and isinstance(actor, int) and str(actor) in state["public"].get(
                    "votes", {}):
                return Refusal("already_voted")
            return Refusal("not_allowed")
        state = copy.deepcopy(state)
        events: list[dict] = []
        if kind == "kill":
            state["private"][actor]["pending"] = params["target"]
            emit(state, events, make_event("kill_planned", _seats(actor), target=params["target"]))
        else:
            state["public"]["votes"][str(actor)] = params["target"]
            emit(state, events, make_event("vote_cast", public(), voter=actor,
                                           target=params["target"]))
        return Transition(state, events)

    def end_phase(self, state) -> Transition:
        state = copy.deepcopy(state)
        pub = state["public"]
        events: list[dict] = []
        if pub["phase"] == "night":
            wolf = state["secret"]["wolf"]
            target = state["private"][wolf]["pending"]
            state["private"][wolf]["pending"] = None
            if target is not None and pub["alive"][target]:
                pub["alive"][target] = False
                emit(state, events, make_event("killed", public(), victim=target,
                                               because=[R("wolf_attacked", seat=target)]))
            else:
                emit(state, events, make_event("quiet_night", public()))
            pub["phase"] = "day"
        else:
            tally: dict[int, int] = {}
            for target in pub["votes"].values():
                tally[target] = tally.get(target, 0) + 1
            top = max(tally.values(), default=0)
            leaders = [t for t, n in tally.items() if n == top]
            if len(leaders) == 1:
                pub["alive"][leaders[0]] = False
                emit(state, events, make_event("executed", public(), victim=leaders[0]))
            else:
                emit(state, events, make_event("no_execution", public()))
            pub["votes"] = {}
            pub["phase"] = "night"
            pub["number"] += 1
        return Transition(state, events)

    def outcome(self, state):
        alive = state["public"]["alive"]
        wolf = state["secret"]["wolf"]
        if not alive[wolf]:
            return Outcome("village", tuple(i for i in range(len(alive)) if i != wolf),
                           reason=R("wolf_dead"))
        if sum(alive) <= 2:
            return Outcome("wolf", (wolf,), reason=R("wolf_outlived"))
        return None

    def view(self, state, viewer):
        return super().view(state, viewer)


def _seats(i):
    return seats(i)


def register():
    """Put the toy in the rule-set table (games.rulesets); `unregister()` takes it out.

    Tests call it from a fixture; a process they start (a Celery worker, gunicorn) gets it
    with EXTRA_RULESETS="tests.toy:register". Its sentences are the generic text.
    """
    from pathlib import Path

    from games import rulesets
    from tests.toy_presenter import PRESENTER as toy_presenter

    rulesets.register(name="toy", engine=Toy, presenter=toy_presenter, panel="games/panels/default.html",
                      title="Toy", rules_doc=Path(__file__), event_kinds=EVENT_KINDS,
                      dead_talk=rulesets.GHOST_POSTS)


def unregister():
    from games import rulesets

    rulesets.unregister("toy")


EVENT_KINDS = ("executed", "kill_planned", "killed", "no_execution", "quiet_night", "role",
               "vote_cast")
