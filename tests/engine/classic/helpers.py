"""A scripted Classic table for readable rule tests.

Roles are written one letter (or two) per seat, seat 1 first:
P police, B bandit, G ghost bandit, C civilian, X poison, U guardian,
Q police guardian, K bandit guardian.
"""

from __future__ import annotations

from games.engine.base import GM, SPECTATOR, Refusal, Transition, action, end_phase
from games.engine.classic.rules import Classic

CARD = {"P": "police", "B": "bandit", "G": "ghost", "C": "civilian", "X": "poison",
        "U": "guardian", "Q": "police_guardian", "K": "bandit_guardian"}

RULES = Classic()


def codes(event: dict) -> list[str]:
    """The codes of an event's `because` chain, in order."""
    return [reason["code"] for reason in event["because"]]


def deal(letters: str) -> list[str]:
    return [CARD[c] for c in letters]


class Table:
    """One game with a fixed deal. Seats in this helper are 0-based, like the engine's."""

    def __init__(self, letters: str, seed: str = "table", **config):
        config = dict(config, fixed_roles=deal(letters))
        if "G" in letters:
            config.setdefault("variant_ghost_poison", True)
        if "Q" in letters:
            config.setdefault("dual_guardians", True)
        if "U" in letters:
            config.setdefault("guardian", True)
        self.state = RULES.initial_state(seats=len(letters), config=config, seed=seed).state
        self.events: list[dict] = []

    # --- reading ---
    @property
    def pub(self) -> dict:
        return self.state["public"]

    @property
    def phase(self) -> str:
        return self.pub["phase"]

    def alive(self, seat: int) -> bool:
        return self.pub["alive"][seat]

    def dead(self) -> list[int]:
        return [s for s, a in enumerate(self.pub["alive"]) if not a]

    def me(self, seat: int) -> dict:
        return RULES.view(self.state, seat)["me"]

    def log_of(self, viewer) -> list[dict]:
        return RULES.view(self.state, viewer)["log"]

    def kinds_seen(self, viewer) -> list[str]:
        return [e["kind"] for e in self.log_of(viewer)]

    def last(self, kind: str, viewer=GM) -> dict:
        found = [e for e in self.log_of(viewer) if e["kind"] == kind]
        assert found, f"no {kind} event visible to {viewer!r}"
        return found[-1]

    def outcome(self):
        return RULES.outcome(self.state)

    def role(self, seat: int) -> str:
        return self.state["secret"]["roles"][seat]

    # --- acting ---
    def step(self, step: dict) -> Transition | Refusal:
        return RULES.step(self.state, step)

    def act(self, seat, kind: str, **params) -> list[dict]:
        result = self.step(action(seat, kind, **params))
        assert isinstance(result, Transition), f"{kind} {params} refused: {result}"
        self.state = result.state
        self.events += result.events
        return result.events

    def refuse(self, seat, kind: str, **params) -> Refusal:
        result = self.step(action(seat, kind, **params))
        assert isinstance(result, Refusal), f"{kind} {params} was accepted"
        return result

    def end(self) -> list[dict]:
        result = RULES.end_phase(self.state)
        self.state = result.state
        self.events += result.events
        return result.events

    def living_role(self, letter_role: str) -> list[int]:
        return [s for s in range(len(self.pub["alive"]))
                if self.alive(s) and self.role(s) == letter_role]

    def night(self, kill=None, *, pact=None, check=None, protect=None, possess=None,
              end=True) -> list[dict]:
        """Every living bandit proposes `kill` (the first bandit names `pact`, default the
        first living bandit, when the ghost variant is on); every living police proposes
        `check`; guardians protect per `protect` {guardian: target}; the ghost possesses."""
        assert self.phase == "night", self.phase
        before = len(self.events)
        variant = self.state["config"]["variant_ghost_poison"]
        bandits = self.living_role("bandit")
        if kill is not None:
            for b in bandits:
                params = {"target": kill}
                if variant:
                    params["pact"] = bandits[0] if pact is None else pact
                self.act(b, "kill", **params)
        if check is not None:
            for p in self.living_role("police"):
                self.act(p, "check", target=check)
        for g, t in (protect or {}).items():
            if t is None:
                self.act(g, "skip_protection")
            else:
                self.act(g, "protect", target=t)
        if possess is not None:
            self.act(self.state["secret"]["ghost"], "possess", target=possess)
        if end:
            self.end()
        return self.events[before:]

    def day(self, votes: dict | None = None, *, tie1: dict | None = None,
            tie2: dict | None = None, speak: bool = False) -> list[dict]:
        """Run the day to the next night (or the end): last words and speeches pass (or
        everyone speaks), then each voter votes as planned per stage or abstains."""
        before = len(self.events)
        plans = {0: votes or {}, 1: tie1 or {}, 2: tie2 or {}}
        while self.phase in ("last_words", "speech", "tie_speech", "vote", "tie_vote",
                             "extra_check"):
            ph = self.phase
            if ph in ("speech", "tie_speech") and speak:
                self.act(self.pub["queue"][self.pub["turn"]], "speak", text="过")
            elif ph in ("vote", "tie_vote"):
                voter = self.pub["queue"][self.pub["turn"]]
                target = plans[self.pub["stage"]].get(voter)
                if target is None:
                    self.act(voter, "abstain")
                else:
                    self.act(voter, "vote", target=target)
            self.end()
        return self.events[before:]

    def all_vote(self, target: int, voters=None) -> dict:
        """A vote plan: every living seat (or `voters`) but `target` votes for `target`."""
        seats = voters if voters is not None else [
            s for s in range(len(self.pub["alive"])) if self.alive(s)]
        return {s: target for s in seats if s != target}


VIEWERS_ALL = (GM, SPECTATOR)
__all__ = ["Table", "RULES", "deal", "end_phase", "VIEWERS_ALL"]
