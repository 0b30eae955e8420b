"""Simulations of 谁偷了我的金币: random play and simple strategies, played on the engine.

Questions answered (figures in docs/rules/gold.md, produced by
`manage.py simulate_gold`):
  1. Average coins by seat position: over a whole game (position from the first lead) and
     per round (position from that round's lead). Is going first an advantage?
  2. Average coins by strategy when strategies share a table.
And one exact fact: `max_round_payout`, the most coins one round can pay, which shows the
80-coin supply cannot run out (interpretation I13).

Strategies decide from the seat's view only (never the raw state):
  random         a uniformly random kind of legal choice, then a uniformly random choice of
                 that kind (so flipping is as likely as keeping when both are legal);
  greedy         picks the card with the best expected preliminary share, assuming the
                 other players pick at random; keeps the priority token (2 sure coins); in
                 its operation takes the choice with the best expected final share, guessing
                 each hidden card uniformly among what it can be and assuming the seats after
                 it keep their cards; never flips (it gains no coins from information);
  greedy_double  greedy, but always trades the priority token for a ×2 token;
  thief          always picks THIEF and keeps everything (the timid player).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from functools import cache
from itertools import product

from ..base import Choice, Refusal, end_phase
from .rules import (
    A_BONUS,
    A_DOUBLE,
    A_FLIP,
    A_KEEP,
    A_PICK,
    A_REPLACE,
    A_SWAP,
    CARDS,
    THIEF,
    Gold,
    judge,
)

RULES = Gold()
STRATEGIES = ("random", "greedy", "greedy_double", "thief")


# --- the supply bound (I13) --------------------------------------------------------------

def _compositions(n: int) -> list[tuple[int, int, int]]:
    """Every way to split n cards into (KILLER, ASSASSIN, THIEF) counts."""
    return [(k, a, n - k - a) for k in range(n + 1) for a in range(n + 1 - k)]


def _add(x: tuple, y: tuple) -> tuple:
    return tuple(p + q for p, q in zip(x, y, strict=True))


@cache
def _shares(counts: tuple[int, int, int]) -> tuple[int, int, int]:
    cards = [c for c, n in zip(CARDS, counts, strict=True) for _ in range(n)]
    result = judge(cards)
    return tuple(result.per_card[c] for c in CARDS)


def max_round_payout(players: int) -> int:
    """An upper bound on the coins one round can pay the players (bonus included).

    Exhaustive over card counts, allowing more than the rules do (so the bound is safe):
    1. every preliminary table: the players' cards and the virtual players' cards (any mix
       can be drawn: the pile holds 8-X of each card);
    2. every split of the preliminary winners into bonus keepers (2 coins, card fixed) and
       doublers;
    3. every final table: keepers unchanged, every other player on any card, the virtual
       cards unchanged or with one card changed to any card;
    4. pay shares, doubled for doublers, plus the bonuses; keep the largest total.
    """
    virtual = 8 - players
    best = 0
    for real in _compositions(players):
        for virt in _compositions(virtual):
            shares = _shares(_add(real, virt))
            winners = [real[i] if shares[i] > 0 else 0 for i in range(3)]
            finals = {virt} | {
                tuple(v - (i == out) + (i == into) for i, v in enumerate(virt))
                for out in range(3) if virt[out] for into in range(3)}
            for keep in product(*(range(w + 1) for w in winners)):
                doublers = sum(winners) - sum(keep)
                others = players - sum(winners)
                for dbl in _compositions(doublers):
                    for oth in _compositions(others):
                        for vf in finals:
                            fs = _shares(_add(_add(_add(keep, dbl), oth), vf))
                            total = (2 * sum(keep)
                                     + sum(fs[i] * (keep[i] + oth[i] + 2 * dbl[i])
                                           for i in range(3)))
                            best = max(best, total)
    return best


# --- strategies --------------------------------------------------------------------------

Belief = tuple[tuple[float, float, float], ...]   # one distribution over CARDS per unknown card


@cache
def _expected_shares(known: tuple[int, int, int], unknown: Belief) -> tuple[float, ...]:
    """Expected coins per holder of each card, given known counts and independent unknowns."""
    expected = [0.0, 0.0, 0.0]
    for combo in product(range(3), repeat=len(unknown)):
        p = math.prod(dist[c] for dist, c in zip(unknown, combo, strict=True))
        if p == 0:
            continue
        counts = list(known)
        for c in combo:
            counts[c] += 1
        shares = _shares(tuple(counts))
        for i in range(3):
            expected[i] += p * shares[i]
    return tuple(expected)


UNIFORM = (1 / 3, 1 / 3, 1 / 3)


def _counts(cards: list[str]) -> list[int]:
    return [cards.count(c) for c in CARDS]


def _belief_of_spot(spot: dict) -> tuple[str | None, tuple[float, float, float] | None]:
    """What a viewer knows of a place: a card, or a distribution over what it can be."""
    if not spot["covered"] or spot["cover"]:
        return (spot["cover"] or spot["shown"]), None
    return None, UNIFORM


def _seat_belief(spot: dict) -> tuple[str | None, tuple[float, float, float] | None]:
    """A covered seat card is one of the owner's two other cards (§5④ operation 1)."""
    if not spot["covered"] or spot["cover"]:
        return (spot["cover"] or spot["shown"]), None
    shown = CARDS.index(spot["shown"])
    return None, tuple(0.0 if i == shown else 0.5 for i in range(3))


