"""谁偷了我的金币 ("Who Stole My Gold", seed 000): the pure rules engine.

Sections of the seed implemented here:
    §H2 2-6 players; §H3 24 cards (8 KILLER, 8 ASSASSIN, 8 THIEF), 80 coins, 4 priority
    tokens, 4 double tokens; §1① X players and 8-X virtual players; §1② X rounds, the lead
    passing to the next seat each round; §2 the deal and the virtual pile; §3 the
    simultaneous pick and the preliminary judgment; §4 the coin rule; §5 priority tokens
    and the operations; §6 the final judgment, doubling and the winner.
The seed opens with three numbered header lines (name, player count, materials: cited §H1-§H3)
and then numbers its rule blocks (1)-(6) and their clauses ①-⑥: "§4⑤" means block (4),
clause ⑤, and "§4" the whole block.

Interpretations, where the seed is silent or ambiguous (docs/rules/gold.md explains each):
    I1 §2②  The virtual pile (8-X of each card) is reshuffled every round and 8-X cards are
            drawn again; every card returns to its owner (or the pile) when a round ends.
    I2 §1②  The lead of round 1 comes from the config (`"lead": seat index`), or by lot when
            it is None; "counter-clockwise" is seat order: seat i+1 follows seat i.
    I3 §3①  A seat may change its pick until the pick phase ends; a seat that has not picked
            by then gets a card drawn at random.
    I4 §4⑤  When five or more holders would share the 4 coins, the 4 coins vanish: neither
            they nor the thieves get any (the clause says nobody gets anything).
    I5 §4④  On a tie with no thief on the table the 4 coins vanish.
    I6 §4   Virtual players count in every division; their shares are not tracked.
    I7 §5①  "Wins coins" means a share of at least one coin; a holder whose share is 0 gets
            no priority token.
    I8 §5③  A priority holder who trades the token for a double token no longer holds a
            priority token, so it also takes a turn among the operations (§5②: everyone gets
            the chance to change). One who keeps the token takes 2 bonus coins at once and
            keeps its card.
    I9 §5④  Besides the three operations a seat may `keep` (change nothing); it is also what
            a missed turn does. A missed priority choice keeps the token (the bonus).
    I10 §5④ The card put on a virtual player may be of the same kind as the card it replaces;
            the removed face-up card is public. Flip may target any face-down card, a seat's
            or a virtual player's.
    I11 §6③ The double token doubles the coins the seat wins in that round's final judgment
            (not the 2 bonus coins, which a doubler cannot have).
    I12 §6④ After X rounds, all seats with the most coins share the win.
    I13 §H3 The 80-coin supply cannot run out: with X players no round pays more than
            8-12 coins (bonus and doubling included) and X rounds pay at most 72 in all
            (exhaustive bound: `gold.simulate.max_round_payout`). The supply is tracked.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..base import (
    Choice,
    Outcome,
    PhaseInfo,
    Refusal,
    RuleSet,
    State,
    Transition,
    Viewer,
    copy_plain,
    draw_random,
    emit,
    fresh_state,
    make_event,
    public,
    seats,
)
from . import kinds
from .reasons import R

KILLER = "KILLER"
ASSASSIN = "ASSASSIN"
THIEF = "THIEF"
CARDS = (KILLER, ASSASSIN, THIEF)
CARD_NAMES_ZH = {KILLER: "杀手", ASSASSIN: "刺客", THIEF: "盗贼"}

TABLE = 8            # cards on the table each round: X players + (8 - X) virtual players
ROUND_COINS = 4      # §4①
CROWD = 5            # §4⑤: this many or more sharing the 4 coins get nothing
BONUS = 2            # §5③ operation 1
SUPPLY = 80          # §H3
MIN_PLAYERS = 2
MAX_PLAYERS = 6

PICK = "pick"
PRIORITY = "priority"
OPERATION = "operation"
FINISHED = "finished"

# tokens a seat can hold during a round
PRIORITY_TOKEN = "priority"
DOUBLE_TOKEN = "double"

# action kinds
A_PICK = "pick"
A_BONUS = "take_bonus"
A_DOUBLE = "take_double"
A_KEEP = "keep"
A_SWAP = "swap"
A_REPLACE = "replace"
A_FLIP = "flip"
ACTION_KINDS = (A_PICK, A_BONUS, A_DOUBLE, A_KEEP, A_SWAP, A_REPLACE, A_FLIP)


# --- the coin rule (§4) ------------------------------------------------------------------

@dataclass(frozen=True)
class Judgment:
    """The result of the coin rule on the 8 cards of the table.

    `per_card[c]` is what each holder of card c receives; `vanished` is what nobody gets.
    """

    counts: dict[str, int]
    winner: str | None      # the card whose holders take the 4 coins; None if nobody can
    per_card: dict[str, int]
    vanished: int
    because: tuple[dict, ...]   # reasons (games/engine/gold/reasons.py)

    def as_data(self) -> dict:
        return {"counts": dict(self.counts), "winner": self.winner,
                "per_card": dict(self.per_card), "vanished": self.vanished}


def judge(cards: list[str]) -> Judgment:
    """Apply the coin rule (§4) to the cards on the table.

    Precondition: `cards` holds 8 card names (players' and virtual players' alike).
    1. Count each card (§4②).
    2. More KILLER than ASSASSIN, or the reverse: the larger group takes the 4 coins (§4③).
       A tie between them gives the 4 coins to the THIEF holders (§4④).
    3. If 5 or more holders would share the 4 coins, nobody gets anything and the 4 coins
       vanish (§4⑤, interpretation I4); if nobody holds the winning card they vanish too (I5).
    4. Otherwise each holder gets 4 // n. When KILLER or ASSASSIN won, the rest goes to the
       THIEF holders, split evenly (§4⑤); what still cannot be split evenly vanishes (§4⑥).
    """
    counts = {c: cards.count(c) for c in CARDS}
    per_card = dict.fromkeys(CARDS, 0)
    because = [R("table_counts", counts=dict(counts), ref=["4②"])]
    k, a = counts[KILLER], counts[ASSASSIN]
    if k != a:
        winner = KILLER if k > a else ASSASSIN
        loser = ASSASSIN if k > a else KILLER
        because.append(R("outnumber", card=winner, card2=loser, card3=winner, n=ROUND_COINS,
                         ref=["4③"]))
    else:
        winner = THIEF
        because.append(R("tied", card=KILLER, card2=ASSASSIN, n=k, card3=THIEF, n2=ROUND_COINS,
                         ref=["4④"]))
    n = counts[winner]
    if n == 0:
        because.append(R("nobody_holds", card=winner, n=ROUND_COINS))
        return Judgment(counts, None, per_card, ROUND_COINS, tuple(because))
    if n >= CROWD:
        because.append(R("crowd", n=n, n2=ROUND_COINS, n3=CROWD, ref=["4⑤"]))
        return Judgment(counts, None, per_card, ROUND_COINS, tuple(because))
    share = ROUND_COINS // n
    per_card[winner] = share
    rest = ROUND_COINS - share * n
    because.append(R("share", n=n, card=winner, n2=share, ref=["4⑤"]))
    if rest and winner != THIEF:
        t = counts[THIEF]
        if t:
            per_card[THIEF] = rest // t
            because.append(R("rest_to_thieves", n=rest, n2=t, card=THIEF, n3=rest // t,
                             ref=["4⑤"]))
            rest -= per_card[THIEF] * t
        else:
            because.append(R("rest_unclaimed", n=rest, card=THIEF))
    if rest:
        because.append(R("rest_vanishes", n=rest, ref=["4⑥"]))
    return Judgment(counts, winner, per_card, rest, tuple(because))


# --- small helpers -----------------------------------------------------------------------

def seat_order(lead: int, players: int) -> list[int]:
    """Every seat, starting at `lead` and going on in seat order (the seed's
    counter-clockwise order, §1②)."""
    return [(lead + i) % players for i in range(players)]


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _place_name(place: dict) -> str:
    if "seat" in place:
        return f"seat {place['seat'] + 1}"
    return f"virtual player {place['virtual'] + 1}"


def _new_spot(card: str) -> dict:
    """A place on the table: the face-up card shown at the reveal and what covers it.

    `covered` is True once a face-down card lies there (§5④ operations 1 and 2); `cover` is
    that card's name once it is flipped or judged, None while it is hidden.
    """
    return {"shown": card, "covered": False, "cover": None}


# --- the rule set ------------------------------------------------------------------------

class Gold(RuleSet):
    """谁偷了我的金币 for 2-6 players. Seats are the real players only; the virtual players
    live in `public["virtual"]` (face-up cards, so public).

    Phases (each one a deadline for the service; `public["phase_number"]` counts them):
      pick       every seat picks a card secretly; the end reveals them all and runs the
                 preliminary judgment (§3, §4, §5①).
      priority   one turn per priority holder, from the lead in seat order (§5③).
      operation  one turn per seat without a priority token, from the lead in seat order
                 (§5④); the end of the last one runs the final judgment (§6) and starts the
                 next round or finishes the game.
      finished   the game is over.
    An action only records a choice; `end_phase` (the clock, or the service once nobody is
    awaited) moves on, filling in the default for a missed choice.
    """

    name = "gold"
    min_seats = MIN_PLAYERS
    max_seats = MAX_PLAYERS
    schema = kinds.SCHEMA

    # 1. setup ----------------------------------------------------------------------------

    def default_config(self) -> dict:
        return {"lead": None}

    def initial_state(self, *, seats: int, config: dict | None = None,
                      seed: str) -> Transition:
        """A new game, ready for the first pick.

        Raises ValueError for a player count outside 2-6 or a lead that is not a seat.
        1. Build the state skeleton; the coins start at 0 and the supply at 80 (§H3).
        2. Take the lead of round 1 from the config, or draw it by lot (§1②, I2).
        3. Start round 1: deal and draw the virtual players' cards (§2).
        """
        if not _is_int(seats) or not MIN_PLAYERS <= seats <= MAX_PLAYERS:
            raise ValueError("谁偷了我的金币 is played by 2 to 6 players")
        cfg = self.default_config()
        cfg.update(config or {})
        lead = cfg["lead"]
        if lead is not None and (not _is_int(lead) or not 0 <= lead < seats):
            raise ValueError(f"the lead must be a seat index from 0 to {seats - 1}, or None")
        state = fresh_state(self.name, seats=seats, config=cfg, seed=seed)
        events: list[dict] = []
        virtual = TABLE - seats
        because = [R("places", n=seats, n2=virtual, n3=seats, ref=["1①", "1②"])]
        if lead is None:
            lead = draw_random(state, "lead").randrange(seats)
            because.append(R("lead_by_lot", seat=lead, ref=["1②"]))
        else:
            because.append(R("lead_chosen", seat=lead, ref=["1②"]))
        state["public"] = {
            "players": seats, "virtual_players": virtual, "rounds": seats,
            "first_lead": lead, "round": 0, "lead": lead,
            "phase": PICK, "phase_number": 0, "turn": None, "queue": [], "acted": False,
            "picked": [False] * seats, "table": [None] * seats, "virtual": [],
            "preliminary": None, "tokens": [None] * seats, "choices": [None] * seats,
            "replace_used_by": None, "flip_used_by": None,
            "coins": [0] * seats, "supply": SUPPLY, "results": [],
        }
        state["secret"]["cards"] = {"seats": [None] * seats, "virtual": []}
        emit(state, events, make_event("setup", public(), because=because, players=seats,
                                       virtual_players=virtual, rounds=seats, first_lead=lead))
        self._start_round(state, events)
        return Transition(state, events)

    # 2. what may be done now ---------------------------------------------------------------

    def phase(self, state: State) -> PhaseInfo:
        pub = state["public"]
        if pub["phase"] == FINISHED:
            return PhaseInfo(FINISHED, pub["phase_number"], frozenset(), finished=True)
        if pub["phase"] == PICK:
            awaiting = frozenset(i for i, done in enumerate(pub["picked"]) if not done)
        else:
            awaiting = frozenset() if pub["acted"] else frozenset([pub["turn"]])
        return PhaseInfo(pub["phase"], pub["phase_number"], awaiting)

    def legal_actions(self, state: State, actor: Viewer) -> list[Choice]:
        """The choices `actor` may submit now, as a form would offer them."""
        pub = state["public"]
        if not _is_int(actor) or not 0 <= actor < pub["players"]:
            return []
        if pub["phase"] == PICK:
            mine = state["private"][actor]["pick"]
            return [Choice(A_PICK, {"card": c},
                           label=f"Pick {c}" + (" (your current pick)" if c == mine else ""))
                    for c in CARDS]
        if pub["phase"] not in (PRIORITY, OPERATION) or pub["turn"] != actor or pub["acted"]:
            return []
        if pub["phase"] == PRIORITY:
            return [Choice(A_BONUS, {}, label=f"Keep the priority token and take {BONUS} "
                                              f"coins; your card stays as it is"),
                    Choice(A_DOUBLE, {}, label="Trade the priority token for a ×2 token; "
                                               "then take a turn to change cards")]
        return self._operation_choices(state, actor)

    def _operation_choices(self, state: State, seat: int) -> list[Choice]:
        pub = state["public"]
        hand = state["private"][seat]["hand"]
        mine = state["secret"]["cards"]["seats"][seat]
        out = [Choice(A_KEEP, {}, label=f"Keep your card ({mine}) and do nothing else")]
        out += [Choice(A_SWAP, {"card": c}, label=f"Cover your card with {c}, face down")
                for c in hand]
        if pub["replace_used_by"] is None:
            for v, spot in enumerate(pub["virtual"]):
                out += [Choice(A_REPLACE, {"card": c, "virtual": v},
                               label=f"Put your {c} face down on virtual player {v + 1} "
                                     f"(showing {spot['shown']})")
                        for c in hand]
        if pub["flip_used_by"] is None:
            for place in self._face_down_places(pub):
                out.append(Choice(A_FLIP, dict(place),
                                  label=f"Flip the face-down card of {_place_name(place)}"))
        return out

    @staticmethod
    def _face_down_places(pub: dict) -> list[dict]:
        """Places holding a face-down card nobody has flipped yet, seats first."""
        places = [{"seat": i} for i, spot in enumerate(pub["table"])
                  if spot and spot["covered"] and spot["cover"] is None]
        places += [{"virtual": v} for v, spot in enumerate(pub["virtual"])
                   if spot["covered"] and spot["cover"] is None]
        return places

    # 3. doing it -------------------------------------------------------------------------

    def apply(self, state: State, step: dict) -> Transition | Refusal:
        """Record one seat's choice, or refuse it with a reason.

        1. Check the step's shape, the actor and the phase.
        2. Check the parameters against the seat's hand and the table.
        3. Apply the choice to a copy of the state and return it with its events.
        """
        if not isinstance(step, dict):
            return Refusal("bad_step")
        actor, kind, params = step.get("actor"), step.get("kind"), step.get("params")
        if not isinstance(params, dict):
            return Refusal("bad_params")
        if kind not in ACTION_KINDS:
            return Refusal("unknown_action")
        pub = state["public"]
        if not _is_int(actor) or not 0 <= actor < pub["players"]:
            return Refusal("not_a_seat")
        if pub["phase"] == FINISHED:
            return Refusal("game_over")
        if kind == A_PICK:
            return self._pick(state, actor, params)
        if pub["phase"] == PICK:
            return Refusal("still_picking")
        if pub["turn"] != actor:
            return Refusal("not_your_turn", params={"seat": pub["turn"]})
        if pub["acted"]:
            return Refusal("already_acted")
        if kind in (A_BONUS, A_DOUBLE):
            if pub["phase"] != PRIORITY:
                return Refusal("not_priority_turn")
            return self._priority_choice(state, actor, kind, params)
        if pub["phase"] != OPERATION:
            return Refusal("priority_turn")
        return self._operation(state, actor, kind, params)

    def _pick(self, state: State, seat: int, params: dict) -> Transition | Refusal:
        if state["public"]["phase"] != PICK:
            return Refusal("already_revealed")
        if set(params) != {"card"} or params["card"] not in CARDS:
            return Refusal("bad_card")
        s = copy_plain(state)
        events: list[dict] = []
        card = params["card"]
        before = s["private"][seat]["pick"]
        s["private"][seat]["pick"] = card
        s["secret"]["cards"]["seats"][seat] = card
        s["public"]["picked"][seat] = True
        if before == card:
            reason = R("pick_confirmed", seat=seat, card=card, ref=["3①"])
        elif before:
            reason = R("pick_changed", seat=seat, card=before, card2=card, ref=["3①", "I3"])
        else:
            reason = R("picked", seat=seat, card=card, ref=["3①"])
        emit(s, events, make_event("picked", seats(seat), because=[reason], seat=seat, card=card,
                                   round=s["public"]["round"]))
        return Transition(s, events)

    def _priority_choice(self, state: State, seat: int, kind: str,
                         params: dict) -> Transition | Refusal:
        if params:
            return Refusal("no_details")
        s = copy_plain(state)
        events: list[dict] = []
        self._resolve_priority(s, events, seat, kind, missed=False)
        return Transition(s, events)

    def _resolve_priority(self, s: State, events: list[dict], seat: int, kind: str, *,
                          missed: bool) -> None:
        """Carry out a priority holder's choice (§5③). Precondition: `s` is a fresh copy."""
        pub = s["public"]
        pub["acted"] = True
        because = []
        if missed:
            because.append(R("priority_missed", seat=seat, ref=["I9"]))
        if kind == A_BONUS:
            pub["coins"][seat] += BONUS
            pub["supply"] -= BONUS
            pub["choices"][seat] = {"priority": A_BONUS}
            because.append(R("bonus", seat=seat, n=BONUS, ref=["5③.1"]))
            emit(s, events, make_event("bonus", public(), because=because, seat=seat,
                                       coins=BONUS, total=pub["coins"][seat], missed=missed))
        else:
            pub["tokens"][seat] = DOUBLE_TOKEN
            pub["choices"][seat] = {"priority": A_DOUBLE}
            because.append(R("double", seat=seat, ref=["5③.2"]))
            because.append(R("double_operates", ref=["5②", "5④", "I8"]))
            emit(s, events, make_event("double", public(), because=because, seat=seat))

    def _operation(self, state: State, seat: int, kind: str,
                   params: dict) -> Transition | Refusal:
        """Check and carry out one of the §5④ operations, or `keep`."""
        pub = state["public"]
        hand = state["private"][seat]["hand"]
        if kind == A_KEEP:
            if params:
                return Refusal("no_details")
        elif kind == A_SWAP:
            if set(params) != {"card"} or params["card"] not in CARDS:
                return Refusal("no_swap_card")
            if params["card"] not in hand:
                return Refusal("card_not_in_hand")
        elif kind == A_REPLACE:
            if set(params) != {"card", "virtual"} or params["card"] not in CARDS:
                return Refusal("bad_replace")
            if params["card"] not in hand:
                return Refusal("card_not_in_hand")
            if pub["replace_used_by"] is not None:
                return Refusal("replace_used", params={"seat": pub["replace_used_by"]})
            v = params["virtual"]
            if not _is_int(v) or not 0 <= v < len(pub["virtual"]):
                return Refusal("no_such_virtual")
        else:  # A_FLIP: every other kind was dealt with before the operations (see `apply`)
            if pub["flip_used_by"] is not None:
                return Refusal("flip_used", params={"seat": pub["flip_used_by"]})
            if (len(params) != 1 or not all(_is_int(v) for v in params.values())
                    or params not in self._face_down_places(pub)):
                return Refusal("not_face_down")
        s = copy_plain(state)
        events: list[dict] = []
        self._resolve_operation(s, events, seat, kind, params, missed=False)
        return Transition(s, events)

    def _resolve_operation(self, s: State, events: list[dict], seat: int, kind: str,
                           params: dict, *, missed: bool) -> None:
        """Carry out a checked operation (§5④). Precondition: `s` is a fresh copy."""
        pub, me, truth = s["public"], s["private"][seat], s["secret"]["cards"]
        pub["acted"] = True
        pub["choices"][seat] = {"operation": kind}
        if kind == A_KEEP:
            reason = R("keep_missed" if missed else "kept", seat=seat, ref=["I9"])
            emit(s, events, make_event("kept", public(), because=[reason], seat=seat,
                                       missed=missed))
        elif kind == A_SWAP:
            card = params["card"]
            me["hand"].remove(card)
            me["face_down"] = {"seat": seat, "card": card}
            truth["seats"][seat] = card
            pub["table"][seat]["covered"] = True
            emit(s, events, make_event("swapped", public(), because=[
                R("swapped", seat=seat, card=pub["table"][seat]["shown"], ref=["5④.1"])],
                seat=seat))
            emit(s, events, make_event("swapped_card", seats(seat), because=[
                R("swapped_card", seat=seat, card=card)], seat=seat, card=card))
        elif kind == A_REPLACE:
            card, v = params["card"], params["virtual"]
            me["hand"].remove(card)
            me["face_down"] = {"virtual": v, "card": card}
            truth["virtual"][v] = card
            pub["virtual"][v]["covered"] = True
            pub["replace_used_by"] = seat
            because = [R("replaced", seat=seat, virtual=v, card=pub["virtual"][v]["shown"],
                         ref=["5④.2"]),
                       R("replace_once", ref=["5④"])]
            emit(s, events, make_event("replaced", public(), because=because, seat=seat,
                                       virtual=v, removed=pub["virtual"][v]["shown"]))
            emit(s, events, make_event("replaced_card", seats(seat), because=[
                R("replaced_card", seat=seat, virtual=v, card=card)], seat=seat, virtual=v,
                card=card))
        else:  # A_FLIP
            if "seat" in params:
                spot, card = pub["table"][params["seat"]], truth["seats"][params["seat"]]
            else:
                spot, card = pub["virtual"][params["virtual"]], truth["virtual"][params["virtual"]]
            spot["cover"] = card
            pub["flip_used_by"] = seat
            emit(s, events, make_event("flipped", public(), because=[
                R("flipped", seat=seat, place=dict(params), card=card, ref=["5④.3"]),
                R("flip_once", ref=["5④"])], seat=seat, card=card, target=dict(params)))

    def end_phase(self, state: State) -> Transition:
        """The clock's step: fill in missed choices and move to the next phase.

        1. pick: draw a random card for every seat that did not pick (I3), reveal, run the
           preliminary judgment and start the priority turns (or the operations).
        2. priority: a missed choice keeps the token (I9); go to the next priority holder, or
           start the operations.
        3. operation: a missed choice keeps the card (I9); go to the next seat, or run the
           final judgment and start the next round (or finish the game).
        4. finished: nothing happens.
        """
        s = copy_plain(state)
        events: list[dict] = []
        pub = s["public"]
        if pub["phase"] == PICK:
            self._reveal(s, events)
        elif pub["phase"] == PRIORITY:
            if not pub["acted"]:
                self._resolve_priority(s, events, pub["turn"], A_BONUS, missed=True)
            self._next_turn(s, events)
        elif pub["phase"] == OPERATION:
            if not pub["acted"]:
                self._resolve_operation(s, events, pub["turn"], A_KEEP, {}, missed=True)
            self._next_turn(s, events)
        return Transition(s, events)

    # phase machinery (all on a fresh copy the caller owns) ------------------------------

    def _enter_phase(self, s: State, name: str, turn: int | None = None,
                     queue: list[int] | None = None) -> None:
        pub = s["public"]
        pub["phase"] = name
        pub["phase_number"] += 1
        pub["turn"] = turn
        pub["queue"] = list(queue or [])
        pub["acted"] = False

    def _start_round(self, s: State, events: list[dict]) -> None:
        """Deal a new round (§2, I1).

        1. Advance the round; the lead passes to the next seat (§1②).
        2. Every seat takes back its KILLER, ASSASSIN and THIEF; tokens return to the box.
        3. Shuffle the virtual pile (8-X of each card) and draw 8-X cards face up (§2②).
        4. Open the pick phase.
        """
        pub = s["public"]
        players, virtual = pub["players"], pub["virtual_players"]
        pub["round"] += 1
        pub["lead"] = (pub["first_lead"] + pub["round"] - 1) % players
        for i in range(players):
            s["private"][i] = {"hand": list(CARDS), "pick": None, "face_down": None}
        pub.update(picked=[False] * players, table=[None] * players, preliminary=None,
                   tokens=[None] * players, choices=[None] * players,
                   replace_used_by=None, flip_used_by=None)
        pile = [c for c in CARDS for _ in range(virtual)]
        draw_random(s, f"virtual pile, round {pub['round']}").shuffle(pile)
        drawn = pile[:virtual]
        pub["virtual"] = [_new_spot(c) for c in drawn]
        s["secret"]["cards"] = {"seats": [None] * players, "virtual": list(drawn)}
        because = [R("round_lead", n=pub["round"], n2=pub["rounds"], seat=pub["lead"],
                     ref=["1②"])]
        if pub["round"] > 1:
            because.append(R("lead_passes", ref=["1②"]))
        because.append(R("deal", card=KILLER, card2=ASSASSIN, card3=THIEF, ref=["2①"],
                         n=virtual * 3, n2=virtual, ref2=["2②", "I1"]))
        emit(s, events, make_event("round_started", public(), because=because,
                                   round=pub["round"], lead=pub["lead"], virtual=drawn))
        self._enter_phase(s, PICK)

    def _reveal(self, s: State, events: list[dict]) -> None:
        """End of the pick phase (§3, §4, §5①).

        1. A seat without a pick gets a random card (I3), told only to it.
        2. Show every seat's card together (§3①).
        3. Run the preliminary judgment on the 8 cards (§3②, §4).
        4. Seats that would win coins take a priority token instead (§5①, I7).
        5. Start the priority turns, from the lead in seat order (§5③).
        """
        pub, truth = s["public"], s["secret"]["cards"]
        players = pub["players"]
        missed = []
        for i in range(players):
            if s["private"][i]["pick"] is None:
                card = draw_random(s, f"default pick, round {pub['round']}, seat {i}").choice(
                    CARDS)
                s["private"][i]["pick"] = card
                truth["seats"][i] = card
                missed.append(i)
                emit(s, events, make_event("pick_defaulted", seats(i), because=[
                    R("pick_defaulted", seat=i, card=card, ref=["I3"])], seat=i, card=card))
        for i in range(players):
            card = s["private"][i]["pick"]
            s["private"][i]["hand"].remove(card)
            pub["table"][i] = _new_spot(card)
        pub["picked"] = [True] * players
        shown = [spot["shown"] for spot in pub["table"]]
        because = [R("picks_shown", ref=["3①"], table={
            "seats": list(shown), "virtual": [v["shown"] for v in pub["virtual"]]})]
        if missed:
            because.append(R("picks_missed", seats=missed, ref=["I3"]))
        emit(s, events, make_event("revealed", public(), because=because, seats=shown,
                                   virtual=[v["shown"] for v in pub["virtual"]]))
        result = judge(shown + [v["shown"] for v in pub["virtual"]])
        shares = [result.per_card[c] for c in shown]
        holders = [i for i in seat_order(pub["lead"], players) if shares[i] > 0]
        for i in holders:
            pub["tokens"][i] = PRIORITY_TOKEN
        pub["preliminary"] = dict(result.as_data(), shares=shares)
        because = list(result.because)
        if holders:
            because.append(R("priority_tokens", seats=sorted(holders), ref=["5①"]))
        else:
            because.append(R("no_priority", ref=["5①"]))
        emit(s, events, make_event("preliminary", public(), because=because,
                                   priority=sorted(holders), **pub["preliminary"]))
        if holders:
            self._enter_phase(s, PRIORITY, holders[0], holders[1:])
        else:
            self._start_operations(s, events)

    def _start_operations(self, s: State, events: list[dict]) -> None:
        """Queue every seat without a priority token, from the lead in seat order (§5④, I8);
        with nobody to act, go straight to the final judgment."""
        pub = s["public"]
        order = [i for i in seat_order(pub["lead"], pub["players"])
                 if pub["tokens"][i] != PRIORITY_TOKEN]
        if order:
            self._enter_phase(s, OPERATION, order[0], order[1:])
        else:
            self._final(s, events)

    def _next_turn(self, s: State, events: list[dict]) -> None:
        pub = s["public"]
        if pub["queue"]:
            self._enter_phase(s, pub["phase"], pub["queue"][0], pub["queue"][1:])
        elif pub["phase"] == PRIORITY:
            self._start_operations(s, events)
        else:
            self._final(s, events)

    def _final(self, s: State, events: list[dict]) -> None:
        """The final judgment (§6).

        1. Turn every face-down card up; judge the 8 cards by the coin rule (§6②, §4).
        2. Pay each seat its share, doubled for a ×2 token (§6③); virtual players' shares
           are not kept (I6). The supply cannot run out (I13).
        3. Record the round; start the next round, or finish after X rounds (§6④).
        """
        pub, truth = s["public"], s["secret"]["cards"]
        players = pub["players"]
        for i, spot in enumerate(pub["table"]):
            if spot["covered"]:
                spot["cover"] = truth["seats"][i]
        for v, spot in enumerate(pub["virtual"]):
            if spot["covered"]:
                spot["cover"] = truth["virtual"][v]
        result = judge(truth["seats"] + truth["virtual"])
        shares = [result.per_card[c] for c in truth["seats"]]
        paid = []
        because = [R("final_table", ref=["6①", "6②"], table={
            "seats": list(truth["seats"]), "virtual": list(truth["virtual"])})]
        because += result.because
        for i in range(players):
            pay = shares[i] * (2 if pub["tokens"][i] == DOUBLE_TOKEN else 1)
            if pay != shares[i]:
                because.append(R("doubled", seat=i, n=shares[i], n2=pay, ref=["6③"]))
            paid.append(pay)
            pub["coins"][i] += pay
            pub["supply"] -= pay
        if any(paid):
            because.append(R("paid", payments=[{"seat": i, "coins": p}
                                               for i, p in enumerate(paid) if p]))
        else:
            because.append(R("nobody_paid"))
        record = {"round": pub["round"], "lead": pub["lead"], "seats": list(truth["seats"]),
                  "virtual": list(truth["virtual"]), "tokens": list(pub["tokens"]),
                  "choices": list(pub["choices"]), "shares": shares, "paid": paid,
                  "judgment": result.as_data(), "coins": list(pub["coins"])}
        pub["results"].append(record)
        emit(s, events, make_event("final", public(), because=because, **record))
        if pub["round"] < pub["rounds"]:
            self._start_round(s, events)
            return
        self._enter_phase(s, FINISHED)
        out = self.outcome(s)
        emit(s, events, make_event("game_over", public(), because=[
            R("all_rounds", n=pub["rounds"], ref=["6④", "I12"]), out.reason],
            result=out.result, winners=list(out.winners), coins=list(pub["coins"])))

    def outcome(self, state: State) -> Outcome | None:
        pub = state["public"]
        if pub["phase"] != FINISHED:
            return None
        best = max(pub["coins"])
        winners = tuple(i for i, c in enumerate(pub["coins"]) if c == best)
        if len(winners) == 1:
            return Outcome("win", winners, reason=R("wins", seat=winners[0], n=best))
        return Outcome("tie", winners, reason=R("share_win", seats=list(winners), n=best))

    # 4. reading it: the default view is enough. A seat sees config, public (the virtual
    # players' cards, the shown cards, who covered what), its own private part (hand, pick,
    # the face-down card it laid) and the log entries visible to it; the GM's view adds
    # `secret["cards"]`, the true card at every place.
