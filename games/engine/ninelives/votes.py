"""猫有n条命: the end of a day vote or of a runoff (§8, §3.4.6-§3.4.10, §9.1.5).

The end of day N (or of its runoff), step by step:
    1. Day card uses are recorded for the one-card-per-round rule (§3.5.3).
    2. A BOMB used today voids its target's vote (§3.4.7): it changes the count, so it
       resolves before it. The bombed seat owes no runoff vote either.
    3. Proxy votes are published and counted after all others; a proxy of a seat that
       voted in person is void (§8.3).
    4. A seat that owed a vote and sent neither vote nor proxy is out (§8.3, §9.1.5).
    5. The count: one vote per valid voter, then +1 per CURSE and -1 per BLESS aimed at a
       seat for day N (used last night or today). Not in a runoff (§8.2).
    6. STRIKE and BOMB used in this phase cost their targets a card (§3.4.6, §3.4.7). As
       at night, the cards are spent first: a bomber struck (or executed) the same day
       loses the card after its spent BOMB, never the BOMB itself.
    7. The result, among seats still alive: a single top seat (with more than 0) is
       executed; a tie opens a runoff among the tied seats (one left: executed; none: no
       execution); a tie in the runoff means no execution (§8.2).
    8. An execution that can be pardoned waits for the end of night N+1 (§8.1). One that
       cannot — the seat was already pardoned once, or it is an armed SAINT — costs the card
       at once; an executed SAINT also costs each seat that voted for it a card (§3.4.10).
    9. Deaths, a reorder window for the next phase, victory; then the runoff or night N+1.

Each step is a function of its own, called by `end_vote` in this order: 1
`record_day_uses`, 2 (the bombed seats), 3 `publish_proxies`, 4 `foul_out_silent`,
5 `count_votes`, 6 `strike_and_bomb`, 7 and 8 `announce_result` (with `execute`),
9 `open_next_phase`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..base import State, emit, gm_only, make_event, public, seats
from .common import (
    DAY,
    NIGHT,
    RUNOFF,
    SILENT,
    alive_seats,
    check_victory,
    foul_out,
    lose_card,
    open_reorder_window,
    spend_used_cards,
)
from .reasons import R, phase_of, ref, use


def end_vote(state: State, events: list) -> None:
    """Resolve day N or its runoff (steps 1-9 above) and open the next phase.

    Precondition: `state` is the caller's own copy and its phase is a day or a runoff. Each
    step is a function of its own below, called in this order.
    """
    close_vote(state, events)
    acts = record_day_uses(state)                                   # 1
    bombed = {a["target"] for _, a in sorted(acts.items()) if a["card"] == "BOMB"}  # 2
    votes = publish_proxies(state, events)                          # 3
    foul_out_silent(state, events, votes)                           # 4
    count = count_votes(state, events, votes, bombed, acts)         # 5
    strike_and_bomb(state, events, acts)                            # 6
    next_phase, candidates = announce_result(state, events, count)  # 7, 8
    open_next_phase(state, events, next_phase, candidates, bombed)  # 9


def vote_of(state: State) -> dict:
    """The day or runoff now ending, as a PHASE argument."""
    return phase_of(state["public"]["phase"])


def close_vote(state: State, events: list) -> None:
    """The phase's reorder window (if any) closes; the vote is announced as closed."""
    pub = state["public"]
    if pub["reorder"] and pub["reorder"]["phase"] == pub["phase"]:
        pub["reorder"] = None
    emit(state, events, make_event("phase_ended", public(), because=[
        R("vote_over", phase=vote_of(state), ref=ref("8"))], phase=dict(pub["phase"])))


def record_day_uses(state: State) -> dict[int, dict]:
    """Step 1: {seat: card use} of this phase, recorded for the one-card rule (§3.5.3)."""
    n = state["public"]["phase"]["number"]
    acts: dict[int, dict] = {}
    for seat in alive_seats(state):
        action = state["private"][seat]["action"]
        if action and "card" in action:
            acts[seat] = action
            uses = state["private"][seat]["uses"].setdefault(str(n), [])
            if DAY not in uses:
                uses.append(DAY)
    return acts


def publish_proxies(state: State, events: list) -> dict[int, int]:
    """Step 3: {voter: target} with the proxy votes of seats that did not vote in person
    published and counted after all others (§8.3)."""
    pub = state["public"]
    runoff = pub["phase"]["name"] == RUNOFF
    votes = {int(k): v for k, v in pub["votes"].items()}
    for seat in alive_seats(state):
        proxy = state["private"][seat]["proxy"]
        if proxy is not None and seat not in votes and seat not in pub["no_vote"]:
            votes[seat] = proxy
            emit(state, events, make_event("proxy_vote_published", public(), because=[
                R("proxy_cast", seat=seat, target=proxy, ref=ref("8.3"))],
                seat=seat, target=proxy, runoff=runoff))
    return votes


