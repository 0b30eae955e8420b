"""Random-play win rates of Classic per side, with and without each 2.0 variant.

How much does each variant shift the balance? Each game is played to its end by a random
policy through the real rules (`apply_in_place` and `end_phase_in_place`, which run every
check `apply` runs but skip the defensive copy), and the results are counted per side with
95% Wilson intervals.

The random policy (the same for every variant, so only the rules differ):
1. Night: every living bandit proposes a uniformly random living seat outside its team as it
   knows it (and, with the ghost variant, a random living bandit for the death pact); every
   living police officer proposes a random seat it may check; every guardian protects a
   random seat it may protect; the ghost, while it may, possesses a random seat outside its
   team with probability 1/2 each night.
2. Extra check: every living police officer proposes a random seat it may check.
3. Day: nobody speaks or leaves last words (the clock skips them); every voter votes for a
   uniformly random candidate other than itself.
Nobody uses what they learned (checks, reveals): the figures measure the structure of the
rules, not the skill of the players.

Run it with `python manage.py simulate_classic` (see docs/rules/classic.md for figures).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..base import Refusal, action
from . import night
from . import roles as R
from .common import living_with_role
from .rules import Classic

VARIANTS: dict[str, dict] = {
    "classic": {},
    "classic, civilians-dead = bandit win": {"all_civilians_dead": "bandit"},
    "ghost + poison": {"variant_ghost_poison": True},
    "guardian": {"guardian": True},
    "dual guardians": {"dual_guardians": True},
    "ghost + poison + guardian": {"variant_ghost_poison": True, "guardian": True},
    "ghost + poison + dual guardians": {"variant_ghost_poison": True, "dual_guardians": True},
}
RESULTS = (R.POLICE_WIN, R.BANDIT_WIN, R.DRAW)
MAX_STEPS = 20_000


@dataclass
class Tally:
    seats: int
    variant: str
    games: int = 0
    wins: dict = field(default_factory=lambda: dict.fromkeys(RESULTS, 0))
    unfinished: int = 0
    rounds: int = 0
    seconds: float = 0.0

    def rate(self, result: str) -> tuple[float, float, float]:
        """(share, low, high): the share of games with `result` and its 95% interval."""
        return wilson(self.wins[result], self.games)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float, float]:
    """The Wilson score interval for k successes in n trials (95% by default)."""
    if n == 0:
        return 0.0, 0.0, 0.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return p, max(0.0, centre - half), min(1.0, centre + half)


def _do(rules: Classic, state: dict, seat: int, kind: str, **params) -> None:
    result = rules.apply_in_place(state, action(seat, kind, **params))
    if isinstance(result, Refusal):  # the policy only makes legal moves; a refusal is a bug
        raise AssertionError(f"random policy move refused: {kind} {params}: {result.code} "
                             f"{result.params}")


def _random_night(rules: Classic, state: dict, rng: random.Random) -> None:
    variant = state["config"]["variant_ghost_poison"]
    for b in living_with_role(state, R.BANDIT):
        team = set(state["private"][b]["team"])
        targets = [s for s in night.kill_targets(state) if s not in team]
        if not targets:
            continue
        params = {"target": rng.choice(targets)}
        if variant:
            params["pact"] = rng.choice(night.pact_choices(state))
        _do(rules, state, b, "kill", **params)
    for p in living_with_role(state, R.POLICE):
        targets = night.check_targets(state, p)
        if targets:
            _do(rules, state, p, "check", target=rng.choice(targets))
    for g in sorted({*living_with_role(state, R.GUARDIAN),
                     *living_with_role(state, R.POLICE_GUARDIAN),
                     *living_with_role(state, R.BANDIT_GUARDIAN)}):
        targets = night.protect_targets(state, g)
        if targets and g not in state["secret"]["lapsed"]:
            _do(rules, state, g, "protect", target=rng.choice(targets))
    ghost = state["secret"]["ghost"]
    if ghost is not None and night.may_possess(state, ghost) and rng.random() < 0.5:
        targets = night.possess_targets(state, ghost)
        if targets:
            _do(rules, state, ghost, "possess", target=rng.choice(targets))


def play_random_game(rules: Classic, seats: int, config: dict, seed: int) -> tuple[str | None, int]:
    """Play one game with the random policy; return (result or None, rounds played)."""
    state = random_game(rules, seats, config, seed)
    pub = state["public"]
    return (pub["outcome"]["result"] if pub["outcome"] is not None else None), pub["number"]


def random_game(rules: Classic, seats: int, config: dict, seed: int,
                before_each_end: Callable[[dict], None] | None = None) -> dict:
    """One game played with the random policy, its final state (its log: every event).

    `before_each_end(state)`, if given, is called before the clock ends each phase or slot,
    with the live state: it may take steps of its own in place (`apply_in_place`), e.g. a
    test's speeches and refused steps."""
    rng = random.Random(seed)
    state = rules.initial_state(seats=seats, config=config, seed=f"sim-{seed}").state
    pub = state["public"]
    for _ in range(MAX_STEPS):
        if pub["outcome"] is not None:
            break
        ph = pub["phase"]
        if ph == "night":
            _random_night(rules, state, rng)
        elif ph == "extra_check":
            for p in living_with_role(state, R.POLICE):
                targets = night.check_targets(state, p, extra=True)
                if targets:
                    _do(rules, state, p, "check", target=rng.choice(targets))
        elif ph in ("vote", "tie_vote"):
            voter = pub["queue"][pub["turn"]]
            options = [c for c in pub["candidates"] if c != voter]
            if options:
                _do(rules, state, voter, "vote", target=rng.choice(options))
        if before_each_end is not None:
            before_each_end(state)
        rules.end_phase_in_place(state, [])
        pub = state["public"]
    return state