def _final_value(view: dict, seat: int, choice: Choice) -> float:
    """The expected final share of `seat` if it makes `choice` and the others keep."""
    pub, me = view["public"], view["me"]
    known: list[str] = []
    unknown: list[tuple[float, float, float]] = []
    mine = pub["table"][seat]["shown"]
    if me["face_down"] and "seat" in me["face_down"]:
        mine = me["face_down"]["card"]
    if choice.kind == A_SWAP:
        mine = choice.params["card"]
    for i, spot in enumerate(pub["table"]):
        if i == seat:
            known.append(mine)
            continue
        card, belief = _seat_belief(spot)
        if card:
            known.append(card)
        else:
            unknown.append(belief)
    for v, spot in enumerate(pub["virtual"]):
        laid = me["face_down"]
        if laid and laid.get("virtual") == v:
            known.append(laid["card"])
        elif choice.kind == A_REPLACE and choice.params["virtual"] == v:
            known.append(choice.params["card"])
        else:
            card, belief = _belief_of_spot(spot)
            if card:
                known.append(card)
            else:
                unknown.append(belief)
    shares = _expected_shares(tuple(_counts(known)), tuple(unknown))
    return shares[CARDS.index(mine)]


def choose(strategy: str, view: dict, choices: list[Choice], rng: random.Random) -> Choice:
    """The choice `strategy` makes for the seat whose view this is.

    Precondition: `choices` are the seat's legal actions now (not empty).
    """
    kinds = sorted({c.kind for c in choices})
    if strategy == "random":
        kind = rng.choice(kinds)
        return rng.choice([c for c in choices if c.kind == kind])
    by_kind = {c.kind: c for c in choices}
    if strategy == "thief":
        if A_PICK in by_kind:
            return next(c for c in choices if c.params.get("card") == THIEF)
        return by_kind.get(A_KEEP) or by_kind[A_BONUS]
    if strategy not in ("greedy", "greedy_double"):
        raise ValueError(f"unknown strategy {strategy!r}")
    if A_PICK in by_kind:
        pub = view["public"]
        virtual = [spot["shown"] for spot in pub["virtual"]]
        others = tuple([UNIFORM] * (pub["players"] - 1))

        def pick_value(c: Choice) -> float:
            counts = _counts(virtual + [c.params["card"]])
            return _expected_shares(tuple(counts), others)[CARDS.index(c.params["card"])]

        return _best(choices, pick_value, rng)
    if A_BONUS in by_kind:
        return by_kind[A_DOUBLE if strategy == "greedy_double" else A_BONUS]
    seat = view["viewer"]
    useful = [c for c in choices if c.kind != A_FLIP]
    return _best(useful, lambda c: _final_value(view, seat, c), rng)


def _best(choices: list[Choice], value, rng: random.Random) -> Choice:
    """The choice of highest value; ties broken at random (keeping comes first on a tie)."""
    scored = [(round(value(c), 9), c) for c in choices]
    top = max(v for v, _ in scored)
    best = [c for v, c in scored if v == top]
    keep = [c for c in best if c.kind == A_KEEP]
    return keep[0] if keep else rng.choice(best)


# --- playing games -----------------------------------------------------------------------

@dataclass
class GameRecord:
    players: int
    strategies: list[str]
    first_lead: int
    coins: list[int]
    # per round: (lead, gains of each seat that round, bonus included)
    rounds: list[tuple[int, list[int]]] = field(default_factory=list)


def play_game(players: int, strategies: list[str], seed: int) -> GameRecord:
    """Play one game on the engine, every seat following its strategy, nobody missing a
    deadline. The log is dropped between steps: strategies read only the public part and
    their own private part, and the engine never reads its log."""
    rng = random.Random(seed)
    state = RULES.initial_state(seats=players, config={"lead": None},
                                seed=f"simulate-{seed}").state
    while RULES.outcome(state) is None:
        info = RULES.phase(state)
        for seat in sorted(info.awaiting):
            choices = RULES.legal_actions(state, seat)
            step = _step(seat, choose(strategies[seat], RULES.view(state, seat), choices, rng))
            result = RULES.apply(state, step)
            assert not isinstance(result, Refusal), result
            state = dict(result.state, log=[])
        state = dict(RULES.step(state, end_phase()).state, log=[])
    pub = state["public"]
    record = GameRecord(players, list(strategies), pub["first_lead"], list(pub["coins"]))
    before = [0] * players
    for r in pub["results"]:
        record.rounds.append((r["lead"], [a - b for a, b in zip(r["coins"], before,
                                                                  strict=True)]))
        before = r["coins"]
    return record