def foul_out_silent(state: State, events: list, votes: dict[int, int]) -> None:
    """Step 4: a seat that owed a vote and sent neither vote nor proxy is out (§9.1.5)."""
    pub, here = state["public"], vote_of(state)
    for seat in alive_seats(state):
        if seat not in pub["no_vote"] and seat not in votes:
            foul_out(state, events, seat, reason=SILENT, because=[
                R("silent", seat=seat, phase=here, ref=ref("8.3", "9.1.5"))],
                out=R("out_for_silence", seat=seat, ref=ref("9.1")))


@dataclass
class Count:
    """Step 5's result: the votes that count, the tally (seats with a non-zero total), the
    GM's chain of reasons and the CURSE/BLESS adjustments."""

    counted: dict[int, int]
    tally: dict[int, int]
    chain: list[dict]
    adjustments: list[dict]


def count_votes(state: State, events: list, votes: dict[int, int], bombed: set[int],
                acts: dict[int, dict]) -> Count:
    """Step 5: one vote per voter a BOMB did not hit, then (not in a runoff, §8.2) +1 per
    CURSE and -1 per BLESS aimed at a seat for today (§3.4.8, §3.4.9)."""
    pub, secret = state["public"], state["secret"]
    n, runoff = pub["phase"]["number"], pub["phase"]["name"] == RUNOFF
    counted = {}
    for voter, target in sorted(votes.items()):
        if voter in bombed:
            emit(state, events, make_event("vote_void", public(), because=[
                R("vote_void_bomb", seat=voter, card="BOMB", ref=ref("3.4.7"))], seat=voter))
        else:
            counted[voter] = target
    tally = {s: 0 for s in alive_seats(state)}
    chain = [R("voted_for", seat=v, target=t) for v, t in counted.items()]
    for target in counted.values():
        if target in tally:
            tally[target] += 1
    adjustments = []
    if not runoff:
        effects = [e for e in secret["count_effects"] if e["day"] == n]
        effects += [{"card": a["card"], "seat": s, "target": a["target"], "day": n}
                    for s, a in sorted(acts.items()) if a["card"] in ("CURSE", "BLESS")]
        for e in effects:
            if e["target"] in tally:
                delta = 1 if e["card"] == "CURSE" else -1
                tally[e["target"]] += delta
                adjustments.append({"target": e["target"], "delta": delta})
                chain.append(R("count_effect", use=use(e["seat"], e["card"]), delta=delta,
                               target=e["target"], ref=ref("3.4.8", "3.4.9")))
        secret["count_effects"] = [e for e in secret["count_effects"] if e["day"] > n]
    tally = {s: v for s, v in tally.items() if v != 0}
    emit(state, events, make_event("count", gm_only(), because=chain or [R("nobody_voted")],
                                   tally={str(k): v for k, v in tally.items()},
                                   runoff=runoff))
    return Count(counted, tally, chain, adjustments)


def strike_and_bomb(state: State, events: list, acts: dict[int, dict]) -> None:
    """Step 6: the STRIKEs and BOMBs used in this phase are spent first (as at night), then
    STRIKEs, then BOMBs, cost their targets a card (seat order within a kind)."""
    here = vote_of(state)
    used = {card: [s for s, a in sorted(acts.items()) if a["card"] == card]
            for card in ("STRIKE", "BOMB")}
    spend_used_cards(state, events, strikers=used["STRIKE"], bombers=used["BOMB"])
    for card in ("STRIKE", "BOMB"):
        section = "3.4.6" if card == "STRIKE" else "3.4.7"
        for seat in used[card]:
            target = acts[seat]["target"]
            lose_card(state, events, target, cause=card.lower(), public_because=[
                R("hit_by_bomb" if card == "BOMB" else "hit_by", seat=target, card=card,
                  phase=here, ref=ref(section))],
                gm_because=[R("hit_target", use=use(seat, card), target=target, phase=here,
                              ref=ref(section))])


def announce_result(state: State, events: list, count: Count) -> tuple[dict, list[int]]:
    """Steps 7 and 8: an execution, a runoff or none; returns the next phase and the runoff
    candidates (empty unless a runoff follows)."""
    pub = state["public"]
    n, runoff, here = pub["phase"]["number"], pub["phase"]["name"] == RUNOFF, vote_of(state)
    tally = count.tally
    top = max(tally.values(), default=0)
    leaders = sorted(s for s, v in tally.items() if v == top) if top > 0 else []
    leaders = [s for s in leaders if pub["alive"][s]]
    public_tally = {"tally": {str(k): v for k, v in tally.items()},
                    "adjustments": count.adjustments}
    if len(leaders) == 1:
        execute(state, events, leaders[0], count.counted, count.chain, public_tally, here)
    elif len(leaders) > 1 and not runoff:
        emit(state, events, make_event("runoff_started", public(), because=[
            R("runoff_follows", seats=leaders, phase=here, card="CURSE", card2="BLESS",
              ref=ref("8.2"))], candidates=leaders, **public_tally))
        return {"name": RUNOFF, "number": n}, leaders
    else:
        why = ("runoff_tied_again" if runoff and len(leaders) > 1 else "no_vote_counted")
        emit(state, events, make_event("no_execution", public(), because=[
            R(why, phase=here, ref=ref("8.2"))], **public_tally))
    return {"name": NIGHT, "number": n + 1}, []


