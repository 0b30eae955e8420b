"""A small driver for 猫有n条命 scenarios: named seats, fixed deals, one step at a time.

Seats are 0-based in steps (as the engine wants them) and 1-based in readable texts.
"""

from __future__ import annotations

import copy
import random

from games.engine.base import GM, Refusal, action, end_phase, visible_to
from games.engine.ninelives.cards import camp_of
from games.engine.ninelives.reasons import USE, R
from games.engine.ninelives.rules import MANIFESTO_MIN, NineLives
from games.engine.prose import prose
from games.engine.reasons import SEAT, SEATS

from .deals import FIVE

RULES = NineLives()
# A kill statement of real sentences, at least the 100 characters §3.5.2 asks.
MANIFESTO = prose(random.Random("helpers"), MANIFESTO_MIN)


def deal_with(base: dict, *, taints: dict | None = None, swap: tuple | None = None) -> dict:
    """A copy of `base` with other taints, or with two cards swapped between seats.

    `swap` is ((seat, card), (seat, card)).
    """
    deal = copy.deepcopy(base)
    if taints:
        deal["taints"] = {k: list(v) for k, v in taints.items()}
    if swap:
        (a, ca), (b, cb) = swap
        ha, hb = deal["seats"][a]["cards"], deal["seats"][b]["cards"]
        ha[ha.index(ca)], hb[hb.index(cb)] = cb, ca
    return deal


def seats_named(reasons: list[dict]) -> set[int]:
    """Every seat a chain of reasons names (its seats, lists of seats, card uses' users and
    targets): what a reader of the chain learns about who did what."""
    out: set[int] = set()
    for reason in reasons:
        for name, kind in R.table[reason["code"]].items():
            value = reason["args"][name]
            if kind == SEAT:
                out.add(value)
            elif kind == SEATS:
                out.update(value)
            elif kind == USE:
                out.update(s for s in (value["seat"], value["target"]) if s is not None)
    return out


def default_order(hand: list[str], camp: str) -> list[str]:
    """The hand order with the first card of the seat's camp moved last (the core card)."""
    core = next(c for c in hand if camp_of(c) == camp)
    return [c for c in hand if c != core] + [core]


class Game:
    """One game driven step by step; every accepted step's events are kept in `events`."""

    def __init__(self, deal: dict = FIVE, *, orders: dict | None = None, seed: str = "test",
                 set_orders: bool = True, camp: str | None = "killer"):
        self.deal = deal
        self.players = deal["players"]
        t = RULES.initial_state(seats=self.players, config={"deal": deal}, seed=seed)
        self.state = t.state
        self.events = list(t.events)
        self.steps: list[dict] = []
        if camp is not None:
            for seat, entry in enumerate(deal["seats"]):
                if entry["camp"] == "free_agent":
                    self.do(seat, "choose_camp", camp=camp)
        if set_orders:
            orders = orders or {}
            for seat, entry in enumerate(deal["seats"]):
                camp_now = self.state["private"][seat]["camp"]
                if camp_now == "free_agent":
                    continue
                order = orders.get(seat) or default_order(entry["cards"], camp_now)
                self.do(seat, "loss_order", cards=order)

    # --- stepping ---------------------------------------------------------------------

    def step(self, step: dict):
        result = RULES.step(self.state, step)
        if not isinstance(result, Refusal):
            self.state = result.state
            self.events += result.events
            self.steps.append(step)
        return result

    def do(self, actor, kind: str, **params):
        """Take a step that must be accepted; return its new events."""
        result = self.step(action(actor, kind, **params))
        assert not isinstance(result, Refusal), f"{actor} {kind} {params}: {result}"
        return result.events

    def refused(self, actor, kind: str, **params) -> Refusal:
        """Take a step that must be refused; return the refusal."""
        before = copy.deepcopy(self.state)
        result = RULES.apply(self.state, action(actor, kind, **params))
        assert isinstance(result, Refusal), f"{actor} {kind} {params} was accepted"
        assert self.state == before
        return result

    def use(self, seat: int, card: str, target: int | None = None, **texts):
        """Use a card; attacks get a 100-character manifesto unless a text is given."""
        params = {"card": card}
        if target is not None:
            params["target"] = target
        if card in ("KILLER", "WEREWOLF", "SNIPER") and not texts:
            texts = {"manifesto": MANIFESTO}
        return self.do(seat, "use_card", **params, **texts)

    def end(self):
        """End the current phase (the clock's step); return its events."""
        result = self.step(end_phase())
        return result.events

    def night(self, uses: dict | None = None):
        """Submit {seat: (card, target)} card uses, then end the night."""
        for seat, (card, target) in (uses or {}).items():
            self.use(seat, card, target)
        return self.end()

    def day(self, votes: dict, uses: dict | None = None, proxies: dict | None = None):
        """Submit day card uses, proxy votes and votes ({seat: target}), then end the day."""
        for seat, (card, target) in (uses or {}).items():
            self.use(seat, card, target)
        for seat, target in (proxies or {}).items():
            self.do(seat, "proxy_vote", target=target)
        for seat, target in votes.items():
            self.do(seat, "vote", target=target)
        return self.end()

    def all_vote(self, target_of: dict | None = None, default: int | None = None):
        """Every seat that must vote votes: target_of[seat], else `default`."""
        for seat in sorted(RULES.phase(self.state).awaiting):
            target = (target_of or {}).get(seat, default)
            if target is None or target == "skip":
                continue
            self.do(seat, "vote", target=target)
        return self.end()

    # --- reading ----------------------------------------------------------------------

    @property
    def public(self) -> dict:
        return self.state["public"]

    def priv(self, seat: int) -> dict:
        return self.state["private"][seat]

    def hand(self, seat: int) -> list[str]:
        return list(self.state["private"][seat]["hand"])

    def alive(self, seat: int) -> bool:
        return self.state["public"]["alive"][seat]

    def phase(self) -> tuple[str, int]:
        p = self.state["public"]["phase"]
        return p["name"], p["number"]

    def kinds(self, events=None, viewer=GM) -> list[str]:
        return [e["kind"] for e in (self.events if events is None else events)
                if visible_to(e["visibility"], viewer)]

    def find(self, kind: str, events=None, **data) -> list[dict]:
        """Events of `kind` whose data contains all of `data`."""
        return [e for e in (self.events if events is None else events)
                if e["kind"] == kind and all(e["data"].get(k) == v for k, v in data.items())]

    def losses(self, events) -> list[tuple[int, str]]:
        """(seat, card) for each card lost in `events`, in order."""
        return [(e["data"]["seat"], e["data"]["card"]) for e in events
                if e["kind"] == "own_card_lost"]

    def outcome(self):
        return RULES.outcome(self.state)

    def quiet_day(self):
        """Vote so that nobody is executed: each voter votes for the next living seat, which
        ties everyone; the runoff ties again the same way. Returns the events."""
        events = []
        for _ in range(2):
            name, _ = self.phase()
            if name not in ("day", "runoff"):
                break
            if name == "day":
                targets = [s for s in range(self.players) if self.alive(s)]
            else:
                targets = list(self.public["candidates"])
            voters = sorted(RULES.phase(self.state).awaiting)
            for i, seat in enumerate(voters):
                later = [t for t in targets if t > seat] + [t for t in targets if t <= seat]
                pick = later[0] if later[0] != seat or len(targets) == 1 else later[1]
                if name == "runoff":
                    pick = targets[i % len(targets)]
                self.do(seat, "vote", target=pick)
            events += self.end()
        assert not self.find("vote_closed", events) and not self.find("execution", events), \
            "quiet_day executed somebody"
        return events