def _step(seat: int, choice: Choice) -> dict:
    return {"actor": seat, "kind": choice.kind, "params": dict(choice.params)}


# --- statistics --------------------------------------------------------------------------

@dataclass
class Mean:
    """A sample mean with a normal-approximation 95% interval."""

    values: list[float] = field(default_factory=list)

    def add(self, x: float) -> None:
        self.values.append(x)

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float:
        return sum(self.values) / self.n if self.n else float("nan")

    @property
    def half_width(self) -> float:
        if self.n < 2:
            return float("nan")
        m = self.mean
        var = sum((x - m) ** 2 for x in self.values) / (self.n - 1)
        return 1.96 * math.sqrt(var / self.n)

    def __str__(self) -> str:
        return f"{self.mean:.2f} ± {self.half_width:.2f}"


def by_position(records: list[GameRecord]) -> tuple[list[Mean], list[Mean]]:
    """(coins per game by position from the first lead, coins per round by position from
    that round's lead). Position 0 is the lead; position 1 acts next, and so on."""
    players = records[0].players
    game = [Mean() for _ in range(players)]
    per_round = [Mean() for _ in range(players)]
    for rec in records:
        for seat, coins in enumerate(rec.coins):
            game[(seat - rec.first_lead) % players].add(coins)
        for lead, gains in rec.rounds:
            for seat, g in enumerate(gains):
                per_round[(seat - lead) % players].add(g)
    return game, per_round


def by_strategy(records: list[GameRecord]) -> dict[str, tuple[Mean, Mean]]:
    """strategy -> (coins per game, share of wins; a tie splits the win)."""
    out: dict[str, tuple[Mean, Mean]] = {}
    for rec in records:
        best = max(rec.coins)
        winners = [i for i, c in enumerate(rec.coins) if c == best]
        for seat, strategy in enumerate(rec.strategies):
            coins, wins = out.setdefault(strategy, (Mean(), Mean()))
            coins.add(rec.coins[seat])
            wins.add(1 / len(winners) if seat in winners else 0.0)
    return out


def run(players: int, games: int, strategy: str, seed: int = 0) -> list[GameRecord]:
    """`games` games with every seat following `strategy`."""
    return [play_game(players, [strategy] * players, seed * 1_000_003 + g)
            for g in range(games)]


def run_mixed(players: int, games: int, seed: int = 0,
              strategies: tuple[str, ...] = STRATEGIES) -> list[GameRecord]:
    """`games` games with each seat's strategy drawn at random from `strategies`."""
    rng = random.Random(f"mixed {players} {seed}")
    out = []
    for g in range(games):
        assigned = [rng.choice(strategies) for _ in range(players)]
        out.append(play_game(players, assigned, seed * 1_000_003 + g))
    return out


def report(players_list: list[int], games: int, seed: int = 0) -> str:
    """The Markdown tables for docs/rules/gold.md."""
    lines = [f"Games per table: {games} (seed {seed}); ± is a 95% interval.", ""]
    for strategy in ("random", "greedy"):
        lines += [f"### All seats {strategy}: coins by position", "",
                  "| players | per game, from the first lead (1st, 2nd, ...) "
                  "| per round, from that round's lead (lead, next, ...) |",
                  "|---|---|---|"]
        for players in players_list:
            game, per_round = by_position(run(players, games, strategy, seed))
            lines.append(f"| {players} | {' / '.join(map(str, game))} "
                         f"| {' / '.join(map(str, per_round))} |")
        lines.append("")
    lines += ["### Mixed tables: coins per game by strategy", "",
              "| players | " + " | ".join(STRATEGIES) + " |",
              "|---|" + "---|" * len(STRATEGIES)]
    wins = ["", "### Mixed tables: share of wins by strategy", "",
            "| players | " + " | ".join(STRATEGIES) + " |",
            "|---|" + "---|" * len(STRATEGIES)]
    for players in players_list:
        stats = by_strategy(run_mixed(players, games, seed))
        lines.append(f"| {players} | " + " | ".join(
            str(stats[s][0]) if s in stats else "-" for s in STRATEGIES) + " |")
        wins.append(f"| {players} | " + " | ".join(
            str(stats[s][1]) if s in stats else "-" for s in STRATEGIES) + " |")
    lines += wins
    lines += ["", "### Most coins one round can pay (upper bound, I13)", "",
              "| players | per round | × rounds |", "|---|---|---|"]
    for players in players_list:
        m = max_round_payout(players)
        lines.append(f"| {players} | {m} | {m * players} |")
    return "\n".join(lines) + "\n"
