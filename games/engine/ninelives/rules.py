"""猫有n条命 ("Nine Lives", seed 002): the pure rules engine.

Sections of the seed implemented (its own numbering): §2 seats, camps and the free agent;
§3 the 19 card kinds, their powers and limits, §3.5 taints, manifestos, one card per round,
the SAINT substitute, changing targets; §4 through the dealer (`dealing.py`); §5.3-§5.8 the
phase cycle and losing cards; §6 the loss order, the core card and the two reorder windows;
§8 votes, runoff and proxy votes; §9.1.5 no vote means out; §10 victory and draws; §11.3 the
GM may abort. Sign-up and check-in (§5.1, §5.2) and substitutes (§9.3) belong to the service.

Modules: this one holds the phase machine, the steps players and the GM may take, the legal
actions and the views; `resolution.py` resolves the end of a night, `votes.py` the end of a
day or a runoff, `common.py` what they share (losses, deaths, windows, victory).

Interpretations where the seed is silent (numbered as in docs/rules/ninelives.md, which
lists all of them; those of the resolutions are in the docstrings of their modules):
    I1  §5.3    The loss order may be revised any number of times during night 1; at the end
                of night 1 missing orders are drawn at random (the core card among the
                seat's own-camp cards) and the core card is fixed from then on (§6.2).
    I2  §2      The free agent's camp choice is final once sent; a loss order needs a camp
                first. The GM may set a default during night 1 (`choose_camp_for`); with
                neither, the camp is drawn at random among the allowed camps.
    I3  §3.5.5  A card use may be changed or withdrawn until its phase ends (the service
                stops accepting changes at the cut-off); day cards too, until the day ends.
    I4  §3.5.3  A card counts as used for the one-card rule when its phase ends with it
                submitted, even if a JAIL or a BOMB voided it. A voided card is not spent.
    I5  §3.5.2  Characters are Unicode code points (whitespace included), never bytes. A
                story has no minimum. A rejected manifesto voids the attack unless a new text
                comes before the night ends.
    I6  targets Attacks and protections may target any living seat, oneself included;
                investigations, JAIL, STRIKE and BOMB another living seat; CURSE and BLESS
                any living seat; VEST, WOLFSBANE, COUNTER_SNIPER, SAINT and PARDON none (the
                PARDON acts on yesterday's executed seat, whoever it is).
    I7  §3.4.4  PARDON is usable only while an execution is pending and pardonable; it is a
                dead card once every seat of the game has been pardoned.
    I8  §8      Votes may go to any living seat, oneself included; a runoff vote to one of
                the tied seats. A proxy vote may be changed until the count; it is void if
                the seat votes in person; a day's proxy does not carry into its runoff.
                CURSE and BLESS cannot be used in a runoff (their
                effect does not reach it, §8.2); STRIKE and BOMB can.
    I9  §8.1    An execution that can still be pardoned is named (with the lost camp) only at
                the end of the next night; the executed seat keeps its card until then.
    I10 §9.1.5  A seat that owed a vote and sent neither a vote nor a proxy is out at the
                count (it counts as dead, its camp is announced). Seats saved that night and
                seats whose votes a BOMB voids owe no runoff vote.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from functools import cache

from ..base import (
    GM,
    Choice,
    Outcome,
    PhaseInfo,
    Refusal,
    RuleSet,
    State,
    TextField,
    Transition,
    Viewer,
    copy_plain,
    draw_random,
    emit,
    fresh_state,
    gm_only,
    make_event,
    public,
)
from ..base import seats as only
from . import dealing, kinds
from .cards import (
    ATTACK_CARDS,
    CARDS,
    DAY_CARDS,
    FREE_AGENT,
    camp_of,
    hand_size,
)
from .common import (
    DAY,
    NIGHT,
    OVER,
    RUNOFF,
    alive_seats,
    camp_options,
    check_victory,
    foul_out,
)
from .reasons import R, phase_of, ref
from .resolution import end_night
from .votes import end_vote

MANIFESTO_MIN = 100          # §3.5.2: at least 100 characters
TEXT_MAX = 20_000
INVESTIGATIONS = ("DEMON", "SORCERER", "DIVINER", "PROPHET")
PROTECTIONS = ("SOULBINDER", "WITCH_DOCTOR")
NO_TARGET = ("VEST", "WOLFSBANE", "COUNTER_SNIPER", "SAINT", "PARDON")
NOT_SELF = INVESTIGATIONS + ("JAIL", "STRIKE", "BOMB")
RUNOFF_CARDS = ("STRIKE", "BOMB")   # I8: CURSE and BLESS do not reach a runoff
MANIFESTO_FIELDS = (TextField("manifesto", min_chars=MANIFESTO_MIN, max_chars=TEXT_MAX),)
STORY_FIELDS = (TextField("story", min_chars=1, max_chars=TEXT_MAX),)

SEAT_KINDS = {
    "use_card": {"card", "target", "manifesto", "story"},
    "withdraw": set(),
    "pass": set(),
    "loss_order": {"cards"},
    "choose_camp": {"camp"},
    "vote": {"target"},
    "proxy_vote": {"target"},
}
GM_KINDS = {
    "reject_manifesto": {"seat", "reason"},
    "choose_camp_for": {"seat", "camp"},
    "foul_out": {"seat", "reason"},
    "abort": {"reason"},
}


def fast_copy(data):
    """A deep copy of plain JSON data (much faster than copy.deepcopy for it), with tuples
    made lists as JSON would store them (for views)."""
    return json.loads(json.dumps(data))


def label(seat: int) -> str:
    """A seat in a Choice's own label (the forms use the presenter's): numbered from 1."""
    return f"seat {seat + 1}"


@cache
def use_label(card: str, target: int | None) -> str:
    """'Use JAIL on seat 3': a card use as a Choice label."""
    return f"Use {card}" + ("" if target is None else f" on {label(target)}")


@cache
def attack_labels(card: str, target: int) -> tuple[str, str]:
    """The labels of an attack with a manifesto and with a story of one's own."""
    what = use_label(card, target)
    return f"{what}, with a manifesto", f"{what}, with a story of your own"


