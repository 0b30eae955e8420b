"""State helpers shared by the night and the day: seats, teams, deaths, reveals, victory,
and the frame of a night (seed 001 §3.3 the night falls, §3.13 deaths announced with
identities, §3.19 last words for the first N deaths, §4 victory and §4.3 all civilians dead;
seed 003 what a death reveals under the variants, victory A-D).

Every function here works in place on a state the caller owns (a deep copy made by
`Classic.apply` / `Classic.end_phase`, or the simulation's private copy) and appends its
events to `events` through `note`.
"""

from __future__ import annotations

from ..base import emit, gm_only, make_event, public, seats
from . import roles as R
from .reasons import R as why


def seat_name(seat: int) -> str:
    """Seats are numbered from 1 in every readable text (the plain labels of the choices)."""
    return f"seat {seat + 1}"


def note(state: dict, events: list, kind: str, visibility: dict, because: list[dict],
         **data) -> dict:
    """Emit an event explained by `because`, a list of reasons of the rule set's table
    (games/engine/classic/reasons.py)."""
    return emit(state, events, make_event(kind, visibility, because=because, **data))


# --- who is who ------------------------------------------------------------------------------

def n_seats(state: dict) -> int:
    return len(state["private"])


def role_of(state: dict, seat: int) -> str:
    return state["secret"]["roles"][seat]


def is_alive(state: dict, seat: int) -> bool:
    return state["public"]["alive"][seat]


def living(state: dict) -> list[int]:
    return [s for s, a in enumerate(state["public"]["alive"]) if a]


def living_with_role(state: dict, role: str) -> list[int]:
    roles = state["secret"]["roles"]
    return [s for s in living(state) if roles[s] == role]


def is_lapsed(state: dict, seat: int) -> bool:
    return seat in state["secret"]["lapsed"]


def active_guardians(state: dict) -> list[int]:
    """Living guardians whose protection still works (a lapsed police guardian has none)."""
    roles = state["secret"]["roles"]
    return [s for s in living(state) if roles[s] in R.GUARDIANS and not is_lapsed(state, s)]


def team_visibility(state: dict, role: str) -> dict:
    """A team event: the living police (or bandits) see it, and the GM."""
    return seats(*living_with_role(state, role))


def public_label(state: dict, seat: int) -> str:
    """What an announcement that reveals `seat` says: the ghost shows as a plain bandit
    (seed 003 ghost rule 5), a possessed seat as a possessed bandit (rules 6 and 4)."""
    role = role_of(state, seat)
    if role == R.BANDIT and seat in state["secret"]["possessed"]:
        return R.POSSESSED_BANDIT
    return role


def final_label(state: dict, seat: int) -> str:
    """The full truth shown once the game is over, the ghost included."""
    if seat == state["secret"]["ghost"]:
        return R.GHOST
    return public_label(state, seat)


# --- deaths ----------------------------------------------------------------------------------

# Causes of death, recorded in the GM's log.
KILLED = "killed"                  # the bandits' victim
GUARDED_KILL = "guarded_kill"      # a guardian dying in place of the bandits' victim
PACT = "pact"                      # the bandit named in the death pact, dying with the poison
POSSESSION = "possession"          # the ghost and the poison it possessed
DERELICTION = "dereliction"        # a guardian that skipped twice or had nobody to protect
VOTED_OUT = "voted_out"
GUARDED_VOTE = "guarded_vote"      # a guardian dying in place of the seat voted out
TIE_PAIR = "tie_pair"              # a guardian and its protégé tied at the top of a vote

def reveal_label(state: dict, seat: int, cause: str) -> str | None:
    """The label a death announcement gives `seat`, or None when it stays hidden.

    1. Deaths by the death pact or by possession of the poison hide every identity
       (seed 003, minor rule 3).
    2. A dual guardian that dies at night, in place of a victim or directly, is not revealed
       (dual §4: the in-place death hides it, so the direct one must too or the silence
       would tell the cause).
    3. A guardian dying in place of a voted-out seat, or of dereliction, shows only as
       "guardian" (dual §4); a single guardian is a "guardian" anyway.
    4. Everything else shows the public label (plain bandit for the ghost, possessed bandit
       for a possessed seat).
    """
    role = role_of(state, seat)
    if cause in (PACT, POSSESSION):
        return None
    if cause == KILLED and role == R.POISON:
        return None  # the poison's pair death is announced as a pair (step 1)
    if cause in (KILLED, GUARDED_KILL) and role in (R.POLICE_GUARDIAN, R.BANDIT_GUARDIAN):
        return None
    if cause in (GUARDED_VOTE, DERELICTION):
        return R.GUARDIAN
    return public_label(state, seat)


def kill_seat(state: dict, seat: int, cause: str) -> None:
    """Mark `seat` dead and record the true cause (GM-only data in `secret`)."""
    state["public"]["alive"][seat] = False
    state["secret"]["deaths"].append({"seat": seat, "cause": cause,
                                      "phase": state["public"]["phase"],
                                      "number": state["public"]["number"]})


