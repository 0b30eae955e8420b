"""The dealer counts exactly and samples uniformly.

1. On reduced decks, a brute force that knows nothing of the counter (it lists every camp
   assignment, every way to split the deck into hands and every taint choice, and keeps what
   `validate` accepts) finds exactly `count` outcomes, and the sampler hits each of them with
   equal frequency (Pearson chi-square, fixed seed).
2. On the full decks, the count does not depend on the order in which the counter takes the
   card kinds (the order changes what it forgets and when), and the holders of every card
   kind follow the exact probabilities computed from the counter (chi-square, fixed seed).
"""

from __future__ import annotations

import dataclasses
import itertools
import pathlib
import random
from collections import Counter

import pytest

from games.engine.ninelives import dealing
from games.engine.ninelives.dealing import Deal, small_rules, validate
from games.engine.ninelives.dealing_bench import (
    acceptance_probability,
    chi2_sf,
    greedy_deal,
    shuffled_deal,
)

K, W, C, FA = "killer", "wolf", "civilian", "free_agent"

SMALL = {
    # a free agent next to a killer and a civilian; KILLER and DIVINER come in pairs
    "free agent, 3 seats": small_rules(
        (K, C, FA), 3, {"KILLER": 2, "DEMON": 1, "DIVINER": 2, "SNIPER": 1, "SOULBINDER": 1,
                        "VEST": 1, "STRIKE": 1}, neutral_cap=2, taints=1),
    # all four kinds of seat
    "four camps": small_rules(
        (K, W, C, FA), 2, {"KILLER": 2, "WEREWOLF": 2, "SNIPER": 1, "SOULBINDER": 1,
                           "VEST": 1, "WOLFSBANE": 1}, neutral_cap=2, taints=1),
    # two interchangeable civilians and two cards per taint
    "two civilians, two taints": small_rules(
        (K, C, C), 3, {"KILLER": 1, "DEMON": 1, "DIVINER": 2, "SNIPER": 1, "VEST": 1,
                       "WOLFSBANE": 1, "CURSE": 1, "BLESS": 1}, neutral_cap=2, taints=2),
}


def all_valid_deals(rules) -> list[Deal]:
    """Every valid outcome, by brute force over camps x hands x taints, judged by `validate`.

    Hands are listed as multisets (a hand may hold two copies: `validate` must refuse them);
    taint choices may overlap (again for `validate` to refuse).
    """
    def splits(remaining: Counter, seats: int):
        if seats == 0:
            yield ()
            return
        for hand in sorted(set(itertools.combinations(sorted(remaining.elements()),
                                                      rules.hand_size))):
            for rest in splits(remaining - Counter(hand), seats - 1):
                yield (hand,) + rest

    taint_choices = list(itertools.combinations(rules.neutral_cards, rules.taints))
    found = []
    for camps in sorted(set(itertools.permutations(rules.seat_camps))):
        for hands in splits(rules.deck, len(camps)):
            probe = Deal(players=rules.players, camps=camps, hands=hands,
                         taints={K: taint_choices[0], W: taint_choices[0]})
            if any(v.rule not in ("3.5.1", "4.4.11") for v in validate(probe, rules)):
                continue   # the hands break a rule whatever the taints
            for killer, wolf in itertools.product(taint_choices, repeat=2):
                deal = Deal(players=rules.players, camps=camps, hands=hands,
                            taints={K: killer, W: wolf})
                if not validate(deal, rules):
                    found.append(deal)
    return found


@pytest.fixture(scope="module", params=list(SMALL), ids=list(SMALL))
def small(request):
    rules = SMALL[request.param]
    return rules, all_valid_deals(rules)


def test_the_count_equals_the_brute_force_on_a_small_deck(small):
    rules, valid = small
    assert len(valid) > 20, "the small deck should leave room for choice"
    assert dealing.count(rules) == len(valid)


def test_the_sampler_hits_every_valid_outcome_equally_often(small):
    rules, valid = small
    expected_each = 12
    rng = random.Random(2024)
    seen = Counter(dealing.canonical(dealing.sample(rules, rng))
                   for _ in range(expected_each * len(valid)))
    assert set(seen) == {dealing.canonical(d) for d in valid}
    stat = sum((seen[dealing.canonical(d)] - expected_each) ** 2 / expected_each for d in valid)
    assert chi2_sf(stat, len(valid) - 1) > 1e-3, stat