def simulate(seats: int, variant: str, games: int, *, seed: int = 0) -> Tally:
    """Play `games` random games of one configuration and count the results."""
    rules = Classic()
    tally = Tally(seats=seats, variant=variant)
    config = VARIANTS[variant]
    start = time.perf_counter()
    for i in range(games):
        result, rounds = play_random_game(rules, seats, config, seed * 1_000_003 + i)
        tally.games += 1
        tally.rounds += rounds
        if result is None:
            tally.unfinished += 1
        else:
            tally.wins[result] += 1
    tally.seconds = time.perf_counter() - start
    return tally


def percent(rate: tuple[float, float, float]) -> str:
    p, lo, hi = rate
    return f"{100 * p:.1f} ({100 * lo:.1f}–{100 * hi:.1f})"


def table(tallies: list[Tally]) -> str:
    """A Markdown table of the results: shares in % with their 95% intervals, and the
    shift of the police and bandit win rates against the plain classic game at the same
    seat count."""
    base = {t.seats: t for t in tallies if t.variant == "classic"}
    lines = ["| players | rules | games | police side wins % | bandits win % | draw % | "
             "Δ police / Δ bandits vs classic (points) | rounds | games/s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for t in tallies:
        shift = "—"
        if t.seats in base and t.variant != "classic":
            b = base[t.seats]
            shift = " / ".join(f"{100 * (t.rate(r)[0] - b.rate(r)[0]):+.1f}"
                               for r in (R.POLICE_WIN, R.BANDIT_WIN))
        lines.append(
            f"| {t.seats} | {t.variant} | {t.games} | {percent(t.rate(R.POLICE_WIN))} | "
            f"{percent(t.rate(R.BANDIT_WIN))} | {percent(t.rate(R.DRAW))} | {shift} | "
            f"{t.rounds / max(t.games, 1):.1f} | {t.games_per_second:.0f} |")
        if t.unfinished:
            lines.append(f"|   | ({t.unfinished} games did not finish) | | | | | | | |")
    return "\n".join(lines)


def run(*, seats: list[int], variants: list[str], games: int, seed: int = 0,
        progress=None) -> list[Tally]:
    """Simulate every (seats, variant) pair; `progress(tally)` is called after each one."""
    out = []
    for n in seats:
        for v in variants:
            tally = simulate(n, v, games, seed=seed)
            out.append(tally)
            if progress:
                progress(tally)
    return out
