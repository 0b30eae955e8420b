"""The day: last words, speeches, the vote and its tie stages (seed 001 §3.13-§3.19, §4.5),
with the guardians' protection against a vote (seed 003 guardian, dual guardians).

The day is a queue of one-seat slots. A speaker closes its speech with `speak` (the "过"
marker); a voter casts `vote` or `abstain`. The seat then owes nothing, the service sees
nobody awaited and ends the slot with the clock's `end_phase`, which also skips a silent
speaker or counts a silent voter as abstaining when the slot's time runs out.

Tie stages (`public["stage"]`):
  0. everyone living speaks, from the seat after the night's first dead, then votes in the
     same order for any living seat but themselves;
  1. after a tie: the tied seats speak again, then the others vote among the tied;
  2. after a second tie: the others speak, then vote among the seats still tied;
  a third tie eliminates nobody (seed 001 §4.5, see docs/rules/classic.md).
"""

from __future__ import annotations

from collections import Counter

from ..base import public
from . import roles as R
from .common import (
    GUARDED_VOTE,
    TIE_PAIR,
    VOTED_OUT,
    active_guardians,
    enter_night,
    finish_if_over,
    is_alive,
    kill_seat,
    last_words_reason,
    living,
    n_seats,
    note,
    record_deaths,
    reveal_label,
    role_of,
)
from .reasons import R as why

# Why the speeches of each stage open: every living player speaks in seat order from the
# seat after the night's first dead (seed 001 §3.15); after a tie, the tied seats speak
# again (§4.5); after a second tie, the others speak (§4.5).
STAGE_WHY = {
    0: ("speeches_open", "3.15"),
    1: ("tie_speeches", "4.5"),
    2: ("tie_speeches_again", "4.5"),
}


def day_order(state: dict, start_after: int | None) -> list[int]:
    """Living seats in seat order, starting with the seat after `start_after` (or seat 1)."""
    n = n_seats(state)
    start = 0 if start_after is None else (start_after + 1) % n
    return [s for s in ((start + i) % n for i in range(n)) if is_alive(state, s)]


def begin_day(state: dict, events: list) -> None:
    """After the night (and any extra check): last words of the night's dead, then speeches."""
    pub = state["public"]
    night_deaths = pub["night_deaths"]
    pub["order"] = day_order(state, min(night_deaths) if night_deaths else None)
    pub.update(stage=0, tied=[], votes=[], candidates=[])
    if pub["last_words_due"]:
        enter_last_words(state, events, pub["last_words_due"], then="speech")
    else:
        enter_speech(state, events)


def enter_last_words(state: dict, events: list, due: list[int], *, then: str) -> None:
    pub = state["public"]
    pub.update(phase="last_words", last_words_due=sorted(due), last_words_given=[],
               last_words_then=then, queue=[], turn=0, done=False)
    pub["slot"] += 1


def end_last_words(state: dict, events: list) -> None:
    pub = state["public"]
    silent = [s for s in pub["last_words_due"] if s not in pub["last_words_given"]]
    if silent:
        note(state, events, "last_words_skipped", public(),
             [why("no_last_words_left", seats=silent)], seats=silent)
    then = pub["last_words_then"]
    pub.update(last_words_due=[], last_words_given=[])
    if then == "speech":
        enter_speech(state, events)
    else:
        enter_night(state, events, pub["number"] + 1)


def speakers(state: dict) -> list[int]:
    pub = state["public"]
    order = [s for s in pub["order"] if is_alive(state, s)]
    if pub["stage"] == 1:
        return [s for s in order if s in pub["tied"]]
    if pub["stage"] == 2:
        return [s for s in order if s not in pub["tied"]]
    return order


def voters(state: dict) -> list[int]:
    pub = state["public"]
    order = [s for s in pub["order"] if is_alive(state, s)]
    if pub["stage"] == 0:
        return order
    return [s for s in order if s not in pub["tied"]]


def enter_speech(state: dict, events: list) -> None:
    pub = state["public"]
    queue = speakers(state)
    pub.update(phase="speech" if pub["stage"] == 0 else "tie_speech", queue=queue, turn=0,
               done=False, votes=[], candidates=[])
    pub["slot"] += 1
    code, ref = STAGE_WHY[pub["stage"]]
    note(state, events, "speeches_open", public(), [why(code, ref=[ref])],
         stage=pub["stage"], order=queue)
    if not queue:
        enter_vote(state, events)


def end_speech_slot(state: dict, events: list) -> None:
    pub = state["public"]
    if not pub["done"]:
        speaker = pub["queue"][pub["turn"]]
        note(state, events, "speech_skipped", public(), [why("speech_skipped", seat=speaker)],
             seat=speaker)
    pub["turn"] += 1
    pub["done"] = False
    pub["slot"] += 1
    if pub["turn"] >= len(pub["queue"]):
        enter_vote(state, events)


def enter_vote(state: dict, events: list) -> None:
    pub = state["public"]
    queue = voters(state)
    candidates = living(state) if pub["stage"] == 0 else list(pub["tied"])
    pub.update(phase="vote" if pub["stage"] == 0 else "tie_vote", queue=queue, turn=0,
               done=False, votes=[], candidates=candidates)
    pub["slot"] += 1
    because = [why("vote_follows", ref=["3.16"])]
    if pub["stage"]:
        because.append(why("only_candidates", seats=sorted(candidates), ref=["4.5"]))
    note(state, events, "vote_opens", public(), because, stage=pub["stage"], order=queue,
         candidates=candidates)
    if not queue:
        tally(state, events)