def test_a_shuffle_is_valid_as_often_as_the_exact_count_says():
    # the rejection baseline's acceptance rate follows from the count (each valid outcome
    # stands for 2^pairs shuffles of the physical cards): a binomial check
    rules = SMALL["four camps"]
    p = float(acceptance_probability(rules))
    rng = random.Random(7)
    n = 20_000
    hits = sum(not validate(shuffled_deal(rules, rng), rules) for _ in range(n))
    assert abs(hits - n * p) < 4.5 * (n * p * (1 - p)) ** 0.5, (hits, n * p)


# --- the full decks ------------------------------------------------------------------------

OTHER_ORDER = ("SNIPER", "STRIKE", "COUNTER_SNIPER", "WITCH_DOCTOR", "SOULBINDER", "PROPHET",
               "SORCERER", "WEREWOLF", "DIVINER", "DEMON", "KILLER", "BLESS", "CURSE",
               "WOLFSBANE", "VEST", "SAINT", "BOMB", "PARDON", "JAIL")


@pytest.mark.parametrize("players", [5, 6])
def test_the_count_does_not_depend_on_the_order_of_the_kinds(players):
    rules = dealing.rules_for(players)
    reordered = dataclasses.replace(
        rules, cards=tuple(sorted(rules.cards, key=lambda c: OTHER_ORDER.index(c[0]))))
    assert reordered.cards != rules.cards
    assert dealing.count(reordered) == dealing.count_deals(players)
    assert dealing.count_deals(players) > 0


def test_the_documented_counts_are_the_computed_ones():
    doc = (pathlib.Path(__file__).resolve().parents[3] / "docs" / "rules"
           / "ninelives-dealing.md").read_text(encoding="utf-8")
    for players in (5, 6):
        rules = dealing.rules_for(players)
        assert f"**{dealing.count_deals(players):,}**" in doc
        assert f"{dealing.count_deals(players) // dealing.camp_assignments(rules):,}" in doc


@pytest.mark.parametrize("players", [5, 6])
def test_the_exact_probabilities_add_up(players):
    rules = dealing.rules_for(players)
    marginals = dealing.card_marginals(players)
    for camp in set(rules.seat_camps):
        assert sum(p for (c, _), p in marginals.items() if c == camp) == rules.hand_size
    for card, dist in dealing.holder_distribution(rules).items():
        assert sum(dist.values()) == 1, card
    # §4.1-§4.3 are certainties, §4.4.5/§4.4.6 impossibilities
    assert marginals["killer", "KILLER"] == marginals["killer", "DEMON"] == 1
    assert marginals["wolf", "WEREWOLF"] == marginals["wolf", "SORCERER"] == 1
    assert marginals["killer", "SOULBINDER"] == marginals["wolf", "WITCH_DOCTOR"] == 0
    assert marginals["civilian", "SNIPER"] * (players - 2 - (players == 6)) == 1


def holder_p_values(deals: list[Deal], rules) -> dict[str, float]:
    """Per card kind: the p-value of a Pearson chi-square of the observed holder camps
    against the exact distribution (each deal is one multinomial draw per kind)."""
    exact = dealing.holder_distribution(rules)
    seen: dict[str, Counter] = {card: Counter() for card in exact}
    for deal in deals:
        holders: dict[str, list[str]] = {}
        for camp, hand in zip(deal.camps, deal.hands, strict=True):
            for card in hand:
                holders.setdefault(card, []).append(camp)
        for card, camps in holders.items():
            seen[card][tuple(sorted(camps))] += 1
    out = {}
    for card, dist in exact.items():
        cells = [(seen[card][camps], float(p) * len(deals)) for camps, p in dist.items() if p]
        if len(cells) < 2:
            continue
        assert sum(n for n, _ in cells) == len(deals), f"{card} went somewhere impossible"
        stat = sum((n - e) ** 2 / e for n, e in cells)
        out[card] = chi2_sf(stat, len(cells) - 1)
    return out


@pytest.mark.parametrize("players", [5, 6])
def test_card_holders_follow_the_exact_probabilities(players):
    rules = dealing.rules_for(players)
    rng = random.Random(1000 + players)
    deals = [dealing.deal(players, rng) for _ in range(4000)]
    p_values = holder_p_values(deals, rules)
    assert len(p_values) >= 15
    # 19 kinds at a fixed seed: a fair sampler passes 1e-4 each with room to spare
    assert min(p_values.values()) > 1e-4, p_values


def test_the_same_check_exposes_the_forum_greedy_method():
    rules = dealing.rules_for(5)
    rng = random.Random(9)
    deals = []
    while len(deals) < 4000:
        deal, _ = greedy_deal(rules, rng)
        if deal is not None:
            deals.append(deal)
    assert min(holder_p_values(deals, rules).values()) < 1e-6
