"""The 猫有n条命 dealer: exact counting, uniform sampling, validation and commitment.

Implements seed 002 §2 (seats and camps, the free agent), §3 (the deck), §3.5.1 (taints),
§3.5.4 (no SAINT with 6 players), §4.1-§4.5 (dealing constraints) and what §6.2 (core card)
implies for the deal. `docs/rules/ninelives-dealing.md` explains the method and the figures.

Interpretations (the rule text is silent on these; the doc gives the reasons):

* One outcome is (camp of each seat, hand of each seat, the two killer-tainted and the two
  wolf-tainted neutral cards). Hands are sets of card kinds: §4.4.7 forbids two copies of a kind
  in one hand, and the only kinds with two copies are exactly the six §4.4.7 names, so every
  valid deal splits every pair. Each valid outcome therefore stands for the same number (2^6) of
  deals of physical cards, and "uniform over outcomes" is exactly "shuffle honestly and redeal
  until every rule holds".
* §4.3: the SNIPER goes to one of the seats drawn as civilians, never to the free agent, whose
  camp is unknown when the cards are dealt.
* §4.4.5, §4.4.6, §4.4.10 and the free agent: they limit the free agent's *choice*. The free agent
  may choose camp X only if it holds a card of X (§2, §6.2), holds no card §4 keeps away from X
  (no SOULBINDER for killer, no WITCH_DOCTOR for wolf), and its hand keeps the §4.4.10 limits of a
  member of X (at most two cards of X, at most one of each other camp). The neutral limit (three)
  does not depend on the camp and holds at the deal. A deal is valid only if the free agent has
  at least one camp open to it; `free_agent_camps` lists them.
* §4.1 and §4.2 are met by the seats drawn as killer and wolf; a free agent that chooses killer
  (or wolf) need not hold a KILLER and a DEMON (or a WEREWOLF and a SORCERER).
* §3.5.1 with §4.4.11: the taints are drawn together with the hands, uniformly among the
  placements where the two killer-tainted cards sit in different hands and so do the two
  wolf-tainted cards. A neutral card carries at most one taint.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import random
import secrets
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, cached_property
from pathlib import Path

from .cards import (
    CARDS,
    CIVILIAN_CAMP,
    FREE_AGENT,
    KILLER_CAMP,
    NEUTRAL,
    WOLF_CAMP,
    deck,
    hand_size,
)
from .reasons import R, ref

PLAYER_CAMPS = (KILLER_CAMP, WOLF_CAMP, CIVILIAN_CAMP)
TAINTS = (KILLER_CAMP, WOLF_CAMP)


# --- the rules of the deal, as data -------------------------------------------------------

@dataclass(frozen=True)
class DealRules:
    """Every fact the dealer relies on, as plain data, so that tests can shrink the deck.

    `cards` lists (card, camp of the card, copies) in the order the counter processes them;
    `seat_camps` lists one camp per seat in a fixed canonical order (the lot then permutes it).
    A hand never holds two copies of a kind, so every kind with two or more copies must be in
    `single` (§4.4.7).
    """

    players: int
    hand_size: int
    cards: tuple[tuple[str, str, int], ...]
    seat_camps: tuple[str, ...]
    required: tuple[tuple[str, str, str], ...]    # (rule, seat camp, card): the seat holds it
    forbidden: tuple[tuple[str, str, str], ...]   # (rule, seat camp, card): the seat never does
    apart: tuple[tuple[str, str, str], ...]       # (rule, card, card): never in one hand
    single: tuple[str, ...]                       # kinds held at most once per hand
    own_cap: int = 2                              # §4.4.10
    other_cap: int = 1
    neutral_cap: int = 3
    taints: int = 2                               # cards per taint (§3.5.1)

    def __post_init__(self) -> None:
        total = sum(n for _, _, n in self.cards)
        if total != self.hand_size * len(self.seat_camps):
            raise ValueError(f"{total} cards cannot fill {len(self.seat_camps)} hands of "
                             f"{self.hand_size}")
        for card, _, n in self.cards:
            if n > 1 and card not in self.single:
                raise ValueError(f"{card} has {n} copies but may be held twice")

    @property
    def deck(self) -> Counter:
        return Counter({card: n for card, _, n in self.cards})

    @cached_property
    def _camps(self) -> dict[str, str]:
        return {card: camp for card, camp, _ in self.cards}

    def camp_of(self, card: str) -> str:
        """The camp of a card of this deck (KeyError for another card)."""
        return self._camps[card]

    @property
    def neutral_cards(self) -> tuple[str, ...]:
        return tuple(c for c, camp, _ in self.cards if camp == NEUTRAL)


# The order in which the counter deals the kinds: camp cards first (so the free agent's choice
# is settled before the neutrals), and every kind next to the kinds it must stay apart from (so
# the counter forgets a held card as soon as nothing later can clash with it).
FULL_ORDER = ("KILLER", "DEMON", "DIVINER", "WEREWOLF", "SORCERER", "PROPHET", "SOULBINDER",
              "WITCH_DOCTOR", "SNIPER", "COUNTER_SNIPER", "STRIKE", "VEST", "WOLFSBANE", "CURSE",
              "BLESS", "JAIL", "PARDON", "BOMB", "SAINT")

REQUIRED = (
    ("4.1", KILLER_CAMP, "KILLER"), ("4.1", KILLER_CAMP, "DEMON"),
    ("4.2", WOLF_CAMP, "WEREWOLF"), ("4.2", WOLF_CAMP, "SORCERER"),
)
FORBIDDEN = (
    ("4.3", KILLER_CAMP, "SNIPER"), ("4.3", WOLF_CAMP, "SNIPER"), ("4.3", FREE_AGENT, "SNIPER"),
    ("4.4.5", KILLER_CAMP, "SOULBINDER"),
    ("4.4.6", WOLF_CAMP, "WITCH_DOCTOR"),
)
APART = (
    ("4.4.1", "SNIPER", "COUNTER_SNIPER"),
    ("4.4.2", "SNIPER", "STRIKE"),
    ("4.4.3", "DIVINER", "DEMON"),
    ("4.4.4", "PROPHET", "SORCERER"),
    ("4.4.8", "CURSE", "BLESS"),
    ("4.4.9", "VEST", "WOLFSBANE"),
)
SINGLE = ("KILLER", "WEREWOLF", "DEMON", "SORCERER", "DIVINER", "PROPHET")   # §4.4.7


@cache
def rules_for(players: int) -> DealRules:
    """The real rules for 5 or 6 players (§2, §3, §3.5.4, §4). Raises ValueError otherwise."""
    counts = Counter(deck(players))
    civilians = players - 2 - (1 if players == 6 else 0)
    return DealRules(
        players=players,
        hand_size=hand_size(players),
        cards=tuple((c, CARDS[c][0], counts[c]) for c in FULL_ORDER if counts[c]),
        seat_camps=(KILLER_CAMP, WOLF_CAMP) + (CIVILIAN_CAMP,) * civilians
        + ((FREE_AGENT,) if players == 6 else ()),
        required=REQUIRED, forbidden=FORBIDDEN, apart=APART, single=SINGLE,
    )


def small_rules(seat_camps: tuple[str, ...], hand_size: int, cards: dict[str, int], *,
                own_cap: int = 2, other_cap: int = 1, neutral_cap: int = 3,
                taints: int = 2) -> DealRules:
    """Rules for a reduced deck (tests, examples): the §4 constraints that concern the given
    cards, `cards` mapping card names to copies (in the order the counter should take them)."""
    names = set(cards)
    return DealRules(
        players=len(seat_camps), hand_size=hand_size,
        cards=tuple((c, CARDS[c][0], n) for c, n in cards.items()),
        seat_camps=tuple(seat_camps),
        required=tuple(r for r in REQUIRED if r[2] in names),
        forbidden=tuple(r for r in FORBIDDEN if r[2] in names),
        apart=tuple(r for r in APART if r[1] in names and r[2] in names),
        single=tuple(c for c in SINGLE if c in names),
        own_cap=own_cap, other_cap=other_cap, neutral_cap=neutral_cap, taints=taints,
    )


# --- deals and violations -----------------------------------------------------------------

@dataclass(frozen=True)
class Deal:
    """One deal: the camp and hand of every seat (0-based) and the secret taints.

    The constructor normalises: hands become sorted tuples of card names, taint pairs sorted.
    A Deal may be invalid (a GM can type one in); `validate` says what is wrong with it.
    """

    players: int
    camps: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]
    taints: dict[str, tuple[str, str]]

    def __post_init__(self) -> None:
        object.__setattr__(self, "camps", tuple(self.camps))
        object.__setattr__(self, "hands", tuple(tuple(sorted(h)) for h in self.hands))
        object.__setattr__(self, "taints", {k: tuple(sorted(v)) for k, v in self.taints.items()})

    def to_json(self) -> dict:
        """The JSON-lines shape of `manage.py deal --format jsonl`."""
        return {
            "players": self.players,
            "seats": [{"camp": camp, "cards": list(hand)}
                      for camp, hand in zip(self.camps, self.hands, strict=True)],
            "taints": {k: list(v) for k, v in sorted(self.taints.items())},
        }

    @classmethod
    def from_json(cls, data: dict) -> Deal:
        """Parse the shape of `to_json`. Raises ValueError on a malformed shape (not on a
        deal that breaks the rules: that is `validate`'s job)."""
        try:
            seats = data["seats"]
            taints = data["taints"]
            if not isinstance(seats, list) or not isinstance(taints, dict):
                raise TypeError
            if not all(isinstance(s, dict) and isinstance(s["cards"], list) for s in seats):
                raise TypeError
            return cls(
                players=int(data["players"]),
                camps=tuple(str(s["camp"]) for s in seats),
                hands=tuple(tuple(str(c) for c in s["cards"]) for s in seats),
                taints={str(k): tuple(str(c) for c in v) for k, v in taints.items()},
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a deal: {exc!r}") from exc


@dataclass(frozen=True)
class Violation:
    """A rule a deal breaks: the seed's section, the seat (0-based) if one, and the reason
    (a reason of the rule set's table, reasons.py: the presenters word it)."""

    rule: str
    seat: int | None
    reason: dict


class BrokenDeal(ValueError):
    """A deal the rules refuse (a GM's hand-entered one): `violations`, every rule it breaks.
    Its text names the sections only; the presenters word each violation's reason."""

    def __init__(self, violations: list[Violation]):
        self.violations = list(violations)
        super().__init__("the deal breaks " + ", ".join(
            dict.fromkeys(f"§{v.rule}" for v in self.violations)))

    @property
    def reasons(self) -> list[dict]:
        return [v.reason for v in self.violations]


def _open_camps(counts: dict[str, int], held: set[str], rules: DealRules) -> tuple[str, ...]:
    """The camps a free agent with these camp-card counts and cards may choose (see above)."""
    blocked = {camp for _, camp, card in rules.forbidden if card in held}
    open_ = []
    for camp in PLAYER_CAMPS:
        if camp in blocked or not 1 <= counts.get(camp, 0) <= rules.own_cap:
            continue
        if all(counts.get(other, 0) <= rules.other_cap for other in PLAYER_CAMPS
               if other != camp):
            open_.append(camp)
    return tuple(open_)


def free_agent_camps(hand, players: int = 6, rules: DealRules | None = None) -> tuple[str, ...]:
    """The camps the free agent holding `hand` may choose on the first night (§2, §4, §6.2).

    Precondition: `hand` is a list of known card names.
    """
    rules = rules or rules_for(players)
    counts = Counter(rules.camp_of(c) for c in hand)
    return _open_camps(counts, set(hand), rules)


def expected_camps(rules: DealRules) -> Counter:
    return Counter(rules.seat_camps)


def validate(deal: Deal, rules: DealRules | None = None) -> list[Violation]:
    """Every rule `deal` breaks, in the order of the seed's sections ([] for a valid deal).

    Never raises for a Deal object, however wrong its contents (a GM may type a deal in).
    Steps:
    1. §2: 5 or 6 players, one camp per seat, the right camps, the right hand sizes;
    2. §3 / §3.5.4: the hands together are exactly the deck;
    3. per seat: §4.1-§4.4.10 and §6.2 (with the free agent's reading in the module doc);
    4. §3.5.1 / §4.4.11: the taints.
    """
    if rules is None:
        if deal.players not in (5, 6):
            return [Violation("2", None, R("deal_players", n=deal.players, ref=ref("2")))]
        rules = rules_for(deal.players)
    out: list[Violation] = []
    out += _check_seats(deal, rules)
    out += _check_deck(deal, rules)
    for seat, (camp, hand) in enumerate(zip(deal.camps, deal.hands, strict=False)):
        out += _check_hand(seat, camp, hand, rules)
    out += _check_taints(deal, rules)
    return sorted(out, key=lambda v: (_section_key(v.rule), -1 if v.seat is None else v.seat))


def _section_key(rule: str) -> tuple[int, ...]:
    return tuple(int(p) for p in rule.split(".") if p.isdigit())


def _check_seats(deal: Deal, rules: DealRules) -> list[Violation]:
    out = []
    n = len(rules.seat_camps)
    if deal.players != rules.players or len(deal.camps) != n or len(deal.hands) != n:
        out.append(Violation("2", None, R(
            "deal_seats", n=rules.players, seats=n, camps=len(deal.camps),
            hands=len(deal.hands), ref=ref("2"))))
    if Counter(deal.camps) != expected_camps(rules):
        out.append(Violation("2", None, R("deal_camps", camps=sorted(rules.seat_camps),
                                          ref=ref("2"))))
    for seat, hand in enumerate(deal.hands):
        if len(hand) != rules.hand_size:
            out.append(Violation("2", seat, R("deal_hand_size", seat=seat, n=len(hand),
                                              size=rules.hand_size, ref=ref("2"))))
    return out


def _check_deck(deal: Deal, rules: DealRules) -> list[Violation]:
    dealt = Counter(c for hand in deal.hands for c in hand)
    want = rules.deck
    if dealt == want:
        return []
    out = []
    missing = want - dealt
    extra = dealt - want
    if "SAINT" in extra and rules.players == 6:
        out.append(Violation("3.5.4", None, R("deal_saint", card="SAINT", ref=ref("3.5.4"))))
        extra = extra - Counter({"SAINT": extra["SAINT"]})
    if missing or extra:
        out.append(Violation("3", None, R("deal_not_the_deck", missing=sorted(missing.elements()),
                                          extra=sorted(extra.elements()), ref=ref("3"))))
    return out


def _check_hand(seat: int, camp: str, hand: tuple[str, ...], rules: DealRules) -> list[Violation]:
    out = []
    known = [c for c in hand if c in rules.deck]
    held = Counter(known)
    for rule, seat_camp, card in rules.required:
        if seat_camp == camp and not held[card]:
            out.append(Violation(rule, seat, R("deal_must_hold", seat=seat, camp=camp,
                                               card=card, ref=ref(rule))))
    for rule, seat_camp, card in rules.forbidden:
        if seat_camp == camp and held[card]:
            out.append(Violation(rule, seat, R("deal_may_not_hold", seat=seat, camp=camp,
                                               card=card, ref=ref(rule))))
    for rule, a, b in rules.apart:
        if held[a] and held[b]:
            out.append(Violation(rule, seat, R("deal_apart", seat=seat, card=a, card2=b,
                                               ref=ref(rule))))
    for card in rules.single:
        if held[card] > 1:
            out.append(Violation("4.4.7", seat, R("deal_copies", seat=seat, n=held[card],
                                                  card=card, ref=ref("4.4.7"))))
    by_camp = Counter(rules.camp_of(c) for c in known)
    if by_camp[NEUTRAL] > rules.neutral_cap:
        out.append(Violation("4.4.10", seat, R("deal_neutral_cap", seat=seat,
                                               n=by_camp[NEUTRAL], cap=rules.neutral_cap,
                                               ref=ref("4.4.10"))))
    if camp in PLAYER_CAMPS:
        for card_camp in PLAYER_CAMPS:
            cap = rules.own_cap if card_camp == camp else rules.other_cap
            if by_camp[card_camp] > cap:
                out.append(Violation("4.4.10", seat, R(
                    "deal_camp_cap", seat=seat, camp=camp, n=by_camp[card_camp],
                    card_camp=card_camp, cap=cap, ref=ref("4.4.10"))))
        if not by_camp[camp]:
            out.append(Violation("6.2", seat, R("deal_no_core", seat=seat, camp=camp,
                                                ref=ref("6.2"))))
    elif camp == FREE_AGENT and not _open_camps(by_camp, set(known), rules):
        out.append(Violation("6.2", seat, R("deal_free_agent_closed", seat=seat,
                                            ref=ref("4.4.5", "4.4.6"), ref2=ref("4.4.10"),
                                            ref3=ref("2", "6.2"))))
    return out


def _check_taints(deal: Deal, rules: DealRules) -> list[Violation]:
    out = []
    if set(deal.taints) != set(TAINTS):
        return [Violation("3.5.1", None, R("deal_taints_named", ref=ref("3.5.1")))]
    neutral = set(rules.neutral_cards)
    holder = {}
    for seat, hand in enumerate(deal.hands):
        for card in hand:
            holder.setdefault(card, seat)
    chosen = [c for kind in TAINTS for c in deal.taints[kind]]
    well_formed = True
    for kind in TAINTS:
        cards = deal.taints[kind]
        if len(cards) != rules.taints or len(set(cards)) != len(cards):
            out.append(Violation("3.5.1", None, R("deal_taint_count", n=rules.taints, camp=kind,
                                                  ref=ref("3.5.1"))))
            well_formed = False
            continue
        if not all(c in neutral for c in cards):
            out.append(Violation("3.5.1", None, R("deal_taint_not_neutral", cards=list(cards),
                                                  ref=ref("3.5.1"))))
            well_formed = False
            continue
        seats = [holder.get(c) for c in cards]
        for seat in sorted({s for s in seats if s is not None and seats.count(s) > 1}):
            out.append(Violation("4.4.11", seat, R("deal_taints_apart", seat=seat, camp=kind,
                                                   ref=ref("4.4.11"))))
    if well_formed and len(set(chosen)) != len(chosen):
        out.append(Violation("3.5.1", None, R("deal_one_taint", ref=ref("3.5.1"))))
    return out


# --- counting and uniform sampling --------------------------------------------------------
#
# A dynamic programme over card kinds. Seats are taken in the canonical order of
# `rules.seat_camps`; the state after some kinds is one signature per seat:
#     (cards held, killer cards, wolf cards, civilian cards, neutral cards, flags)
# where `flags` marks the held kinds that a later kind may still clash with. Counts and flags
# that no later kind needs are reset to 0 ("forgotten"), so that many partial deals share one
# state. Seats of one camp are interchangeable, so states are kept canonical: the signatures of
# such seats sorted. `DealCounter.table[i][state]` lists the ways to deal kind i from `state`
# with, for each, the number of ways to finish the deal (hands and taints) afterwards.

SIZE, NEUTRAL_COUNT, FLAGS = 0, 4, 5
CAMP_SLOT = {KILLER_CAMP: 1, WOLF_CAMP: 2, CIVILIAN_CAMP: 3, NEUTRAL: 4}


class DealCounter:
    """Exact counter and sampler for one `DealRules` (build once and reuse: `_counter`).

    `counts`, if given, is the shipped table of completions (`counts_file`): one dict per
    kind, from `state_key(state)` to the number of ways to finish the deal from `state`, for
    every reachable state from which the deal can still end valid. With it, `completions`
    is a look-up instead of the whole dynamic programme below the state.
    """

    def __init__(self, rules: DealRules, counts: list[dict[str, int]] | None = None):
        self.rules = rules
        self.counts = counts
        self.kinds = [c for c, _, _ in rules.cards]
        self.kind_camp = [camp for _, camp, _ in rules.cards]
        self.copies = [n for _, _, n in rules.cards]
        self.n_kinds = len(self.kinds)
        self.seats = rules.seat_camps
        self.neutral = frozenset(c for c, camp, _ in rules.cards if camp == NEUTRAL)
        bit = {c: 1 << i for i, c in enumerate(self.kinds)}
        # kinds that clash with kind i (§4.4.1-§4.4.4, §4.4.8, §4.4.9)
        self.clash = [0] * self.n_kinds
        for _, a, b in rules.apart:
            if a in bit and b in bit:
                self.clash[self.kinds.index(a)] |= bit[b]
                self.clash[self.kinds.index(b)] |= bit[a]
        # keep[i + 1]: once kinds 0..i are dealt, the flags a later kind still clashes with
        self.keep = []
        for i in range(-1, self.n_kinds):
            later = 0
            for j in range(i + 1, self.n_kinds):
                later |= self.clash[j]
            self.keep.append(later & ((1 << (i + 1)) - 1))
        # the free agent's choice also needs the cards kept away from a camp (§4.4.5, §4.4.6)
        self.choice_flags = 0
        for _, camp, card in rules.forbidden:
            if camp in PLAYER_CAMPS and card in bit:
                self.choice_flags |= bit[card]
        self.last_of = {camp: max((i for i, c in enumerate(self.kind_camp) if c == camp),
                                  default=-1) for camp in PLAYER_CAMPS}
        self.camp_end = max(self.last_of.values())
        self.allowed = [[not any(camp == seat and card == k for _, camp, card in rules.forbidden)
                         for seat in self.seats] for k in self.kinds]
        self.required = [[any(camp == seat and card == k for _, camp, card in rules.required)
                          for seat in self.seats] for k in self.kinds]
        positions: dict[str, list[int]] = {}
        for j, camp in enumerate(self.seats):
            positions.setdefault(camp, []).append(j)
        self.groups = [tuple(g) for g in positions.values() if len(g) > 1]
        self.table: list[dict] = [{} for _ in range(self.n_kinds)]
        start = tuple(self._settle(-1, j, (0, 0, 0, 0, 0, 0)) for j in range(len(self.seats)))
        self.start = None if None in start else self._canon(start)[0]

    # -- one seat --
    def _cap(self, seat_camp: str, card_camp: str) -> int:
        if card_camp == NEUTRAL:
            return self.rules.neutral_cap
        if seat_camp == card_camp or seat_camp == FREE_AGENT:
            return self.rules.own_cap    # the free agent's camp limits wait for its choice
        return self.rules.other_cap

    def _give(self, i: int, j: int, sig: tuple) -> tuple | None:
        """Seat j's signature after it is dealt kind i, or None if a rule forbids it."""
        if not self.allowed[i][j] or sig[SIZE] >= self.rules.hand_size:
            return None
        if sig[FLAGS] & self.clash[i]:
            return None
        slot = CAMP_SLOT[self.kind_camp[i]]
        if sig[slot] + 1 > self._cap(self.seats[j], self.kind_camp[i]):
            return None
        new = list(sig)
        new[SIZE] += 1
        new[slot] += 1
        new[FLAGS] |= 1 << i
        return tuple(new)

    def _settle(self, i: int, j: int, sig: tuple) -> tuple | None:
        """Seat j's signature once kinds 0..i are dealt: check what has just become decidable
        (§6.2 core card, the free agent's open camps, enough kinds left to fill the hand) and
        forget what no later kind needs. None if the seat can no longer end valid.

        Precondition: called exactly once per kind for each seat, in order (the checks fire
        at the kind after which they become decidable)."""
        if self.rules.hand_size - sig[SIZE] > self.n_kinds - 1 - i:
            return None
        new = list(sig)
        seat_camp = self.seats[j]
        if seat_camp == FREE_AGENT:
            if i < self.camp_end:
                new[FLAGS] &= self.keep[i + 1] | self.choice_flags
                return tuple(new)
            if i == self.camp_end:
                counts = {camp: sig[CAMP_SLOT[camp]] for camp in PLAYER_CAMPS}
                held = {k for b, k in enumerate(self.kinds) if sig[FLAGS] >> b & 1}
                if not _open_camps(counts, held, self.rules):
                    return None
                for camp in PLAYER_CAMPS:
                    new[CAMP_SLOT[camp]] = 0
        else:
            for camp in PLAYER_CAMPS:
                if self.last_of[camp] == i:
                    if camp == seat_camp and sig[CAMP_SLOT[camp]] == 0:
                        return None          # no core card possible (§6.2)
                    new[CAMP_SLOT[camp]] = 0
        new[FLAGS] &= self.keep[i + 1]
        return tuple(new)

    # -- the whole table --
    def _canon(self, state: tuple) -> tuple[tuple, tuple[int, ...]]:
        """`state` with the signatures of interchangeable seats sorted, and for each position
        the position its signature came from."""
        order = list(range(len(state)))
        for group in self.groups:
            for pos, src in zip(group, sorted(group, key=state.__getitem__), strict=True):
                order[pos] = src
        return tuple(state[j] for j in order), tuple(order)

    def _moves(self, i: int, state: tuple) -> list[tuple[tuple[int, ...], tuple]]:
        """Every way to deal the copies of kind i from `state`: (positions, next state)."""
        n = len(self.seats)
        given = [self._give(i, j, state[j]) for j in range(n)]
        given = [None if g is None else self._settle(i, j, g) for j, g in enumerate(given)]
        kept = [None if self.required[i][j] else self._settle(i, j, state[j]) for j in range(n)]
        out = []
        for chosen in itertools.combinations(range(n), self.copies[i]):
            new = tuple(given[j] if j in chosen else kept[j] for j in range(n))
            if None not in new:
                out.append((chosen, new))
        return out

    def entry(self, i: int, state: tuple) -> tuple[list, list[int]]:
        """The ways to deal kind i from canonical `state` that can still end valid, as
        (positions, next canonical state, reordering), and the running totals of their
        completions (the last total counts all completions of `state`)."""
        found = self.table[i].get(state)
        if found is None:
            moves, cumulative, running = [], [], 0
            for chosen, new in self._moves(i, state):
                new, order = self._canon(new)
                ways = self.completions(i + 1, new)
                if ways:
                    running += ways
                    moves.append((chosen, new, order))
                    cumulative.append(running)
            found = (moves, cumulative)
            self.table[i][state] = found
        return found

    def completions(self, i: int, state: tuple) -> int:
        """Ways to deal kinds i.. and then the taints from canonical `state`."""
        if i == self.n_kinds:
            return _taint_ways(tuple(sorted(sig[NEUTRAL_COUNT] for sig in state)),
                               self.rules.taints)
        if self.counts is not None:
            return self.counts[i].get(state_key(state), 0)
        cumulative = self.entry(i, state)[1]
        return cumulative[-1] if cumulative else 0

    def total(self) -> int:
        """Valid (hands, taints) for the canonical camp order (the same for every order)."""
        return 0 if self.start is None else self.completions(0, self.start)

    def sample_hands(self, rng: random.Random) -> list[list[str]]:
        """Hands for the canonical seats, drawn with probability proportional to their number
        of valid taint placements: the hand part of a uniform valid outcome.

        Steps: 1. start from the empty table; 2. for each kind, choose where its copies go
        with probability proportional to the number of completions (exact integers);
        3. follow the reordering of interchangeable seats so each card reaches the seat it
        was drawn for; 4. return the hands.
        """
        if not self.total():
            raise ValueError("no valid deal exists under these rules")
        hands: list[list[str]] = [[] for _ in self.seats]
        where = list(range(len(self.seats)))   # position -> seat whose signature is there
        state = self.start
        for i, kind in enumerate(self.kinds):
            moves, cumulative = self.entry(i, state)
            chosen, state, order = moves[bisect_right(cumulative, rng.randrange(cumulative[-1]))]
            for pos in chosen:
                hands[where[pos]].append(kind)
            where = [where[src] for src in order]
        return hands

    def sample_taints(self, hands: list[list[str]], rng: random.Random) -> dict:
        """Uniform taints for these hands (§3.5.1, §4.4.11).

        Steps: 1. choose the seats of the killer-tainted cards with probability proportional
        to (ways to pick one neutral card in each) x (ways to place the wolf taints after);
        2. pick one neutral card uniformly in each; 3. choose the seats of the wolf-tainted
        cards proportionally to their untainted neutral cards; 4. pick one in each.
        """
        t = self.rules.taints
        neutral = [[c for c in hand if c in self.neutral] for hand in hands]
        seats, cumulative = _taint_seats(tuple(map(len, neutral)), t, True)
        killer = [rng.choice(neutral[s])
                  for s in seats[bisect_right(cumulative, rng.randrange(cumulative[-1]))]]
        rest = [[c for c in cards if c not in killer] for cards in neutral]
        seats, cumulative = _taint_seats(tuple(map(len, rest)), t, False)
        wolf = [rng.choice(rest[s])
                for s in seats[bisect_right(cumulative, rng.randrange(cumulative[-1]))]]
        return {KILLER_CAMP: tuple(killer), WOLF_CAMP: tuple(wolf)}

    def holder_distribution(self) -> dict[str, dict[tuple[str, ...], Fraction]]:
        """Exact P(the copies of kind Y go to seats of camps (X1, X2...)), keyed Y then the
        sorted camps, under the uniform valid outcome.

        Steps: 1. walk the canonical states kind by kind, counting the partial deals that
        reach each (forward counts); 2. a move is made by (forward count) x (completions)
        valid outcomes; 3. add that to the move's camps; 4. divide by the total.
        """
        total = self.total()
        if not total:
            raise ValueError("no valid deal exists under these rules")
        out: dict[str, dict[tuple[str, ...], Fraction]] = {}
        level = {self.start: 1}
        for i, kind in enumerate(self.kinds):
            counts: Counter = Counter()
            following: Counter = Counter()
            for state, ways in level.items():
                moves, cumulative = self.entry(i, state)
                before = 0
                for (chosen, new, _), running in zip(moves, cumulative, strict=True):
                    counts[tuple(sorted(self.seats[p] for p in chosen))] += ways * (running
                                                                                   - before)
                    before = running
                    following[new] += ways
            out[kind] = {camps: Fraction(n, total) for camps, n in counts.items()}
            level = following
        return out


@cache
def _taint_ways(neutrals: tuple[int, ...], t: int) -> int:
    """Ways to place the killer taints, then the wolf taints, each on t neutral cards in t
    different hands, no card tainted twice (§3.5.1, §4.4.11); hand s has neutrals[s]."""
    total = 0
    for seats in itertools.combinations(range(len(neutrals)), t):
        left = [n - (s in seats) for s, n in enumerate(neutrals)]
        total += math.prod(neutrals[s] for s in seats) * _elementary(left, t)
    return total


@cache
def _taint_seats(neutrals: tuple[int, ...], t: int, first: bool
                 ) -> tuple[list[tuple[int, ...]], list[int]]:
    """The sets of t hands that can hold the cards of one taint, and the running totals of
    their weights: (ways to pick one neutral card in each) x (if `first`: ways to place the
    second taint afterwards)."""
    options, cumulative, running = [], [], 0
    for seats in itertools.combinations(range(len(neutrals)), t):
        ways = math.prod(neutrals[s] for s in seats)
        if first:
            ways *= _elementary([n - (s in seats) for s, n in enumerate(neutrals)], t)
        if ways:
            running += ways
            options.append(seats)
            cumulative.append(running)
    return options, cumulative


def _elementary(values: list[int], t: int) -> int:
    """The elementary symmetric polynomial e_t(values): ways to pick one item from each of t
    different hands, hand s offering values[s] items."""
    e = [1] + [0] * t
    for x in values:
        for k in range(t, 0, -1):
            e[k] += e[k - 1] * x
    return e[t]


@cache
def _counter(rules: DealRules) -> DealCounter:
    """The counter for `rules`: for the real rules of 5 and 6 players it starts from the
    shipped table of completions (`counts_file`), so that the first deal of a process does
    not wait for the whole programme; for any other rules (the tests' small decks) it builds
    what it needs."""
    return DealCounter(rules, shipped_counts(rules))


# --- the shipped table of completions ----------------------------------------------------
#
# `deal_counts_5.json` and `deal_counts_6.json` (next to this module) hold, for 5 and 6
# players, the completions of every reachable state the programme finds, with a fingerprint
# of the rules they were built for. `python manage.py deal --write-tables` regenerates them;
# tests/engine/ninelives/test_deal_counts.py checks that regenerating gives the same files
# byte for byte, and the exact counts are those of docs/rules/ninelives-dealing.md. A file
# built for other rules than the real ones does not run: `shipped_counts` raises, there is
# no quiet rebuild.

SHIPPED_PLAYERS = (5, 6)


def counts_file(players: int) -> Path:
    return Path(__file__).with_name(f"deal_counts_{players}.json")


def state_key(state: tuple) -> str:
    """A canonical state as a short text: per seat, its signature packed into one number
    (4 bits for the cards held, 3 for each camp's count, then the flags), in hexadecimal;
    seats joined by commas."""
    out = []
    for size, killer, wolf, civilian, neutral, flags in state:
        if size > 15 or max(killer, wolf, civilian, neutral) > 7:
            raise ValueError(f"a signature too large to pack: {size, killer, wolf, civilian}")
        packed = ((((flags << 3 | neutral) << 3 | civilian) << 3 | wolf) << 3 | killer) << 4
        out.append(f"{packed | size:x}")
    return ",".join(out)


def rules_fingerprint(rules: DealRules) -> str:
    """SHA-256 of the rules' fields: what a shipped table was built for."""
    return hashlib.sha256(repr(rules).encode("utf-8")).hexdigest()


def build_counts(rules: DealRules) -> list[dict[str, int]]:
    """The table of completions for `rules`, by the whole dynamic programme (slow: seconds
    for 6 players)."""
    counter = DealCounter(rules)
    counter.total()
    return [{state_key(state): cumulative[-1]
             for state, (_, cumulative) in level.items() if cumulative}
            for level in counter.table]


def counts_file_text(players: int) -> str:
    """The text of `counts_file(players)`, built from scratch (one line per state, sorted)."""
    rules = rules_for(players)
    data = {"format": 1, "players": players, "rules": rules_fingerprint(rules),
            "counts": build_counts(rules)}
    return json.dumps(data, sort_keys=True, indent=0) + "\n"


@cache
def read_shipped(players: int) -> dict:
    return json.loads(counts_file(players).read_text(encoding="utf-8"))


def shipped_counts(rules: DealRules) -> list[dict[str, int]] | None:
    """The shipped table for the real rules of 5 or 6 players; None for other rules.

    Raises RuntimeError if the file was built for other rules than the real ones (a rule
    changed and `manage.py deal --write-tables` was not run).
    """
    if rules.players not in SHIPPED_PLAYERS or rules != rules_for(rules.players):
        return None
    shipped = read_shipped(rules.players)
    if shipped["rules"] != rules_fingerprint(rules):
        raise RuntimeError(f"{counts_file(rules.players).name} was built for other rules than "
                           f"the real ones; run `manage.py deal --write-tables`")
    return shipped["counts"]


def camp_assignments(rules: DealRules) -> int:
    """Ways to assign the camps to the seats by lot (seats of one camp are alike)."""
    ways = math.factorial(len(rules.seat_camps))
    for n in Counter(rules.seat_camps).values():
        ways //= math.factorial(n)
    return ways


def count(rules: DealRules) -> int:
    """The exact number of valid outcomes (camps, hands, taints) under `rules`."""
    return camp_assignments(rules) * _counter(rules).total()


def count_deals(players: int) -> int:
    """The exact number of valid 猫有n条命 deals for 5 or 6 players."""
    return count(rules_for(players))


def sample(rules: DealRules, rng: random.Random) -> Deal:
    """A deal drawn uniformly among all valid outcomes under `rules`.

    Steps: 1. draw the camps by lot (a shuffle of the canonical camp list); 2. draw the hands
    of the canonical seats by the counts (`DealCounter.sample_hands`); 3. give each seat the
    hand drawn for the next canonical seat of its camp (seats of one camp are
    interchangeable, so any fixed matching keeps the draw uniform); 4. draw the taints.
    """
    counter = _counter(rules)
    camps = list(rules.seat_camps)
    rng.shuffle(camps)
    pools: dict[str, list[list[str]]] = {}
    for camp, hand in zip(rules.seat_camps, counter.sample_hands(rng), strict=True):
        pools.setdefault(camp, []).append(hand)
    hands = [pools[camp].pop() for camp in camps]
    taints = counter.sample_taints(hands, rng)
    return Deal(players=rules.players, camps=tuple(camps), hands=tuple(map(tuple, hands)),
                taints=taints)


def deal(players: int, rng: random.Random) -> Deal:
    """A 猫有n条命 deal for 5 or 6 players, uniform over all valid deals (§2, §3.5, §4).

    Precondition: `rng` is the only source of randomness (pass `draw_random(state, "deal")`
    so the deal replays). Raises ValueError for another number of players.
    """
    return sample(rules_for(players), rng)


def holder_distribution(rules: DealRules) -> dict[str, dict[tuple[str, ...], Fraction]]:
    """Exact P(card Y's copies go to seats of camps (X1, ...)): see `DealCounter`."""
    return _counter(rules).holder_distribution()


def card_marginals(players: int, rules: DealRules | None = None
                   ) -> dict[tuple[str, str], Fraction]:
    """Exact P(a given seat of camp X is dealt card Y), keyed (X, Y)."""
    rules = rules or rules_for(players)
    seats_of = Counter(rules.seat_camps)
    out = {(camp, card): Fraction(0) for camp in seats_of for card, _, _ in rules.cards}
    for card, dist in holder_distribution(rules).items():
        for camps, p in dist.items():
            for camp in camps:
                out[camp, card] += p / seats_of[camp]
    return out


# --- canonical form and commitment (§5.2: the deal is announced as a commitment) ----------

def canonical(deal: Deal) -> str:
    """The canonical JSON text of a deal: keys sorted, no spaces, ASCII only."""
    return json.dumps(deal.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def new_salt() -> str:
    """A fresh secret salt: 32 hex digits from the operating system's generator."""
    return secrets.token_hex(16)


def commitment(deal: Deal, salt: str) -> str:
    """SHA-256 (hex) of the canonical text followed directly by the salt. Verify with
    `printf '%s%s' "$DEAL" "$SALT" | sha256sum`."""
    return hashlib.sha256((canonical(deal) + salt).encode("utf-8")).hexdigest()


def verify(deal_text: str, salt: str, digest: str) -> bool:
    """Whether a revealed canonical deal text and salt match a published commitment."""
    return hashlib.sha256((deal_text + salt).encode("utf-8")).hexdigest() == digest.lower()