def end_vote_slot(state: dict, events: list) -> None:
    pub = state["public"]
    if not pub["done"]:
        voter = pub["queue"][pub["turn"]]
        pub["votes"].append([voter, None])
        note(state, events, "abstained", public(), [why("silent_voter", seat=voter)],
             voter=voter, silent=True)
    pub["turn"] += 1
    pub["done"] = False
    pub["slot"] += 1
    if pub["turn"] >= len(pub["queue"]):
        tally(state, events)


def guardian_pair(state: dict, top: list[int]) -> tuple[int, int] | None:
    """(guardian, protégé) if the two seats tied at the top are a guardian and the seat it
    effectively protects this round (seed 003 guardian rule 4)."""
    if len(top) != 2:
        return None
    secret = state["secret"]
    for g, other in (top, top[::-1]):
        if g in active_guardians(state) and secret["protecting"][g] == other and \
                R.protection_works(role_of(state, g), role_of(state, other),
                                   target_lapsed=other in secret["lapsed"]):
            return g, other
    return None


def tally(state: dict, events: list) -> None:
    """Count the votes of the current stage and decide the day.

    1. Count the votes for each candidate; abstentions count for nobody.
    2. In stage 0, no vote at all eliminates nobody; in a tie stage every candidate is
       already tied, so no vote leaves them all tied.
    3. One seat with the most votes is eliminated (`eliminate`).
    4. A tie between exactly a guardian and its protégé kills both (seed 003 guardian
       rule 4).
    5. Any other tie moves to the next tie stage; the third tie eliminates nobody.
    """
    pub = state["public"]
    stage, cands = pub["stage"], pub["candidates"]
    counts = Counter(t for _, t in pub["votes"] if t is not None)
    per_seat = [[c, counts[c]] for c in cands if counts.get(c)]
    because = [why("votes_per_seat", tally=per_seat) if per_seat else why("no_votes_cast")]
    if not counts and stage == 0:
        note(state, events, "vote_result", public(), [*because, why("nobody_voted")],
             stage=stage, eliminated=[], tied=[])
        return after_verdict(state, events, [])
    if counts:
        top_n = max(counts.values())
        top = sorted(c for c in cands if counts.get(c, 0) == top_n)
    else:
        top = sorted(cands)
    if len(top) == 1:
        note(state, events, "vote_result", public(),
             [*because, why("most_votes", seat=top[0], ref=["3.17"])],
             stage=stage, eliminated=top, tied=[])
        return after_verdict(state, events, eliminate(state, events, top[0]))
    pair = guardian_pair(state, top)
    if pair:
        for s in pair:
            kill_seat(state, s, TIE_PAIR)
        note(state, events, "vote_result", public(),
             [*because, why("guardian_pair_tie", seats=top, ref=["guardian 4"])],
             stage=stage, eliminated=sorted(pair), tied=top)
        return after_verdict(state, events, sorted(pair))
    if stage < 2:
        note(state, events, "vote_result", public(),
             [*because, why("tied_at_top", seats=top, ref=["4.5"])],
             stage=stage, eliminated=[], tied=top)
        pub["stage"] = stage + 1
        pub["tied"] = top
        return enter_speech(state, events)
    # seed 001 §4.5, read as a day without elimination (docs/rules/classic.md)
    note(state, events, "vote_result", public(),
         [*because, why("third_tie", seats=top, ref=["4.5"])],
         stage=stage, eliminated=[], tied=top)
    return after_verdict(state, events, [])


def eliminate(state: dict, events: list, seat: int) -> list[int]:
    """The seat voted out dies, unless guardians effectively protect it this round: then each
    of them dies in its place (seed 003 guardian; dual guardians §5). Returns the dead."""
    secret = state["secret"]
    savers = [g for g in active_guardians(state) if secret["protecting"][g] == seat
              and R.protection_works(role_of(state, g), role_of(state, seat),
                                     target_lapsed=seat in secret["lapsed"])]
    if savers:
        for g in savers:
            kill_seat(state, g, GUARDED_VOTE)
        return savers
    kill_seat(state, seat, VOTED_OUT)
    return [seat]


def after_verdict(state: dict, events: list, dead: list[int]) -> None:
    """Announce the day's deaths, check victory, then last words or the next night."""
    pub = state["public"]
    if dead:
        due = record_deaths(state, dead)
        causes = {d["seat"]: d["cause"] for d in state["secret"]["deaths"][-len(dead):]}
        entries = []
        because = []
        for s in sorted(dead):
            label = reveal_label(state, s, causes[s])
            pub["revealed"][s] = label
            entries.append({"seat": s, "label": label, "last_words": s in due})
            because.append(why("died_for_voted_out", seat=s, role=label, ref=["guardian"])
                           if causes[s] == GUARDED_VOTE else why("died_as", seat=s, role=label))
        if due:
            because.append(last_words_reason(due, pub["last_words_limit"]))
        note(state, events, "verdict", public(), because, deaths=entries)
        if finish_if_over(state, events):
            return
        if due:
            return enter_last_words(state, events, due, then="night")
    enter_night(state, events, pub["number"] + 1)

