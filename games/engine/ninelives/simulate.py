"""猫有n条命: play many random legal games and measure speed and win rates per camp.

Every seat acts in every phase, then the clock ends the phase: nobody misses a vote, so no
seat is put out for silence (§9.1.5), unlike the conformance suite's random play. Two
policies pick among the legal actions each seat's own view offers:

* "random": uniform among the offered actions, except that nobody attacks or votes for
  itself, and a seat uses a card 85% of nights (passes otherwise), a day card 15% of days;
* "informed": the same habits, but a seat uses what its view tells it: a civilian attacks
  and votes for seats its DIVINER or PROPHET found guilty and investigates seats it knows
  nothing of; a killer or a wolf attacks seats its DEMON or SORCERER found holding the
  investigating cards, and nobody attacks a seat it knows to share its camp.

Kill statements, stories and the GM's reasons are real sentences (games/engine/prose.py),
drawn from the game's seed like every other choice.

Neither is skilled play; the figures bound what the cards alone do. Run:

    python -m games.engine.ninelives.simulate --games 2000 --policy informed
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections import Counter
from dataclasses import dataclass, field

from ..base import CLOCK, Choice, Refusal, State, action, end_phase
from ..prose import fill
from .rules import NineLives

RESULTS = ("civilian", "killer", "wolf", "draw", "unfinished")


@dataclass
class Played:
    """One simulated game: its setup, its accepted steps and its final state."""

    setup: dict
    steps: list[dict] = field(default_factory=list)
    state: State | None = None

    @property
    def result(self) -> str:
        outcome = self.state["public"]["outcome"]
        return outcome["result"] if outcome else "unfinished"


def _suspicions(view: dict) -> tuple[set[int], set[int]]:
    """(seats found guilty, seats found holding an investigating card) from a seat's log."""
    guilty, seers = set(), set()
    for e in view["log"]:
        if e["kind"] == "investigation" and e["data"]["found"]:
            if e["data"]["card"] in ("DIVINER", "PROPHET"):
                guilty.add(e["data"]["target"])
            else:
                seers.add(e["data"]["target"])
    return guilty, seers


def _pick(rng: random.Random, choices: list[Choice], seat: int, view: dict,
          policy: str) -> Choice | None:
    """A choice among `choices` (all of one purpose) following the policy."""
    choices = [c for c in choices if c.params.get("target") != seat
               or c.params.get("card") in ("SOULBINDER", "WITCH_DOCTOR", "BLESS")]
    if not choices:
        return None
    if policy == "informed":
        camp = view["me"]["camp"]
        guilty, seers = _suspicions(view)
        wanted = guilty if camp == "civilian" else seers

        def weight(c: Choice) -> float:
            card, target = c.params.get("card"), c.params.get("target")
            hostile = card in ("KILLER", "WEREWOLF", "SNIPER", "STRIKE", "BOMB", "CURSE") \
                or c.kind in ("vote", "proxy_vote")
            if hostile and target in wanted:
                return 8.0
            if card in ("DIVINER", "PROPHET", "DEMON", "SORCERER") and target in guilty | seers:
                return 0.2  # already known
            return 1.0
        return rng.choices(choices, weights=[weight(c) for c in choices])[0]
    return rng.choice(choices)


def seat_steps(rules: NineLives, state: State, seat: int, rng: random.Random,
               policy: str) -> list[dict]:
    """The steps one seat takes in the current phase, from its own view only."""
    # only the informed policy reads the seat's log; the random one needs its camp at most
    view = (rules.view(state, seat) if policy == "informed"
            else {"me": state["private"][seat], "log": []})
    phase = state["public"]["phase"]["name"]
    by_kind: dict[str, list[Choice]] = {}
    for c in rules.legal_actions(state, seat):
        by_kind.setdefault(c.kind, []).append(c)
    steps = []
    if "choose_camp" in by_kind and rng.random() < 0.9:
        steps.append(fill(rng.choice(by_kind["choose_camp"]), seat, rng))
    if phase == "night":
        if "use_card" in by_kind and rng.random() < 0.85:
            choice = _pick(rng, by_kind["use_card"], seat, view, policy)
            if choice:
                steps.append(fill(choice, seat, rng))
        elif "pass" in by_kind:
            steps.append(action(seat, "pass"))
    else:
        if "use_card" in by_kind and rng.random() < 0.15:
            choice = _pick(rng, by_kind["use_card"], seat, view, policy)
            if choice:
                steps.append(fill(choice, seat, rng))
        votes = [c for c in by_kind.get("vote", [])]
        choice = _pick(rng, votes, seat, view, policy) or (rng.choice(votes) if votes else None)
        if choice:
            kind = "proxy_vote" if rng.random() < 0.1 else "vote"
            steps.append(action(seat, kind, target=choice.params["target"]))
    return steps


def loss_order_step(rules: NineLives, state: State, seat: int, rng: random.Random):
    """A random loss order with a legal core card, or None (then the GM draws one)."""
    options = [c for c in rules.legal_actions(state, seat) if c.kind == "loss_order"]
    if not options or rng.random() < 0.2:
        return None
    cards = list(rng.choice(options).params["cards"])
    rest = cards[:-1]
    rng.shuffle(rest)
    return action(seat, "loss_order", cards=rest + cards[-1:])


