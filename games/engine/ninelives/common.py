"""猫有n条命: what the night and the day resolutions share — losing cards (§5.8, §6),
deaths, the reorder windows (§6.3), fouls (§9.1) and the victory test (§10).

Every function here takes a state the caller owns (a fresh deep copy) and a list of new
events, and changes both in place. Events explain themselves with reasons of the rule set's
table (reasons.py), never with sentences.

Interpretations made here (docs/rules/ninelives.md lists them all):
    §5.8   A loss takes the first card of the seat's loss order at the moment it is
           announced; the public learns only that card's camp, the seat learns the card,
           the GM learns the card and the whole chain of causes.
    §6.3   The total that opens a reorder window counts announced losses only: the BOMB a
           bomber spends (§3.4.7, never announced) and the cards of a fouled-out seat do not
           count. When one resolution crosses both 8 and 16, a single window opens.
    §7.2   A seat whose last card is lost is dead at once and its camp is announced.
    §10.4  A draw between two seats: neither holds a usable card that could cost the other
           a card (an attack card, an unused STRIKE, BOMB, CURSE, BLESS, SOULBINDER or
           WITCH_DOCTOR). Prize: every seat of a camp that had a living seat when the final
           phase began shares it, alive or dead.
"""

from __future__ import annotations

from ..base import Outcome, State, emit, gm_only, make_event, public, seats
from .cards import CIVILIAN_CAMP, KILLER_CAMP, SEAT_CAMPS, WOLF_CAMP, camp_of
from .dealing import free_agent_camps
from .reasons import R, phase_of, ref

NIGHT = "night"
DAY = "day"
RUNOFF = "runoff"
OVER = "over"

REORDER_AFTER = (8, 16)                     # §6.3: total cards lost that open a window
# The `reason` of the `foul_out` event of a seat that neither voted nor sent a proxy vote
# (§9.1.5); a GM's foul carries the GM's own words.
SILENT = "no vote and no proxy vote"

# Cards that let one of two last seats cost the other a card (§10.4 draw test).
PRESSURE_CARDS = ("KILLER", "WEREWOLF", "SNIPER", "STRIKE", "BOMB", "CURSE", "BLESS",
                  "SOULBINDER", "WITCH_DOCTOR")


def alive_seats(state: State) -> list[int]:
    return [i for i, a in enumerate(state["public"]["alive"]) if a]


def usable_cards(private: dict) -> list[str]:
    """Cards in the hand that are not dead cards (§3.4.4, §3.4.6, §3.4.10)."""
    return [c for c in private["hand"] if c not in private["dead_cards"]]


# --- losing cards and dying --------------------------------------------------------------

def lose_card(state: State, events: list, seat: int, *, cause: str, public_because: list[dict],
              gm_because: list[dict]) -> str | None:
    """Take one card from `seat` for `cause`; return the card, or None if nothing was lost.

    `public_because` explains the loss to everyone (and to the seat), `gm_because` to the GM:
    lists of reasons, to which the loss's own reasons are added.

    1. A dead seat (or one with no card left) loses nothing; the GM is told why.
    2. The first card of the loss order goes (the hand order if no order was ever set).
    3. Three events: the public one names the card's camp only (§5.8), the private one names
       the card, the GM-only one carries the whole chain of causes.
    4. A seat left without cards is dead (§5.8).
    """
    pub, priv = state["public"], state["private"][seat]
    if not pub["alive"][seat] or not priv["hand"]:
        emit(state, events, make_event(
            "loss_explained", gm_only(), because=gm_because + [
                R("nothing_left_to_lose", seat=seat)],
            seat=seat, card=None, cause=cause))
        return None
    order = priv["loss_order"] or priv["hand"]
    card = order[0]
    priv["hand"] = [c for c in priv["hand"] if c != card]
    if priv["loss_order"]:
        priv["loss_order"] = [c for c in priv["loss_order"] if c != card]
    priv["dead_cards"] = [c for c in priv["dead_cards"] if c != card]
    camp = camp_of(card)
    pub["lost"][seat].append(camp)
    pub["total_lost"] += 1
    emit(state, events, make_event(
        "card_lost", public(), because=public_because + [
            R("camp_announced", seat=seat, camp=camp, ref=ref("5.8"))],
        seat=seat, camp=camp, cause=cause))
    emit(state, events, make_event(
        "own_card_lost", seats(seat), because=public_because + [
            R("first_of_loss_order", card=card, ref=ref("6"))],
        seat=seat, card=card, camp=camp, cause=cause))
    emit(state, events, make_event(
        "loss_explained", gm_only(), because=gm_because + [
            R("loses_first_card", seat=seat, card=card, camp=camp)],
        seat=seat, card=card, camp=camp, cause=cause))
    if not priv["hand"]:
        die(state, events, seat, cause="no_cards",
            because=[R("lost_last_card", seat=seat, ref=ref("5.8"))])
    return card