def open_next_phase(state: State, events: list, next_phase: dict, candidates: list[int],
                    bombed: set[int]) -> None:
    """Step 9: the SAINT expires unless a runoff follows; a reorder window, victory; then
    the runoff (seats saved last night and bombed seats owe no vote) or night N+1."""
    pub, secret = state["public"], state["secret"]
    n = pub["phase"]["number"]
    if not candidates:
        if secret["saint"] and secret["saint"]["day"] <= n:
            secret["saint"] = None
    saved_today = list(pub["no_vote"])
    open_reorder_window(state, events, next_phase)
    if check_victory(state, events):
        return
    for priv in state["private"]:
        priv["action"] = None
        priv["proxy"] = None
    pub.update(phase=next_phase, phase_alive=alive_seats(state), votes={},
               candidates=candidates)
    if candidates:
        pub["no_vote"] = sorted(s for s in set(saved_today) | bombed if pub["alive"][s])
        because = [R("runoff_begins", n=n, seats=sorted(candidates), ref=ref("8.2"))]
        if pub["no_vote"]:
            because.append(R("may_not_vote_today", seats=list(pub["no_vote"])))
    else:
        pub["no_vote"] = []
        because = [R("night_begins", n=n + 1, ref=ref("5.5"))]
        if pub["pending_execution"]:
            because.append(R("pardon_may_spare", card="PARDON", ref=ref("3.4.4")))
    emit(state, events, make_event("phase_started", public(), because=because,
                                   phase=next_phase, no_vote=list(pub["no_vote"]),
                                   candidates=candidates))


def execute(state: State, events: list, seat: int, counted: dict, chain: list[dict],
            public_tally: dict, here: dict) -> None:
    """Step 8: the execution of `seat` by the vote that just closed."""
    pub, secret = state["public"], state["secret"]
    n = pub["phase"]["number"]
    saint = secret["saint"]
    fires = bool(saint and saint["seat"] == seat and saint["day"] == n)
    gm_chain = chain + [R("most_votes", seat=seat, phase=here, ref=ref("8.1"))]
    if not fires and seat not in pub["pardoned"]:
        secret["execution"] = {"seat": seat, "day": n, "tally": public_tally, "chain": gm_chain}
        pub["pending_execution"] = {"day": n, "pardonable": True}
        emit(state, events, make_event("vote_closed", public(), because=[
            R("execution_waits", phase=here, card="PARDON", n=n + 1, ref=ref("8.1"))],
            day=n))
        emit(state, events, make_event("execution_pending", gm_only(), because=gm_chain,
                                       seat=seat, day=n))
        return
    why = (R("executed_saint_fired", seat=seat, phase=here, card="SAINT", card2="PARDON",
             ref=ref("3.4.4"), ref2=ref("8.1")) if fires
           else R("executed_pardoned_before", seat=seat, phase=here, ref=ref("3.4.4"),
                  ref2=ref("8.1")))
    emit(state, events, make_event("execution", public(), because=[why],
                                   seat=seat, day=n, **public_tally))
    lose_card(state, events, seat, cause="execution", public_because=[
        R("executed_on_day", seat=seat, n=n, ref=ref("8.1"))], gm_because=gm_chain)
    if not fires:
        return
    voters = sorted(v for v, t in counted.items() if t == seat)
    secret["saint"] = None
    if "SAINT" in state["private"][seat]["hand"]:  # the execution may have taken it
        state["private"][seat]["dead_cards"].append("SAINT")
    emit(state, events, make_event("saint_fired", public(), because=[
        R("saint_fired", seat=seat, card="SAINT", ref=ref("3.4.10"), seats=voters)],
        seat=seat, voters=voters))
    emit(state, events, make_event("saint_spent", seats(seat), because=[
        R("saint_spent", card="SAINT", ref=ref("3.4.10"))], seat=seat))
    for voter in voters:
        lose_card(state, events, voter, cause="saint", public_because=[
            R("voted_for_saint", seat=voter, card="SAINT", target=seat, ref=ref("3.4.10"))],
            gm_because=gm_chain + [R("saint_voter", use=use(seat, "SAINT"), seat=voter,
                                     ref=ref("3.4.10"))])