@cache
def vote_label(target: int) -> str:
    return f"Vote for {label(target)}"


@cache
def proxy_vote_label(target: int) -> str:
    return f"Proxy vote for {label(target)}"


def is_seat_number(value, players: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < players


# --- setup ---------------------------------------------------------------------------------

def parse_deal(data, players: int) -> dict:
    """Check a deal in the `Deal.to_json()` shape and return it as plain JSON data.

    Raises dealing.BrokenDeal (a ValueError) naming every rule the deal breaks: a shape that
    is no deal for `players` players, else each §2-§6.2 rule of the dealer's `validate`, so a
    GM's hand-entered deal is held to the same rules as a drawn one. The hands keep the
    order the GM gave.
    """
    try:
        deal = dealing.Deal.from_json(data)
    except ValueError:
        deal = None
    if deal is None or deal.players != players:
        raise dealing.BrokenDeal([dealing.Violation(
            "2", None, R("deal_malformed", n=players, ref=ref("2")))])
    violations = dealing.validate(deal, dealing.rules_for(players))
    if violations:
        raise dealing.BrokenDeal(violations)
    return {"players": players,
            "seats": [{"camp": str(e["camp"]), "cards": [str(c) for c in e["cards"]]}
                      for e in data["seats"]],
            "taints": {k: [str(c) for c in data["taints"][k]] for k in ("killer", "wolf")}}


def random_deal(state: State, players: int) -> dict:
    """A uniform valid deal from the dealer, drawn through the recorded generator."""
    return dealing.deal(players, draw_random(state, "deal")).to_json()


def open_first_night(state: State, deal: dict) -> None:
    """Setup step 1: the deal goes into the secret part with the game's bookkeeping, and the
    public part opens night 1 with every seat alive (§5.4)."""
    seats = state["config"]["players"]
    state["secret"].update({
        "deal": deal,
        "taints": {k: list(v) for k, v in deal["taints"].items()},
        "execution": None,          # a pardonable execution awaiting the night's end
        "protect_history": {},      # card -> last effective protection (§3.3.4, §3.3.5)
        "count_effects": [],        # CURSE/BLESS waiting for the day's count (§3.4.8-9)
        "saint": None,              # {"seat", "day"}: a SAINT armed for that day
        "free_agent_default": None,  # the GM's default camp for the free agent (§2)
    })
    state["public"].update({
        "phase": {"name": NIGHT, "number": 1},
        "phase_alive": list(range(seats)),
        "alive": [True] * seats,
        "lost": [[] for _ in range(seats)],
        "total_lost": 0,
        "windows_opened": 0,
        "reorder": None,
        "votes": {},
        "candidates": [],
        "no_vote": [],
        "pending_execution": None,
        "pardoned": [],
        "outcome": None,
    })


def deal_hands(state: State, events: list, deal: dict) -> None:
    """Setup step 2: each seat gets its camp and hand, told to it alone (§2, §4)."""
    seats = state["config"]["players"]
    for i, entry in enumerate(deal["seats"]):
        state["private"][i] = {
            "seat": i,
            "camp": entry["camp"],
            "dealt_camp": entry["camp"],
            "hand": list(entry["cards"]),
            "loss_order": None,
            "core_card": None,
            "dead_cards": [],
            "uses": {},            # round -> ["night", "day"]: §3.5.3 bookkeeping
            "action": None,        # this phase's card use, or {"pass": True}
            "proxy": None,         # this vote's proxy target (§8.3)
            "last_jail": None,     # {"night", "target"}: §3.4.3
        }
        emit(state, events, make_event(
            "hand_dealt", only(i), because=[
                R("dealt", seat=i, n=hand_size(seats), ref=ref("2", "4"))],
            seat=i, camp=entry["camp"], cards=list(entry["cards"])))


# --- the rule set ----------------------------------------------------------------------------

class NineLives(RuleSet):
    name = "ninelives"
    min_seats = 5
    max_seats = 6
    schema = kinds.SCHEMA

    def default_config(self) -> dict:
        # The cut-off is enforced by the service (the engine knows no clock): §3.5.5.
        return {"change_cutoff_minutes": 10}

    # 1. setup ----------------------------------------------------------------------------

    def initial_state(self, *, seats: int, config: dict | None = None,
                      seed: str) -> Transition:
        """A new game at night 1 (§5.4). `config["deal"]` fixes the deal; else it is drawn.

        1. The deal leaves the config (which every viewer reads) for the secret part.
        2. Each seat gets its camp and hand privately; the taints stay with the GM.
        """
        if seats not in (5, 6):
            raise ValueError("猫有n条命 is played by 5 or 6 players (§2)")
        config = dict(config or {})
        fixed = config.pop("deal", None)
        cfg = {**self.default_config(), **config, "players": seats,
               "deal_source": "fixed" if fixed is not None else "random"}
        state = fresh_state(self.name, seats=seats, config=cfg, seed=seed)
        events: list = []
        deal = parse_deal(fixed, seats) if fixed is not None else random_deal(state, seats)
        if fixed is None:
            emit(state, events, make_event("chance", gm_only(), because=[
                R("deal_drawn", ref=ref("4"))], purpose="deal", deal=deal))
        open_first_night(state, deal)
        deal_hands(state, events, deal)
        emit(state, events, make_event(
            "phase_started", public(), because=[
                R("game_opens", ref=ref("5.4"), ref2=ref("5.3", "6.1"), ref3=ref("2"))],
            phase={"name": NIGHT, "number": 1}))
        return Transition(state, events)

    # 2. what may be done now --------------------------------------------------------------

    def phase(self, state: State) -> PhaseInfo:
        pub = state["public"]
        name, number = pub["phase"]["name"], pub["phase"]["number"]
        if pub["outcome"] is not None:
            return PhaseInfo(OVER, number, frozenset(), finished=True)
        awaiting = set()
        for seat in alive_seats(state):
            priv = state["private"][seat]
            if name == NIGHT:
                if number == 1 and (priv["loss_order"] is None or priv["camp"] == FREE_AGENT):
                    awaiting.add(seat)
                action = priv["action"]
                if (action is None or action.get("rejected")) and self._card_choices(
                        state, seat):
                    awaiting.add(seat)
            elif seat not in pub["no_vote"] and str(seat) not in pub["votes"] \
                    and priv["proxy"] is None:
                awaiting.add(seat)
        return PhaseInfo(name, number, frozenset(awaiting))

    def duties(self, state: State, seat: int) -> list[str]:
        """What keeps `seat` in `phase(state).awaiting`, by the same tests: night 1's loss
        order and a free agent's camp, a card use (or "pass") while it has cards it may
        use, and by day a vote (or a proxy vote)."""
        pub = state["public"]
        if pub["outcome"] is not None or seat not in alive_seats(state):
            return []
        priv = state["private"][seat]
        name, number = pub["phase"]["name"], pub["phase"]["number"]
        out = []
        if name == NIGHT:
            if number == 1 and priv["camp"] == FREE_AGENT:
                out.append("choose_camp")
            if number == 1 and priv["loss_order"] is None and priv["camp"] != FREE_AGENT:
                out.append("loss_order")
            action = priv["action"]
            if (action is None or action.get("rejected")) and self._card_choices(state, seat):
                out.append("use_card")
        elif seat not in pub["no_vote"] and str(seat) not in pub["votes"] \
                and priv["proxy"] is None:
            out.append("vote")
        return out

    def legal_actions(self, state: State, actor: Viewer) -> list[Choice]:
        """The steps `actor` may take now, one Choice per concrete card and target.

        Precondition for a seat: reads only config, public and the seat's own private part
        (the seat's view embeds this list).
        """
        players = state["config"]["players"]
        pub = state["public"]
        if pub["outcome"] is not None:
            return []
        if actor == GM:
            return self._gm_choices(state)
        if not is_seat_number(actor, players) or not pub["alive"][actor]:
            return []
        seat, priv = actor, state["private"][actor]
        name, number = pub["phase"]["name"], pub["phase"]["number"]
        out = self._card_choices(state, seat)
        if priv["action"] is not None:
            out.append(Choice("withdraw", {}, label="Withdraw this phase's card use"))
        if name == NIGHT and not (priv["action"] or {}).get("pass"):
            out.append(Choice("pass", {}, label="Use no card tonight"))
        if name == NIGHT and number == 1 and priv["camp"] == FREE_AGENT:
            for camp in self._camp_options(priv):
                out.append(Choice("choose_camp", {"camp": camp}, label=f"Join the {camp} camp"))
        if self._order_window(state) and priv["camp"] != FREE_AGENT:  # `_loss_order_open`
            for core in self._core_options(priv):
                rest = [c for c in (priv["loss_order"] or priv["hand"]) if c != core]
                out.append(Choice("loss_order", {"cards": rest + [core]},
                                  label=f"Loss order with {core} as the core card"))
        if name in (DAY, RUNOFF) and self._vote_refusal(state, seat) is None:
            for target in self._vote_targets(state):
                out.append(Choice("vote", {"target": target}, label=vote_label(target)))
                if priv["proxy"] != target:
                    out.append(Choice("proxy_vote", {"target": target},
                                      label=proxy_vote_label(target)))
        return out

    def _card_choices(self, state: State, seat: int) -> list[Choice]:
        """One Choice per card use `_use_refusal` allows: the checks of the seat's round run
        once per seat, those of the card once per card (together they are `_card_refusal`);
        the targets come from `_card_targets`."""
        pub, priv = state["public"], state["private"][seat]
        if (self._banned_round_refusal(state, seat) is not None
                or self._day_card_used_refusal(state, seat) is not None):
            return []  # no card at all this phase
        alive = [t for t, a in enumerate(pub["alive"]) if a]
        out = []
        for card in dict.fromkeys(priv["hand"]):
            if (self._dead_card_refusal(state, seat, card) is not None
                    or self._phase_card_refusal(state, card) is not None):
                continue
            if card == "PARDON" and self._pardon_refusal(state) is not None:
                continue
            attack = card in ATTACK_CARDS
            for target in self._card_targets(state, seat, card, alive):
                base = {"card": card} if target is None else {"card": card, "target": target}
                if attack:
                    manifesto, story = attack_labels(card, target)
                    out.append(Choice("use_card", base, MANIFESTO_FIELDS, label=manifesto))
                    out.append(Choice("use_card", base, STORY_FIELDS, label=story))
                else:
                    out.append(Choice("use_card", base, label=use_label(card, target)))
        return out

    def _card_targets(self, state: State, seat: int, card: str, alive: list[int]) -> list:
        """The targets `_target_refusal` allows for `card` (None for a card without one),
        given the living seats `alive`: the same rules, as a list (I6, §3.4.3)."""
        if card in NO_TARGET:
            return [None]
        targets = [t for t in alive if t != seat] if card in NOT_SELF else alive
        if card == "JAIL":
            last = state["private"][seat]["last_jail"]
            if last and last["night"] == state["public"]["phase"]["number"] - 1:
                targets = [t for t in targets if t != last["target"]]
        return targets

    def _gm_choices(self, state: State) -> list[Choice]:
        pub = state["public"]
        out = []
        for seat in alive_seats(state):
            action = state["private"][seat]["action"]
            if (pub["phase"]["name"] == NIGHT and action and action.get("card") in ATTACK_CARDS
                    and not action.get("rejected")):
                out.append(Choice("reject_manifesto", {"seat": seat}, (TextField(
                    "reason", required=False, max_chars=TEXT_MAX),),
                    label=f"Reject the manifesto of {label(seat)}"))
            if self._camp_for_refusal(state, seat) is None:
                for camp in self._camp_options(state["private"][seat]):
                    out.append(Choice("choose_camp_for", {"seat": seat, "camp": camp},
                                      label=f"Default camp {camp} for {label(seat)}"))
            out.append(Choice("foul_out", {"seat": seat}, (TextField("reason", min_chars=1),),
                              label=f"Foul {label(seat)} out (§9.1)"))
        out.append(Choice("abort", {}, (TextField("reason", min_chars=1),),
                          label="End the game without a result (§11.3)"))
        return out

    # --- refusals (each reads only public, config and the acting seat's private part) -----

    def _round_banned(self, priv: dict, number: int) -> bool:
        """§3.5.3: a card at night and one by day in the last round forbid this round."""
        return set(priv["uses"].get(str(number - 1), [])) >= {NIGHT, DAY}

    def _use_refusal(self, state: State, seat: int, card, target) -> Refusal | None:
        """Whether `seat` may use `card` on `target` now: the card's own checks, then the
        target's, then whether a PARDON has anything to pardon."""
        refusal = self._card_refusal(state, seat, card)
        if refusal is None:
            refusal = self._target_refusal(state, seat, card, target)
        if refusal is None and card == "PARDON":
            refusal = self._pardon_refusal(state)
        return refusal

    def _card_refusal(self, state: State, seat: int, card) -> Refusal | None:
        """The checks of a card use that do not depend on its target (§3.5.3, §5.5, §8.2),
        in this order: the card, the seat's hand, the round, the phase, today's card."""
        if not isinstance(card, str) or card not in CARDS:
            return Refusal("unknown_card")
        if card not in state["private"][seat]["hand"]:
            return Refusal("not_in_hand", params={"card": card})
        for refusal in (self._dead_card_refusal(state, seat, card),
                        self._banned_round_refusal(state, seat),
                        self._phase_card_refusal(state, card),
                        self._day_card_used_refusal(state, seat)):
            if refusal is not None:
                return refusal
        return None

    def _dead_card_refusal(self, state: State, seat: int, card: str) -> Refusal | None:
        if card in state["private"][seat]["dead_cards"]:
            return Refusal("dead_card", params={"card": card})
        return None

    def _banned_round_refusal(self, state: State, seat: int) -> Refusal | None:
        if self._round_banned(state["private"][seat], state["public"]["phase"]["number"]):
            return Refusal("banned_round")
        return None

    def _phase_card_refusal(self, state: State, card: str) -> Refusal | None:
        name = state["public"]["phase"]["name"]
        if name == DAY and card not in DAY_CARDS:
            return Refusal("night_only", params={"card": card})
        if name == RUNOFF and card not in RUNOFF_CARDS:
            return Refusal("not_in_runoff", params={"card": card})
        return None

    def _day_card_used_refusal(self, state: State, seat: int) -> Refusal | None:
        name, number = state["public"]["phase"]["name"], state["public"]["phase"]["number"]
        if name in (DAY, RUNOFF) and DAY in state["private"][seat]["uses"].get(str(number), []):
            return Refusal("one_day_card")
        return None

    def _target_refusal(self, state: State, seat: int, card: str, target) -> Refusal | None:
        """The target of a card use the card itself allows (I6, §3.4.3)."""
        pub, priv = state["public"], state["private"][seat]
        if card in NO_TARGET:
            if target is not None:
                return Refusal("no_target", params={"card": card})
        elif not is_seat_number(target, state["config"]["players"]) or not pub["alive"][target]:
            return Refusal("bad_target")
        elif card in NOT_SELF and target == seat:
            return Refusal("not_self", params={"card": card})
        if card == "JAIL":
            last = priv["last_jail"]
            if last and last["night"] == pub["phase"]["number"] - 1 and last["target"] == target:
                return Refusal("jail_twice")
        return None

    def _pardon_refusal(self, state: State) -> Refusal | None:
        if not (state["public"]["pending_execution"] or {}).get("pardonable"):
            return Refusal("nothing_to_pardon")
        return None

    def _text_refusal(self, card: str, manifesto, story) -> Refusal | None:
        if card not in ATTACK_CARDS:
            if manifesto is not None or story is not None:
                return Refusal("no_text", params={"card": card})
            return None
        for text in (manifesto, story):
            if text is not None and (not isinstance(text, str) or len(text) > TEXT_MAX):
                return Refusal("bad_text")
        if manifesto is not None and story is not None:
            return Refusal("two_texts")
        if story is not None:
            if not story:
                return Refusal("empty_story")
            return None
        if manifesto is None or len(manifesto) < MANIFESTO_MIN:
            return Refusal("manifesto_too_short",
                           params={"min": MANIFESTO_MIN, "got": len(manifesto or "")})
        return None

    def _order_window(self, state: State) -> bool:
        """Whether loss orders may be sent now: night 1 or a reorder window (§6.1, §6.3)."""
        pub = state["public"]
        return (pub["phase"]["name"] == NIGHT and pub["phase"]["number"] == 1) \
            or pub["reorder"] is not None

    def _loss_order_open(self, state: State, seat: int) -> Refusal | None:
        if not self._order_window(state):
            return Refusal("order_closed")
        if state["private"][seat]["camp"] == FREE_AGENT:
            return Refusal("camp_first")
        return None

    def _core_options(self, priv: dict) -> list[str]:
        """Cards that may be last in the loss order (§6.2)."""
        if priv["core_card"] is not None:
            return [priv["core_card"]]
        own = [c for c in priv["hand"] if camp_of(c) == priv["camp"]]
        return own or list(priv["hand"])  # no own-camp card: any card may be the core

    def _camp_options(self, priv: dict) -> list[str]:
        """The camps a free agent may join (§2): the dealer's `free_agent_camps` (a camp of
        a card it holds, whose §4 limits its hand keeps)."""
        return camp_options(priv["hand"])

    def _camp_for_refusal(self, state: State, seat) -> Refusal | None:
        pub = state["public"]
        if not (pub["phase"]["name"] == NIGHT and pub["phase"]["number"] == 1):
            return Refusal("camp_closed")
        if not is_seat_number(seat, state["config"]["players"]) \
                or state["private"][seat]["camp"] != FREE_AGENT:
            return Refusal("not_free_agent")
        return None

    def _vote_refusal(self, state: State, seat: int) -> Refusal | None:
        pub = state["public"]
        if pub["phase"]["name"] not in (DAY, RUNOFF):
            return Refusal("no_vote_now")
        if seat in pub["no_vote"]:
            return Refusal("may_not_vote")
        if str(seat) in pub["votes"]:
            return Refusal("vote_final")
        return None

    def _vote_targets(self, state: State) -> list[int]:
        pub = state["public"]
        if pub["phase"]["name"] == RUNOFF:
            return [s for s in pub["candidates"] if pub["alive"][s]]
        return alive_seats(state)

    # 3. doing it --------------------------------------------------------------------------

    def apply(self, state: State, step) -> Transition | Refusal:
        """Accept a seat's or the GM's step, or refuse it with a reason (never raises)."""
        return self._apply(state, step, own=False)

    def apply_in_place(self, state: State, step) -> list[dict] | Refusal:
        """`apply` on a state the caller owns, changed in place (the simulation's fast
        path); returns the new events. A refused step leaves the state untouched: every
        handler refuses before it copies (or, here, changes) anything."""
        result = self._apply(state, step, own=True)
        return result if isinstance(result, Refusal) else result.events

    def _apply(self, state: State, step, *, own: bool) -> Transition | Refusal:
        if not isinstance(step, dict) or not isinstance(step.get("params"), dict):
            return Refusal("bad_step")
        actor, kind, params = step.get("actor"), step.get("kind"), step["params"]
        if state["public"]["outcome"] is not None:
            return Refusal("game_over")
        if actor == GM:
            allowed, handler = GM_KINDS, self._apply_gm
        elif is_seat_number(actor, state["config"]["players"]):
            allowed, handler = SEAT_KINDS, self._apply_seat
            if not state["public"]["alive"][actor]:
                return Refusal("dead")
        else:
            return Refusal("bad_actor")
        if not isinstance(kind, str) or kind not in allowed:
            return Refusal("unknown_kind")
        extra = set(params) - allowed[kind]
        if extra:
            return Refusal("bad_params")
        return handler(state, actor, kind, params, own=own)

    def _apply_seat(self, state: State, seat: int, kind: str, params: dict, *, own: bool):
        """A seat's step, by kind (SEAT_KINDS): `_apply_<kind>`, each of which refuses
        before it copies anything."""
        return getattr(self, f"_apply_{kind}")(state, seat, params, own=own)

    def _apply_use_card(self, state: State, seat: int, params: dict, *,
                        own: bool) -> Transition | Refusal:
        """Choose (or change) this phase's card use (§3.5, §3.5.5)."""
        pub, priv = state["public"], state["private"][seat]
        card, target = params.get("card"), params.get("target")
        refusal = self._use_refusal(state, seat, card, target)
        if refusal is None:
            refusal = self._text_refusal(card, params.get("manifesto"), params.get("story"))
        if refusal is not None:
            return refusal
        new, events = self._copy(state, seat, own=own)
        action = {"card": card, "target": target, "phase": pub["phase"]["name"]}
        if card in ATTACK_CARDS:
            story = params.get("story")
            action.update(text=story if story is not None else params["manifesto"],
                          story=story is not None, rejected=False)
        replaced = priv["action"]
        new["private"][seat]["action"] = action
        here, refs = phase_of(pub["phase"]), {"ref": ref("5.5"), "ref2": ref("3.5.5")}
        because = [R("chose_card", seat=seat, card=card, phase=here, **refs) if target is None
                   else R("chose_card_on", seat=seat, card=card, target=target, phase=here,
                          **refs)]
        if replaced and not replaced.get("card"):
            because.append(R("replaces_pass"))
        elif replaced and replaced.get("target") is None:
            because.append(R("replaces_use", card=replaced["card"]))
        elif replaced:
            because.append(R("replaces_use_on", card=replaced["card"],
                             seat=replaced["target"]))
        emit(new, events, make_event(
            "card_chosen", only(seat), because=because, seat=seat, card=card, target=target,
            story=action.get("story"), text=action.get("text")))
        return Transition(new, events)

    def _apply_withdraw(self, state: State, seat: int, params: dict, *,
                        own: bool) -> Transition | Refusal:
        """Withdraw this phase's card use (I3)."""
        pub, priv = state["public"], state["private"][seat]
        if priv["action"] is None:
            return Refusal("nothing_to_withdraw")
        if pub["phase"]["name"] not in (NIGHT, DAY, RUNOFF):
            return Refusal("wrong_phase")
        new, events = self._copy(state, seat, own=own)
        new["private"][seat]["action"] = None
        emit(new, events, make_event("withdrawn", only(seat), because=[
            R("withdrew", seat=seat, phase=phase_of(pub["phase"]), ref=ref("3.5.5"))],
            seat=seat))
        return Transition(new, events)

    def _apply_pass(self, state: State, seat: int, params: dict, *,
                    own: bool) -> Transition | Refusal:
        """Use no card tonight."""
        pub, priv = state["public"], state["private"][seat]
        name = pub["phase"]["name"]
        if name != NIGHT:
            return Refusal("wrong_phase")
        if (priv["action"] or {}).get("pass"):
            return Refusal("already_passed")
        new, events = self._copy(state, seat, own=own)
        new["private"][seat]["action"] = {"pass": True, "phase": name}
        emit(new, events, make_event("passed", only(seat), because=[
            R("will_pass", seat=seat, phase=phase_of(pub["phase"]))], seat=seat))
        return Transition(new, events)

    def _apply_choose_camp(self, state: State, seat: int, params: dict, *,
                           own: bool) -> Transition | Refusal:
        """The free agent joins a camp during night 1 (§2, I2)."""
        camp = params.get("camp")
        refusal = self._camp_for_refusal(state, seat)
        if refusal is not None:
            return refusal
        if camp not in self._camp_options(state["private"][seat]):
            return Refusal("camp_not_held")
        new, events = self._copy(state, seat, own=own)
        new["private"][seat]["camp"] = camp
        emit(new, events, make_event("camp_chosen", only(seat), because=[
            R("joined_camp", seat=seat, camp=camp, ref=ref("2"))], seat=seat, camp=camp,
            by="seat"))
        return Transition(new, events)

    def _apply_vote(self, state: State, seat: int, params: dict, *,
                    own: bool) -> Transition | Refusal:
        return self._cast_vote(state, seat, params, proxy=False, own=own)

    def _apply_proxy_vote(self, state: State, seat: int, params: dict, *,
                          own: bool) -> Transition | Refusal:
        return self._cast_vote(state, seat, params, proxy=True, own=own)

    def _cast_vote(self, state: State, seat: int, params: dict, *, proxy: bool,
                   own: bool) -> Transition | Refusal:
        """A vote in person (final) or a proxy vote (changeable until the count) (§8, I8)."""
        pub, priv = state["public"], state["private"][seat]
        name, here = pub["phase"]["name"], phase_of(pub["phase"])
        refusal = self._vote_refusal(state, seat)
        if refusal is not None:
            return refusal
        target = params.get("target")
        if target not in self._vote_targets(state) or not is_seat_number(
                target, state["config"]["players"]):
            if name == RUNOFF:
                return Refusal("vote_among_tied")
            return Refusal("bad_target")
        if proxy and priv["proxy"] == target:
            return Refusal("proxy_unchanged")
        new, events = self._copy(state, seat, own=own)
        runoff = name == RUNOFF
        if not proxy:
            new["public"]["votes"][str(seat)] = target
            emit(new, events, make_event("vote_cast", public(), because=[
                R("runoff_vote_is_final" if runoff else "vote_is_final", seat=seat,
                  phase=here, target=target, ref=ref("8.1", "8.2"))],
                seat=seat, target=target, runoff=runoff))
            if priv["proxy"] is not None:
                new["private"][seat]["proxy"] = None
                emit(new, events, make_event("proxy_void", only(seat), because=[
                    R("proxy_void_by_vote", seat=seat, ref=ref("8.3"))], seat=seat))
        else:
            new["private"][seat]["proxy"] = target
            emit(new, events, make_event("proxy_vote_received", only(seat), because=[
                R("proxy_runoff_held" if runoff else "proxy_held", seat=seat, target=target,
                  seat2=seat, ref=ref("8.3"))], seat=seat, target=target))
        return Transition(new, events)

    def _apply_loss_order(self, state: State, seat: int, params: dict, *,
                          own: bool) -> Transition | Refusal:
        """Set (or, in a reorder window, change) the loss order (§6, I1)."""
        priv, cards = state["private"][seat], params.get("cards")
        refusal = self._loss_order_open(state, seat)
        if refusal is not None:
            return refusal
        if (not isinstance(cards, list) or not all(isinstance(c, str) for c in cards)
                or sorted(cards) != sorted(priv["hand"])):
            return Refusal("bad_order")
        if cards[-1] not in self._core_options(priv):
            if priv["core_card"] is not None:
                return Refusal("core_fixed", params={"core": priv["core_card"]})
            return Refusal("core_camp")
        new, events = self._copy(state, seat, own=own)
        new["private"][seat]["loss_order"] = list(cards)
        emit(new, events, make_event("loss_order_set", only(seat), because=[
            R("loss_order_sent", seat=seat, card=cards[-1], ref=ref("6"))],
            seat=seat, cards=list(cards), by="seat"))
        return Transition(new, events)

    def _apply_gm(self, state: State, actor, kind: str, params: dict, *, own: bool):
        players = state["config"]["players"]
        pub = state["public"]
        reason = params.get("reason")
        if reason is not None and (not isinstance(reason, str) or len(reason) > TEXT_MAX):
            return Refusal("bad_text")
        if kind == "abort":
            if not reason:
                return Refusal("reason_needed")
            new, events = self._copy(state, own=own)
            why = R("gm_aborted", reason=reason, ref=ref("11.3"))
            new["public"]["outcome"] = {"result": "aborted", "winners": [], "reason": why}
            new["public"]["phase"] = {"name": OVER, "number": pub["phase"]["number"]}
            emit(new, events, make_event("game_aborted", public(), because=[why],
                                         reason=reason))
            return Transition(new, events)
        seat = params.get("seat")
        if not is_seat_number(seat, players) or not pub["alive"][seat]:
            return Refusal("bad_seat")
        if kind == "reject_manifesto":
            action = state["private"][seat]["action"]
            if not (pub["phase"]["name"] == NIGHT and action
                    and action.get("card") in ATTACK_CARDS and not action.get("rejected")):
                return Refusal("no_manifesto")
            new, events = self._copy(state, own=own)
            new["private"][seat]["action"]["rejected"] = True
            emit(new, events, make_event("manifesto_rejected", only(seat), because=[
                R("manifesto_rejected_for", reason=reason, ref=ref("3.5.2")) if reason
                else R("manifesto_rejected", ref=ref("3.5.2")),
                R("send_attack_again")], seat=seat, reason=reason))
            return Transition(new, events)
        if kind == "choose_camp_for":
            refusal = self._camp_for_refusal(state, seat)
            if refusal is not None:
                return refusal
            camp = params.get("camp")
            if camp not in self._camp_options(state["private"][seat]):
                return Refusal("camp_not_held")
            new, events = self._copy(state, own=own)
            new["secret"]["free_agent_default"] = camp
            emit(new, events, make_event("camp_default_set", gm_only(), because=[
                R("default_camp_set", seat=seat, camp=camp, ref=ref("2"))],
                seat=seat, camp=camp))
            return Transition(new, events)
        # foul_out
        if not reason:
            return Refusal("reason_needed")
        new, events = self._copy(state, own=own)
        foul_out(new, events, seat, reason=reason,
                 because=[R("gm_fouled_out", seat=seat, reason=reason, ref=ref("9.1"))],
                 out=R("out_of_game", seat=seat, reason=reason, ref=ref("9.1")))
        check_victory(new, events)
        return Transition(new, events)

    def _copy(self, state: State, seat: int | None = None, *,
              own: bool = False) -> tuple[State, list]:
        """A copy of `state` the caller may change, and an empty list for the new events.

        Logged events are never changed once emitted, so the new log shares them with the
        old one (a copy of the list, not of every event): games are replayed and checked by
        the thousand, and copying the whole log at every step made that quadratic.

        With `seat`, for a seat's own step (which changes only the public part and that
        seat's private part), only those two are copied; the config, the secret part and
        the other seats' private parts are shared with `state`. The engine never changes a
        state in place once it has returned it (every step starts from such a copy), and
        neither may a caller: the service stores each state as JSON.

        With `own` (`apply_in_place`, `end_phase_in_place`) the caller owns `state`: it is
        returned itself, to be changed in place.
        """
        if own:
            return state, []
        if seat is None:
            new = copy_plain({k: v for k, v in state.items() if k != "log"})
        else:
            new = dict(state)
            new["public"] = copy_plain(state["public"])
            new["private"] = list(state["private"])
            new["private"][seat] = copy_plain(state["private"][seat])
        new["log"] = list(state["log"])
        return new, []

    def end_phase(self, state: State) -> Transition:
        """Resolve the current phase and open the next one (the clock's step; never refuses)."""
        new, events = self._copy(state)
        self.end_phase_in_place(new, events)
        return Transition(new, events)

    def end_phase_in_place(self, state: State, events: list) -> None:
        """`end_phase` on a state the caller owns, changed in place; the new events are
        appended to `events`."""
        if state["public"]["outcome"] is not None:
            return
        if state["public"]["phase"]["name"] == NIGHT:
            end_night(state, events)
        else:
            end_vote(state, events)

    def commitment_text(self, state: State) -> str:
        """The canonical text of the deal kept in the GM-only part of the state (the dealer's
        `canonical`): the service publishes a salted SHA-256 commitment to it when the game
        starts and reveals it when the game ends (§4; docs/rules/ninelives-dealing.md).

        Precondition: `state` was made by `initial_state` (the deal is in `secret["deal"]`,
        which no step ever changes, so the text is the same at every point of the game).
        """
        return dealing.canonical(dealing.Deal.from_json(state["secret"]["deal"]))

    def outcome(self, state: State) -> Outcome | None:
        result = state["public"]["outcome"]
        if result is None:
            return None
        return Outcome(result["result"], tuple(result["winners"]), reason=result.get("reason"))

    # 4. reading it ------------------------------------------------------------------------

    def view(self, state: State, viewer: Viewer) -> dict:
        """The default view (base.RuleSet.view: config, public, the viewer's own private part,
        the log entries it may see; all of it for the GM), plus the viewer's legal actions,
        computed only from those parts."""
        out = super().view(state, viewer)
        if viewer == GM:
            info = self.phase(state)
            out["awaiting"] = sorted(info.awaiting)
            out["legal_actions"] = fast_copy([asdict(c) for c in self.legal_actions(state, GM)])
        elif is_seat_number(viewer, state["config"]["players"]):
            out["legal_actions"] = fast_copy(
                [asdict(c) for c in self.legal_actions(state, viewer)])
        return out