def die(state: State, events: list, seat: int, *, cause: str, because: list[dict]) -> None:
    """Mark `seat` dead and announce it with its camp (§5.8; §7.2: the dead are known)."""
    state["public"]["alive"][seat] = False
    priv = state["private"][seat]
    priv["action"] = None
    priv["proxy"] = None
    emit(state, events, make_event("seat_died", public(), because=because,
                                   seat=seat, camp=priv["camp"], cause=cause))


def foul_out(state: State, events: list, seat: int, *, reason: str, because: list[dict],
             out: dict) -> None:
    """A seat leaves the game for a foul (§9.1): its cards are gone, it counts as dead.

    `reason` is the foul as the event states it (the GM's words, or SILENT); `because`
    explains the foul, `out` (a reason) the death it makes.
    The cards are not "lost" in the §5.8 sense: they are not announced one by one and do not
    count toward the reorder windows.
    """
    priv = state["private"][seat]
    emit(state, events, make_event(
        "foul_out", public(), because=because, seat=seat, reason=reason))
    emit(state, events, make_event(
        "foul_out_cards", gm_only(),
        because=[R("still_held", seat=seat, cards=list(priv["hand"]))],
        seat=seat, cards=list(priv["hand"])))
    priv["hand"] = []
    priv["loss_order"] = [] if priv["loss_order"] is not None else None
    priv["dead_cards"] = []
    die(state, events, seat, cause="foul_out", because=[out])


def spend_used_cards(state: State, events: list, *, strikers: list[int],
                     bombers: list[int]) -> None:
    """The STRIKEs and BOMBs used in the phase now ending are spent before any loss of that
    phase is taken, by night and by day alike (§3.4.6, §3.4.7).

    1. Each STRIKE becomes a dead card of its user (§3.4.6).
    2. Each BOMB leaves its user's hand (`spend_bomb`): a used BOMB is gone, so a loss
       taken later in the same phase (a STRIKE on the bomber, the day's execution) takes
       the next card of the loss order, never the BOMB already spent.
    """
    for seat in strikers:
        state["private"][seat]["dead_cards"].append("STRIKE")
    for seat in bombers:
        spend_bomb(state, events, seat)


def spend_bomb(state: State, events: list, seat: int) -> None:
    """The BOMB leaves its user's hand when it goes off, unannounced (§3.4.7)."""
    priv = state["private"][seat]
    priv["hand"] = [c for c in priv["hand"] if c != "BOMB"]
    if priv["loss_order"] is not None:
        priv["loss_order"] = [c for c in priv["loss_order"] if c != "BOMB"]
        if priv["core_card"] == "BOMB" and priv["loss_order"]:
            priv["core_card"] = priv["loss_order"][-1]
    emit(state, events, make_event("bomb_spent", seats(seat), because=[
        R("bomb_gone", card="BOMB", ref=ref("3.4.7"))], seat=seat))
    if not priv["hand"]:
        die(state, events, seat, cause="no_cards",
            because=[R("no_card_left", seat=seat, ref=ref("5.8"))])


# --- reorder windows (§6.3) ----------------------------------------------------------------

