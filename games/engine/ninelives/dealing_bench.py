"""Baselines and measurements for the 猫有n条命 dealer (`manage.py bench_dealing`).

Pure Python. Three ways to deal, compared on speed and on fairness:

* ours: `dealing.sample` (exact counts, uniform by construction);
* plain rejection: draw the camps by lot, shuffle the deck, deal it out, pick the taints at
  random, and start again until `dealing.validate` finds nothing wrong. It draws from exactly
  the same distribution as ours (see `docs/rules/ninelives-dealing.md`), only slowly;
* the forum's greedy method, as proposed after the rules in seed 002: give the killer and the
  wolf their two fixed cards, then deal the shuffled rest round by round, skipping cards a seat
  may not take and swapping when nothing fits. It can get stuck and it is biased.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction

from .cards import FREE_AGENT, NEUTRAL
from .dealing import (
    TAINTS,
    Deal,
    DealCounter,
    DealRules,
    camp_assignments,
    card_marginals,
    count,
    rules_for,
    sample,
    validate,
)

# --- plain rejection sampling -----------------------------------------------------------------


def shuffled_deal(rules: DealRules, rng: random.Random) -> Deal:
    """One honest shuffle: camps by lot, the deck dealt out in order, taints picked at random
    among the neutral cards. Not necessarily valid."""
    camps = list(rules.seat_camps)
    rng.shuffle(camps)
    cards = list(rules.deck.elements())
    rng.shuffle(cards)
    h = rules.hand_size
    hands = tuple(tuple(cards[s * h:(s + 1) * h]) for s in range(len(camps)))
    neutral = list(rules.neutral_cards)
    rng.shuffle(neutral)
    t = rules.taints
    taints = {TAINTS[0]: tuple(neutral[:t]), TAINTS[1]: tuple(neutral[t:2 * t])}
    return Deal(players=rules.players, camps=tuple(camps), hands=hands, taints=taints)


def acceptance_probability(rules: DealRules) -> Fraction:
    """The exact chance that one `shuffled_deal` is valid.

    A shuffle deals physical cards; a valid outcome splits every kind with two copies (§4.4.7)
    so it stands for 2^(kinds with two copies) ways to deal the physical cards. Divide by all
    shuffles: camp assignments x ways to cut the deck into hands x ordered taint picks.
    """
    pairs = sum(1 for _, _, n in rules.cards if n == 2)
    if any(n > 2 for _, _, n in rules.cards):
        raise ValueError("only kinds with one or two copies are supported")
    h, seats = rules.hand_size, len(rules.seat_camps)
    cuts = math.factorial(h * seats) // math.factorial(h) ** seats
    nn, t = len(rules.neutral_cards), rules.taints
    picks = math.comb(nn, t) * math.comb(nn - t, t)
    return Fraction(count(rules) * 2 ** pairs, camp_assignments(rules) * cuts * picks)


# --- the forum's greedy method --------------------------------------------------------------


def may_take(hand: list[str], camp: str, card: str, rules: DealRules) -> bool:
    """Whether a partial hand of a seat of `camp` may take `card` under the rules a dealer can
    check card by card (§4.3-§4.4.10, the free agent's limits at their loosest)."""
    if len(hand) >= rules.hand_size:
        return False
    if any(c == camp and k == card for _, c, k in rules.forbidden):
        return False
    if card in rules.single and card in hand:
        return False
    for _, a, b in rules.apart:
        if (card == a and b in hand) or (card == b and a in hand):
            return False
    card_camp = rules.camp_of(card)
    held = sum(1 for c in hand if rules.camp_of(c) == card_camp) + 1
    if card_camp == NEUTRAL:
        return held <= rules.neutral_cap
    if camp == card_camp or camp == FREE_AGENT:
        return held <= rules.own_cap
    return held <= rules.other_cap


def greedy_deal(rules: DealRules, rng: random.Random) -> tuple[Deal | None, str]:
    """The forum's method. Returns (deal, "") or (None, why it got stuck).

    Steps (our reading of the post that follows the rules in seed 002):
    1. camps by lot; the killer and the wolf seats get their §4.1/§4.2 cards;
    2. shuffle the rest into a pile; deal in rounds, seat 1 first, one card per seat and
       round (the killer and the wolf sit out the first two rounds);
    3. a seat takes the first card in the pile it may take; skipped cards stay where they are;
    4. when it may take none, the first card of the pile is swapped into another seat's hand
       for a card that seat may give up and the stuck seat may take (`_swap`); none: stuck;
    5. taints: shuffle the neutral cards, mark them in turn, skipping a card whose holder
       already has one of that taint;
    6. finally `validate`: a deal breaking a rule that cannot be checked card by card (the
       §6.2 core card, the free agent's open camp) also counts as stuck.
    """
    camps = list(rules.seat_camps)
    rng.shuffle(camps)
    hands: list[list[str]] = [[] for _ in camps]
    pile = list(rules.deck.elements())
    for seat, camp in enumerate(camps):
        for _, c, card in rules.required:
            if c == camp:
                hands[seat].append(card)
                pile.remove(card)
    fixed = [len(hand) for hand in hands]
    rng.shuffle(pile)
    for round_ in range(rules.hand_size):
        for seat, camp in enumerate(camps):
            if round_ < fixed[seat]:
                continue           # the killer and the wolf sit out the first two rounds
            for k, card in enumerate(pile):
                if may_take(hands[seat], camp, card, rules):
                    hands[seat].append(pile.pop(k))
                    break
            else:
                if not _swap(hands, camps, seat, pile, rules):
                    return None, "no card fits and no swap helps"
    taints = _greedy_taints(hands, rules, rng)
    if taints is None:
        return None, "the taints cannot be placed"
    deal = Deal(players=rules.players, camps=tuple(camps), hands=tuple(map(tuple, hands)),
                taints=taints)
    broken = validate(deal, rules)
    if broken:
        return None, f"finished but breaks §{broken[0].rule}"
    return deal, ""


def _swap(hands: list[list[str]], camps: list[str], seat: int, pile: list[str],
          rules: DealRules) -> bool:
    """Step 4 of `greedy_deal`: the first card of the pile goes to another seat in exchange
    for a card that seat may give up (not one of its §4.1/§4.2 cards) and the stuck seat may
    take. Seats are tried in order, their cards in the order they were dealt."""
    first = pile[0]
    for other, hand in enumerate(hands):
        if other == seat:
            continue
        fixed = {card for _, c, card in rules.required if c == camps[other]}
        for card in hand:
            if card in fixed:
                continue
            rest = list(hand)
            rest.remove(card)
            if (may_take(rest, camps[other], first, rules)
                    and may_take(hands[seat], camps[seat], card, rules)):
                hands[other] = rest + [first]
                hands[seat].append(card)
                pile.pop(0)
                return True
    return False


def _greedy_taints(hands: list[list[str]], rules: DealRules, rng: random.Random) -> dict | None:
    holder = {c: s for s, hand in enumerate(hands) for c in hand}
    neutral = list(rules.neutral_cards)
    rng.shuffle(neutral)
    taints = {}
    for kind in TAINTS:
        chosen: list[str] = []
        for card in neutral:
            if len(chosen) == rules.taints:
                break
            if all(holder[card] != holder[c] for c in chosen):
                chosen.append(card)
        if len(chosen) < rules.taints:
            return None
        for card in chosen:
            neutral.remove(card)
        taints[kind] = tuple(chosen)
    return taints


# --- fairness measures ------------------------------------------------------------------


def chi2_sf(x: float, dof: int) -> float:
    """P(X >= x) for X chi-square distributed with `dof` degrees of freedom."""
    if x <= 0:
        return 1.0
    return _gamma_q(dof / 2, x / 2)


def _gamma_q(a: float, x: float) -> float:
    """The regularised upper incomplete gamma function Q(a, x) (series or continued
    fraction, as in Numerical Recipes)."""
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(log_front) * h


def camp_card_frequencies(deals: list[Deal]) -> dict[tuple[str, str], float]:
    """Observed P(a given seat of camp X holds card Y), keyed (X, Y)."""
    held: Counter = Counter()
    seats: Counter = Counter()
    for deal in deals:
        seats.update(deal.camps)
        for camp, hand in zip(deal.camps, deal.hands, strict=True):
            held.update((camp, card) for card in hand)
    return {(camp, card): held[camp, card] / seats[camp] for camp, card in held}


def frequency_chi_square(deals: list[Deal], exact: dict[tuple[str, str], Fraction]
                         ) -> tuple[float, int]:
    """Pearson chi-square of per-seat card frequencies against exact probabilities.

    Each (seat camp, card) cell is a count of successes in (deals x seats of that camp) trials
    with known probability p; the statistic sums (observed - expected)^2 / (n p (1 - p)).
    Cells are not independent, so the statistic is compared with a chi-square of as many
    degrees of freedom as cells only as a rough yardstick; tests use a generous threshold.
    """
    held: Counter = Counter()
    seats: Counter = Counter()
    for deal in deals:
        seats.update(deal.camps)
        for camp, hand in zip(deal.camps, deal.hands, strict=True):
            held.update((camp, card) for card in hand)
    stat, cells = 0.0, 0
    for (camp, card), p in exact.items():
        if 0 < p < 1:
            n = seats[camp]
            stat += (held[camp, card] - n * float(p)) ** 2 / (n * float(p) * (1 - float(p)))
            cells += 1
    return stat, cells


def max_deviation(deals: list[Deal], exact: dict[tuple[str, str], Fraction]
                  ) -> tuple[float, tuple[str, str]]:
    observed = camp_card_frequencies(deals)
    worst = max(exact, key=lambda k: abs(observed.get(k, 0.0) - float(exact[k])))
    return abs(observed.get(worst, 0.0) - float(exact[worst])), worst


# --- the benchmark --------------------------------------------------------------------------


@dataclass
class Figures:
    players: int
    valid_deals: int
    shuffle_us: float
    ours_us: float
    ours_build_s: float
    rejection_tries_per_s: float
    rejection_deals: int
    rejection_seconds: float
    acceptance: float
    greedy_runs: int
    greedy_stuck: int
    greedy_us: float
    greedy_chi2: float = 0.0
    greedy_cells: int = 0
    greedy_max_dev: float = 0.0
    greedy_worst: tuple[str, str] = ("", "")
    ours_chi2: float = 0.0
    stuck_reasons: Counter = field(default_factory=Counter)

    @property
    def ratio(self) -> float:
        return self.ours_us / self.shuffle_us


def _per_call(fn, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n


def measure(players: int, *, seed: int = 1, ours: int = 20_000, greedy: int = 20_000,
            rejection_seconds: float = 5.0) -> Figures:
    """Measure the three dealers for one player count (see the module doc)."""
    rules = rules_for(players)
    rng = random.Random(seed)
    cards = list(rules.deck.elements())
    shuffle_s = min(_per_call(lambda: rng.shuffle(cards), 20_000) for _ in range(3))
    start = time.perf_counter()
    valid = camp_assignments(rules) * DealCounter(rules).total()   # a cold build, timed
    build_s = time.perf_counter() - start
    sample(rules, rng)
    # warm the cache of weighted moves the way a long-running server would
    for _ in range(2_000):
        sample(rules, rng)
    ours_s = min(_per_call(lambda: sample(rules, rng), ours // 2) for _ in range(2))

    start = time.perf_counter()
    tries = found = 0
    while time.perf_counter() - start < rejection_seconds:
        candidate = shuffled_deal(rules, rng)
        tries += 1
        if not validate(candidate, rules):
            found += 1
    elapsed = time.perf_counter() - start

    exact = card_marginals(players)
    stuck: Counter = Counter()
    greedy_deals = []
    start = time.perf_counter()
    for _ in range(greedy):
        result, why = greedy_deal(rules, rng)
        if result is None:
            stuck[why] += 1
        else:
            greedy_deals.append(result)
    greedy_s = (time.perf_counter() - start) / greedy
    figures = Figures(
        players=players, valid_deals=valid, shuffle_us=shuffle_s * 1e6, ours_us=ours_s * 1e6,
        ours_build_s=build_s, rejection_tries_per_s=tries / elapsed, rejection_deals=found,
        rejection_seconds=elapsed, acceptance=float(acceptance_probability(rules)),
        greedy_runs=greedy, greedy_stuck=sum(stuck.values()), greedy_us=greedy_s * 1e6,
        stuck_reasons=stuck)
    if greedy_deals:
        figures.greedy_chi2, figures.greedy_cells = frequency_chi_square(greedy_deals, exact)
        figures.greedy_max_dev, figures.greedy_worst = max_deviation(greedy_deals, exact)
    ours_deals = [sample(rules, rng) for _ in range(len(greedy_deals) or 1)]
    figures.ours_chi2, _ = frequency_chi_square(ours_deals, exact)
    return figures


def report(f: Figures) -> str:
    """The figures as plain text lines."""
    rej_rate = f.rejection_deals / f.rejection_seconds
    expected = f.rejection_tries_per_s * f.acceptance
    lines = [
        f"== {f.players} players: {f.valid_deals:,} valid deals "
        f"(camps x hands x taints) ==",
        f"floor   one random.shuffle of the deck: {f.shuffle_us:.1f} us",
        f"ours    {f.ours_us:.1f} us per deal = {1e6 / f.ours_us:,.0f} deals/s "
        f"({f.ratio:.1f}x a shuffle; tables built in {f.ours_build_s:.2f} s)",
        f"reject  {f.rejection_tries_per_s:,.0f} shuffles/s, exact acceptance "
        f"{f.acceptance:.3g} (1 in {1 / f.acceptance:,.0f}): {f.rejection_deals} deals in "
        f"{f.rejection_seconds:.1f} s = {rej_rate:.2f} deals/s (expected {expected:.2f})",
        f"greedy  {f.greedy_us:.1f} us per try = {1e6 / f.greedy_us:,.0f} tries/s; stuck "
        f"{f.greedy_stuck} of {f.greedy_runs} ({100 * f.greedy_stuck / f.greedy_runs:.1f}%)",
    ]
    for why, n in f.stuck_reasons.most_common():
        lines.append(f"        stuck: {why}: {n}")
    if f.greedy_cells:
        ok = f.greedy_runs - f.greedy_stuck
        lines.append(
            f"        bias over {ok} finished deals: chi-square {f.greedy_chi2:,.0f} on "
            f"{f.greedy_cells} (camp, card) cells (ours, same number of deals: "
            f"{f.ours_chi2:,.0f}); worst cell {f.greedy_worst[0]} holds {f.greedy_worst[1]}: "
            f"off by {f.greedy_max_dev:.3f}")
    return "\n".join(lines)