def play(players: int, seed: int, *, policy: str = "random", deal: dict | None = None,
         max_phases: int = 120, rules: NineLives | None = None) -> Played:
    """Play one seeded game to its end (or `max_phases` phases).

    1. Each phase, every living seat in a shuffled order takes its steps (night 1: camp,
       loss order; every night: a card or a pass; every day: maybe a day card, a vote).
    2. The clock ends the phase. A step the engine refuses is a bug: it raises.
    The steps go through `apply_in_place` and `end_phase_in_place` (no copy of the state
    per step); `replay(setup, steps)` gives the same final state.
    """
    rules = rules or NineLives()
    rng = random.Random(f"ninelives-sim/{players}/{seed}/{policy}")
    config = {"deal": deal} if deal else None
    setup = {"seats": players, "config": config, "seed": f"sim-{seed}"}
    state = rules.initial_state(seats=players, config=config, seed=setup["seed"]).state
    played = Played(setup)

    def take(step):
        # The game's state is this function's own: the engine changes it in place.
        if step["actor"] == CLOCK:
            rules.end_phase_in_place(state, [])
        else:
            result = rules.apply_in_place(state, step)
            if isinstance(result, Refusal):
                raise AssertionError(f"legal step refused: {step}: {result}")
        played.steps.append(step)

    for _ in range(max_phases):
        if rules.outcome(state) is not None:
            break
        order = [s for s in range(players) if state["public"]["alive"][s]]
        rng.shuffle(order)
        for seat in order:
            if not state["public"]["alive"][seat]:
                continue
            for step in seat_steps(rules, state, seat, rng, policy):
                take(step)
            if state["public"]["phase"] == {"name": "night", "number": 1}:
                step = loss_order_step(rules, state, seat, rng)
                if step:
                    take(step)
        take(end_phase())
    played.state = state
    return played


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion k/n."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def simulate(players: int, games: int, *, seed: int = 0, policy: str = "random") -> dict:
    """Play `games` games; return counts, rates with 95% intervals, and games per second."""
    rules = NineLives()
    counts: Counter = Counter()
    phases = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    for i in range(games):
        played = play(players, seed + i, policy=policy, rules=rules)
        counts[played.result] += 1
        phases += sum(1 for s in played.steps if s["kind"] == "end_phase")
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    return {
        "players": players, "games": games, "policy": policy, "seconds": seconds,
        "games_per_second": games / seconds if seconds else float("inf"),
        "games_per_cpu_second": games / cpu if cpu else float("inf"),
        "mean_phases": phases / games if games else 0,
        "counts": {r: counts[r] for r in RESULTS},
        "rates": {r: (counts[r] / games if games else 0.0, *wilson(counts[r], games))
                  for r in RESULTS},
    }


def baseline_copies(players: int, seconds: float = 0.5) -> float:
    """The trivial baseline for speed figures: JSON copies per CPU second of a fresh game's
    state (`json.loads(json.dumps(state))`), measured for about `seconds` of CPU time."""
    state = NineLives().initial_state(seats=players, seed="baseline").state
    done, start = 0, time.process_time()
    while (elapsed := time.process_time() - start) < seconds:
        for _ in range(50):
            json.loads(json.dumps(state))
        done += 50
    return done / elapsed


def speed(players: int, games: int, *, seed: int = 0, policy: str = "random") -> dict:
    """`simulate`, with the baseline measured just before and just after it in the same
    process: `copies_per_game` (baseline copies per CPU second / games per CPU second) is
    what one game costs in copies of a fresh state. Counted in the process's CPU time, so a
    machine busy with other work, or a faster one, changes it much less than games per
    second."""
    before = baseline_copies(players)
    stats = simulate(players, games, seed=seed, policy=policy)
    after = baseline_copies(players)
    stats["baseline_copies_per_second"] = (before + after) / 2
    stats["copies_per_game"] = (stats["baseline_copies_per_second"]
                                / stats["games_per_cpu_second"])
    return stats


def report(stats: dict) -> str:
    lines = [f"{stats['players']} players, {stats['games']} games, policy {stats['policy']}: "
             f"{stats['games_per_second']:.1f} games/s, {stats['mean_phases']:.1f} phases "
             f"per game"]
    if "copies_per_game" in stats:
        lines.append(f"  speed: {stats['games_per_cpu_second']:.1f} games per CPU second; one "
                     f"game costs {stats['copies_per_game']:.0f} JSON copies of a fresh state "
                     f"(baseline in this run: {stats['baseline_copies_per_second']:,.0f} "
                     f"copies per CPU second)")
    for r in RESULTS:
        rate, lo, hi = stats["rates"][r]
        lines.append(f"  {r:<10} {stats['counts'][r]:>6}  {100 * rate:5.1f}%  "
                     f"(95% CI {100 * lo:5.1f}-{100 * hi:5.1f}%)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description="Random legal games of 猫有n条命.")
    parser.add_argument("--games", type=int, default=1000, help="games per player count")
    parser.add_argument("--players", type=int, nargs="+", default=[5, 6], choices=[5, 6])
    parser.add_argument("--policy", choices=["random", "informed"], default="random")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    out = "\n".join(report(speed(p, args.games, seed=args.seed, policy=args.policy))
                    for p in args.players)
    print(out)
    return out


if __name__ == "__main__":
    main()