def open_reorder_window(state: State, events: list, next_phase: dict) -> None:
    """Open a window for the phase `next_phase` if the total crossed 8 or 16 (§6.3)."""
    pub = state["public"]
    opened = pub["windows_opened"]
    crossed = []
    while opened < len(REORDER_AFTER) and pub["total_lost"] >= REORDER_AFTER[opened]:
        crossed.append(REORDER_AFTER[opened])
        opened += 1
    if not crossed:
        return
    pub["windows_opened"] = opened
    pub["reorder"] = {"window": opened, "phase": dict(next_phase)}
    emit(state, events, make_event(
        "reorder_window", public(), because=[
            R("losses_reached", n=pub["total_lost"], marks=crossed, ref=ref("6.3")),
            R("reorder_open", phase=phase_of(next_phase), ref=ref("6.2"))],
        window=opened, total_lost=pub["total_lost"], until=dict(next_phase)))


# --- victory (§10) ---------------------------------------------------------------------------

def can_pressure(private: dict) -> bool:
    """Whether a seat holds a usable card that could cost another seat a card (§10.4)."""
    return any(c in PRESSURE_CARDS for c in usable_cards(private))


def seats_of_camps(state: State, camps: set[str]) -> list[int]:
    return [i for i, p in enumerate(state["private"]) if p["camp"] in camps]


def decide_outcome(state: State) -> Outcome | None:
    """The §10 result for the living seats now, or None while the game goes on.

    1. Nobody alive: a draw (§10.4).
    2. No killer or wolf seat alive: the civilians win, all of them, alive or dead (§10.1).
    3. One seat alive (a killer or a wolf, by 2): it wins alone (§10.2, §10.3).
    4. Two seats alive and neither can cost the other a card: a draw (§10.4).
    In a draw the prize goes to every seat of a camp that had a living seat when the final
    phase began (state["public"]["phase_alive"]).
    """
    alive = alive_seats(state)
    camps = [p["camp"] for p in state["private"]]
    start_camps = {camps[s] for s in state["public"]["phase_alive"]}
    draw_winners = tuple(seats_of_camps(state, start_camps))
    if not alive:
        return Outcome("draw", draw_winners, reason=R("all_dead_draw", ref=ref("10.4")))
    if not any(camps[s] in (KILLER_CAMP, WOLF_CAMP) for s in alive):
        return Outcome(CIVILIAN_CAMP, tuple(seats_of_camps(state, {CIVILIAN_CAMP})),
                       reason=R("civilians_win", ref=ref("10.1")))
    if len(alive) == 1:
        seat = alive[0]
        return Outcome(camps[seat], (seat,), reason=R(
            "last_seat_wins", seat=seat, camp=camps[seat], ref=ref("10.2", "10.3")))
    if len(alive) == 2 and not any(can_pressure(state["private"][s]) for s in alive):
        return Outcome("draw", draw_winners, reason=R(
            "stalemate_draw", seats=sorted(alive), ref=ref("10.4")))
    return None


def check_victory(state: State, events: list) -> bool:
    """Record the outcome and reveal the whole game if it is over; return whether it is."""
    result = decide_outcome(state)
    if result is None:
        return False
    pub = state["public"]
    pub["outcome"] = {"result": result.result, "winners": list(result.winners),
                      "reason": result.reason}
    pub["phase"] = {"name": OVER, "number": pub["phase"]["number"]}
    pub["reorder"] = None
    # §3.5.1: the taints stay secret until the game ends; now everything is public.
    pub["reveal"] = {
        "camps": [p["camp"] for p in state["private"]],
        "hands": [list(p["hand"]) for p in state["private"]],
        "taints": {k: list(v) for k, v in state["secret"]["taints"].items()},
        "deal": state["secret"]["deal"],
    }
    emit(state, events, make_event(
        "game_over", public(), because=[result.reason],
        result=result.result, winners=list(result.winners), reveal=pub["reveal"]))
    return True


def camp_options(hand: list[str]) -> list[str]:
    """The camps a free agent holding `hand` may choose (§2, with the dealer's §4 reading:
    a camp of a card it holds, whose §4 limits its hand keeps)."""
    return [c for c in SEAT_CAMPS if c in free_agent_camps(list(hand), 6)]