def record_deaths(state: dict, dead: list[int]) -> list[int]:
    """Number the new deaths (in seat order within one announcement) and return those who
    still leave last words: the first N deaths of the game, N = the police count
    (seed 001 §3.19), unless these deaths end the game: then nobody (I13: no last words
    follow the end, so the announcement promises none).

    Precondition: the deaths are already marked (`kill_seat`)."""
    pub = state["public"]
    due = []
    for seat in sorted(dead):
        pub["death_order"].append(seat)
        if len(pub["death_order"]) <= pub["last_words_limit"]:
            due.append(seat)
    return [] if victory(state) is not None else due


def last_words_reason(due: list[int], limit: int) -> dict:
    """Why `due` (seats in order) leave last words: the first `limit` deaths of the game do
    (seed 001 §3.19)."""
    if len(due) == 1:
        return why("last_words_due_one", seat=due[0], n=limit, ref=["3.19"])
    return why("last_words_due", seats=list(due), n=limit, ref=["3.19"])


# --- victory ---------------------------------------------------------------------------------

def victory(state: dict) -> tuple[str, list[dict]] | None:
    """The result if the game is over now, with the reasons, else None.

    1. Count the living police, bandits (the possessed included) and civilians (a lapsed
       police guardian included), as `roles.counts_as` defines them.
    2. No bandit left: the police side wins (seed 001 §4.1; seed 003 5A).
    3. No police left: the bandits win (seed 001 §4.2; seed 003 5B, 5C: the poison does not
       count as police).
    4. No civilian left: a draw (seed 001 §4.3) or a bandit win (seed 003 5B), per the
       game's `all_civilians_dead` option.
    5. When two different results hold at once, the game is a draw (seed 003 5D, which
       names the case of the last police and the last bandit dying together).
    The last reason of the list is the one that decided the result (`finish_if_over`).
    """
    counts = {R.POLICE: 0, R.BANDIT: 0, R.CIVILIAN: 0}
    secret = state["secret"]
    for s in living(state):
        group = R.counts_as(secret["roles"][s], lapsed=s in secret["lapsed"])
        if group:
            counts[group] += 1
    results: dict[str, dict] = {}
    if counts[R.BANDIT] == 0:
        results[R.POLICE_WIN] = why("every_bandit_dead", ref=["4.1"])
    if counts[R.POLICE] == 0:
        results.setdefault(R.BANDIT_WIN, why("every_police_dead", ref=["4.2"]))
    if counts[R.CIVILIAN] == 0:
        rule = state["public"]["all_civilians_dead"]
        reason = (why("every_civilian_dead_draw", ref=["4.3"]) if rule == R.DRAW else
                  why("every_civilian_dead_bandit_win", ref=["minor 5B"]))
        results.setdefault(rule, reason)
    if not results:
        return None
    if len(results) == 1:
        (result, reason), = results.items()
        return result, [reason]
    return R.DRAW, [*results.values(), why("two_results", ref=["minor 5D"])]


def finish_if_over(state: dict, events: list) -> bool:
    """End the game if a side has won: record the outcome (its reason: the victory reason
    that decided it) and reveal every seat."""
    found = victory(state)
    if found is None:
        return False
    result, reasons = found
    roles = state["secret"]["roles"]
    winners = [s for s in range(n_seats(state)) if R.winning_side(roles[s], result)]
    pub = state["public"]
    pub["phase"] = "over"
    pub["slot"] += 1
    pub["outcome"] = {"result": result, "winners": winners, "reason": reasons[-1]}
    pub["final_roles"] = [final_label(state, s) for s in range(n_seats(state))]
    note(state, events, "game_over", public(), reasons, result=result, winners=winners,
         reason=reasons[-1], roles=pub["final_roles"])
    return True


def gm_note(state: dict, events: list, kind: str, because: list[dict], **data) -> dict:
    return note(state, events, kind, gm_only(), because, **data)


# --- the night's frame (the day ends into it, the night fills it) -------------------------

def new_night(seats_count: int) -> dict:
    """Empty submissions for one night. Per seat: None = silent so far."""
    return {
        "kill": [None] * seats_count,     # "defer" or [target, pact-or-None]
        "check": [None] * seats_count,    # "defer" or target
        "protect": [None] * seats_count,  # "skip" or target
        "possess": None,                  # the ghost's target
        "extra": [None] * seats_count,    # the extra check after checking the poison
        "extra_due": False,
    }


def enter_night(state: dict, events: list, number: int) -> None:
    pub = state["public"]
    pub.update(phase="night", number=number, queue=[], turn=0, done=False, stage=0,
               candidates=[], votes=[], tied=[], last_words_due=[], last_words_given=[])
    pub["slot"] += 1
    state["secret"]["night"] = new_night(len(state["private"]))
    for s in range(len(state["private"])):
        state["private"][s]["choice"] = None
    note(state, events, "night_falls", public(),
         [why("night_begins", n=number, ref=["3.3-3.11"])], number=number)
