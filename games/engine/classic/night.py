"""The night: the bandits' kill, the police check, the ghost's possession, the guardians'
protection, and the night's resolution at dawn.

Seed sections: 001 §3.3-§3.13 (the night), 003 ghost and poison (possession, death pact,
poison checked), 003 guardian and dual guardians (protection, dereliction, lapse).

Submissions are stored in `secret["night"]`, one entry per seat, until the clock ends the
night; the team sees each member's submission through team-visible events. Nothing is
decided before the night ends, so a member may change its mind until then.
"""

from __future__ import annotations

from collections import Counter

from ..base import clone, draw_random, public, seats
from . import roles as R
from .common import (
    DERELICTION,
    GUARDED_KILL,
    KILLED,
    PACT,
    POSSESSION,
    active_guardians,
    finish_if_over,
    gm_note,
    is_alive,
    kill_seat,
    last_words_reason,
    living,
    living_with_role,
    note,
    public_label,
    record_deaths,
    reveal_label,
    role_of,
    team_visibility,
)
from .day import begin_day
from .reasons import R as why

# --- what a seat may target -------------------------------------------------------------------

def kill_targets(state: dict) -> list[int]:
    """Any living seat, a bandit's own teammates included (a self-kill is a known tactic)."""
    return living(state)


def pact_choices(state: dict) -> list[int]:
    return living_with_role(state, R.BANDIT)


def check_targets(state: dict, actor: int, *, extra: bool = False) -> list[int]:
    """Living seats other than the police themselves. Without the ghost variant a seat the
    police already checked cannot be checked again; with it, it can (seed 003 minor rule 1:
    a possessed seat changes side)."""
    team = set(state["private"][actor].get("team", []))
    done = {c["seat"] for c in state["private"][actor].get("checks", [])}
    out = []
    for s in living(state):
        if s == actor or s in team:
            continue
        if not state["config"]["variant_ghost_poison"] and s in done:
            continue
        out.append(s)
    return out


def possess_targets(state: dict, actor: int) -> list[int]:
    """Living seats outside the bandit team as the ghost knows it."""
    team = set(state["private"][actor].get("team", []))
    return [s for s in living(state) if s != actor and s not in team]


def protect_targets(state: dict, guardian: int) -> list[int]:
    """Living seats other than the guardian that it has never protected (seed 003 guardian
    rules 1 and 3; a guardian cannot know whom the other guardian protected, so the limit is
    per guardian)."""
    done = set(state["secret"]["protected"][guardian])
    return [s for s in living(state) if s != guardian and s not in done]


def may_possess(state: dict, actor: int) -> bool:
    secret = state["secret"]
    return (state["config"]["variant_ghost_poison"] and actor == secret["ghost"]
            and is_alive(state, actor) and not secret["possession_used"])


# --- resolution ---------------------------------------------------------------------------

# What a team chooses at night: the reasons that name it (none proposed, who proposed).
CHOOSING = {"victim": ("no_victim_proposed", "victim_proposed"),
            "pact": ("no_pact_proposed", "pact_proposed"),
            "check": ("no_check_proposed", "check_proposed")}


def team_choice(state: dict, events: list, proposals: list, purpose: str,
                what: str) -> tuple[int | None, list[dict]]:
    """The team's pick among its members' proposals, and why (`what`: a key of CHOOSING).

    1. Only members who proposed a seat express an opinion; silent and deferring members
       agree with the others (seed 001 §3.6).
    2. The seat with the most proposals wins.
    3. A tie between the most-proposed seats is broken by lot (the seed has the GM take the
       majority; with no majority, the lot is the neutral choice). The draw is recorded.
    """
    nobody, proposed = CHOOSING[what]
    counts = Counter(p for p in proposals if isinstance(p, int))
    if not counts:
        return None, [why(nobody)]
    top = max(counts.values())
    tied = sorted(s for s, c in counts.items() if c == top)
    voters = [s for s, p in enumerate(proposals) if isinstance(p, int)]
    because = [why(proposed, seats=voters, ref=["3.6"])]
    if len(tied) == 1:
        because.append(why("most_proposals", seat=tied[0], n=top))
        return tied[0], because
    pick = draw_random(state, purpose).choice(tied)
    gm_note(state, events, "chance", [why("lot_breaks_tie", seats=tied)],
            purpose=purpose, among=tied, drawn=pick)
    because.append(why("lot_drew", seats=tied, n=top, seat=pick))
    return pick, because


def report_check(state: dict, events: list, target: int, because: list[dict], *,
                 extra: bool) -> bool:
    """Tell the living police the exact identity of `target` as it is now, after this
    night's possession (seed 003 ghost rule 8). Returns True if the target is the poison."""
    label = public_label(state, target)
    police = living_with_role(state, R.POLICE)
    number = state["public"]["number"]
    for p in police:
        state["private"][p].setdefault("checks", []).append(
            {"number": number, "seat": target, "result": label, "extra": extra})
    note(state, events, "check_result", seats(*police),
         [*because, why("police_learn", seat=target, role=label, ref=["3.10"])],
         seat=target, result=label, extra=extra)
    if role_of(state, target) != R.POISON:
        return False
    note(state, events, "poison_checked", seats(target), [why("poison_told", ref=["poison 3"])],
         seat=target)
    return True


def resolve_night(state: dict, events: list) -> None:
    """End the night. Precondition: phase is "night" and the state is the caller's copy.

    0. If the police's check is the poison (ghost variant), the night goes on as the extra
       check (`open_extra_check`): nothing is resolved yet, and the dawn comes when the
       extra check ends (`resolve_extra_check`).
    Else `settle_night`, then the day.
    """
    if open_extra_check(state, events):                                       # 0
        return
    if settle_night(state, events):
        return
    begin_day(state, events)


def open_extra_check(state: dict, events: list) -> bool:
    """Step 0 of `resolve_night`: if the police's check tonight is the poison (seed 003
    poison rules 3-4), tell the police the result and the poison that it was checked, and
    let the night go on as the police's extra check. Returns whether it did.

    Only the police and the poison may learn that the poison was checked, so the extra check
    runs inside the night as everyone else sees it: no death, no reveal, no dawn yet; every
    other seat's night choices stay open (the kill, the possession, the protection, a
    change of mind) and the night is resolved with them when the extra check ends. The
    police's own check is settled now (`settled_check`, which the dawn does not choose
    again): first read on a copy of the secret part, so that a night whose check is not the
    poison draws no lot here, then taken with the same draw.
    """
    night = state["secret"]["night"]
    if not state["config"]["variant_ghost_poison"] or not living_with_role(state, R.POLICE):
        return False
    probe = {**state, "secret": clone(state["secret"]), "log": []}
    check, _ = team_choice(probe, [], night["check"], "check_tie", "check")
    if check is None or role_of(state, check) != R.POISON:
        return False
    check, check_why = team_choice(state, events, night["check"], "check_tie", "check")
    night.update(extra_due=True, held=True, settled_check=check)
    report_check(state, events, check, check_why, extra=False)
    state["public"].update(phase="extra_check")  # the night, on every page but the police's
    note(state, events, "extra_check", team_visibility(state, R.POLICE),
         [why("extra_check_opens", ref=["poison 4"])])
    return True


def settle_night(state: dict, events: list, *, check_told: bool = False) -> bool:
    """Resolve the night's choices and announce the dawn; returns whether the game is over.

    1. The bandits' victim and death pact, the police check: each a team choice.
    2. Guardians: a submitted protection holds until the end of the next day's vote; no
       submission is a skip (the second one kills), no legal target a stranded round (the
       second in a row kills); deaths by dereliction wait for step 6.
    3. The kill. A victim with effective protection survives and every guardian protecting
       it effectively dies instead; an unprotected victim dies. If it is the poison, the pact
       bandit dies with it; if it is the bandit guardian, the police guardian lapses (its
       protection of the round void).
    4. The possession, after the kill (seed 003 ghost paragraph 2), if the ghost and its
       target are still alive: a civilian turns bandit; police, guardians: no effect (the
       police are told one of theirs was possessed); the poison: the ghost and the poison die.
    5. The check, reported as the target's identity after step 4 (seed 003 ghost rule 8),
       unless the police were told it already (`check_told`: it was the poison, and the
       extra check followed).
    6. Dereliction deaths.
    7. Dawn: the deaths are announced with what each reveals; victory is checked.
    Each step is a function of its own, called in this order: 1 `team_choices`,
    2 `set_guardians`, 3 `kill`, 4 `possess`, 5 `report_check`, 6 `derelictions`, 7 `dawn`.
    """
    secret = state["secret"]
    night = secret["night"]
    gm_why: list[dict] = []
    deaths_before = len(secret["deaths"])
    victim, pact, check, check_why = team_choices(state, events, gm_why,      # 1
                                                  check_settled=check_told)
    derelict = set_guardians(state, events, gm_why)                           # 2
    pair = kill(state, events, victim, pact, gm_why)                          # 3
    hide_all = possess(state, events, gm_why)                                 # 4
    if check is not None and not check_told:                                  # 5
        report_check(state, events, check, check_why, extra=False)
    derelictions(state, derelict, gm_why)                                     # 6
    gm_note(state, events, "night_resolved", gm_why or [why("nothing_happened")],
            victim=victim, pact=pact, check=check, possess=night["possess"],
            protecting=[[g, t] for g, t in enumerate(secret["protecting"]) if t is not None])
    return dawn(state, events, deaths_before, pair=pair, hide_all=hide_all)  # 7


def team_choices(state: dict, events: list, gm_why: list[dict], *, check_settled: bool = False
                 ) -> tuple[int | None, int | None, int | None, list[dict]]:
    """Step 1: the bandits' victim and (ghost variant) death pact, the police's check, and
    the reasons for the check (told to the police with its result). A check settled when
    the extra check began (`check_settled`) is not chosen again."""
    night = state["secret"]["night"]
    kill_props = [p[0] if isinstance(p, list) else p for p in night["kill"]]
    victim, because = team_choice(state, events, kill_props, "kill_tie", "victim")
    gm_why += because
    pact = None
    if victim is not None and state["config"]["variant_ghost_poison"]:
        pacts = [p[1] if isinstance(p, list) and p[0] == victim else None
                 for p in night["kill"]]
        pact, because = team_choice(state, events, pacts, "pact_tie", "pact")
        gm_why += because
    if check_settled:
        return victim, pact, night["settled_check"], []
    check, check_why = team_choice(state, events, night["check"], "check_tie", "check")
    return victim, pact, check, check_why


def set_guardians(state: dict, events: list, gm_why: list[dict]) -> list[tuple[int, str]]:
    """Step 2: each active guardian protects, is stranded or skips; returns the guardians
    that die of dereliction at step 6, with the code of the reason."""
    secret = state["secret"]
    night = secret["night"]
    protecting = [None] * len(state["private"])
    derelict = []
    for g in active_guardians(state):
        sub = night["protect"][g]
        mine = state["private"][g]
        if isinstance(sub, int):
            protecting[g] = sub
            secret["protected"][g].append(sub)
            mine["protected"] = list(secret["protected"][g])
            secret["stranded"][g] = 0
            gm_why.append(why("guardian_protects", seat=g, target=sub))
        elif not protect_targets(state, g):
            secret["stranded"][g] += 1
            mine["stranded"] = secret["stranded"][g]
            gm_why.append(why("guardian_stranded", seat=g, n=secret["stranded"][g]))
            if secret["stranded"][g] >= 2:
                derelict.append((g, "dereliction_stranded"))  # seed 003 guardian rule 5
        else:
            secret["skips"][g] += 1
            mine["skips"] = secret["skips"][g]
            if secret["skips"][g] >= 2:
                derelict.append((g, "dereliction_skipped"))  # seed 003 guardian rule 2
            else:
                note(state, events, "protection_skipped", seats(g),
                     [why("guardian_skipped", ref=["guardian 2"])], seat=g)
    secret["protecting"] = protecting
    return derelict


def kill(state: dict, events: list, victim: int | None, pact: int | None,
         gm_why: list[dict]) -> list[int] | None:
    """Step 3: the kill. Returns [poison, pact bandit] when the pact made both die."""
    secret = state["secret"]
    if victim is None or not is_alive(state, victim):
        return None
    target_role = role_of(state, victim)
    savers = [g for g in active_guardians(state) if secret["protecting"][g] == victim
              and R.protection_works(role_of(state, g), target_role,
                                     target_lapsed=victim in secret["lapsed"])]
    if savers:
        for g in savers:
            kill_seat(state, g, GUARDED_KILL)
        gm_why.append(why("died_in_its_place", seats=sorted(savers), target=victim,
                          ref=["guardian"]))
        return None
    kill_seat(state, victim, KILLED)
    gm_why.append(why("killed_by_bandits", seat=victim))
    if target_role == R.BANDIT_GUARDIAN:
        lapse_police_guardian(state, events)
        gm_why.append(why("police_guardian_lapses", ref=["dual 6"]))
    if target_role == R.POISON and pact is not None and is_alive(state, pact):
        kill_seat(state, pact, PACT)
        gm_why.append(why("pact_bandit_dies", seat=pact, ref=["poison 1"]))
        return [victim, pact]
    return None


# Where the seed says a guardian dies of dereliction, by the reason's code.
DERELICTION_REF = {"dereliction_stranded": "guardian 5", "dereliction_skipped": "guardian 2"}


def derelictions(state: dict, derelict: list[tuple[int, str]], gm_why: list[dict]) -> None:
    """Step 6: guardians still alive that skipped twice or were stranded twice die."""
    for g, code in derelict:
        if is_alive(state, g):
            kill_seat(state, g, DERELICTION)
            gm_why.append(why(code, seat=g, ref=[DERELICTION_REF[code]]))


def dawn(state: dict, events: list, deaths_before: int, *, pair: list | None,
         hide_all: bool) -> bool:
    """Step 7: tonight's choices are spent; the deaths are announced; returns whether the
    game is over."""
    for mine in state["private"]:
        mine["choice"] = None
    new = state["secret"]["deaths"][deaths_before:]
    announce_dawn(state, events, new, pair=pair, hide_all=hide_all)
    state["public"]["night_deaths"] = sorted(d["seat"] for d in new)
    return finish_if_over(state, events)


def resolve_extra_check(state: dict, events: list) -> None:
    """End the extra check, which is the end of the night: the night is settled and its
    dawn announced (`settle_night`, the police's own check told already), then the police's
    extra choice is reported (no further extra check, even on the poison again; a seat that
    died tonight is reported too: the police checked it before the dawn), then the day.

    A game whose state was saved in the extra check of the earlier order (the night settled
    and its dawn announced before the extra check: no `held` mark) only reports the extra
    check and begins the day."""
    night = state["secret"]["night"]
    held = night.get("held", False)
    if held and settle_night(state, events, check_told=True):
        return
    target, because = team_choice(state, events, night["extra"], "extra_check_tie", "check")
    if target is not None and (held or is_alive(state, target)):
        report_check(state, events, target, because, extra=True)
    for mine in state["private"]:
        mine["choice"] = None
    begin_day(state, events)


def lapse_police_guardian(state: dict, events: list) -> None:
    """The bandits killed the bandit guardian: from this round the living police guardian
    plays as a civilian and this round's protection is void; only it is told (seed 003 dual
    §6). A police guardian already dead is not told."""
    secret = state["secret"]
    for g in living_with_role(state, R.POLICE_GUARDIAN):
        if g in secret["lapsed"]:
            continue
        secret["lapsed"].append(g)
        secret["protecting"][g] = None
        state["private"][g]["lapsed"] = True
        note(state, events, "guardian_lapsed", seats(g), [why("guardian_lapsed", ref=["dual 6"])],
             seat=g)


def possess(state: dict, events: list, gm_why: list[dict]) -> bool:
    """Step 4 of `resolve_night`. Returns True if the ghost possessed the poison (every
    identity of the night then stays hidden, seed 003 minor rule 3)."""
    secret = state["secret"]
    target = secret["night"]["possess"]
    ghost = secret["ghost"]
    if target is None:
        return False
    bandits_vis = team_visibility(state, R.BANDIT)
    if not is_alive(state, ghost) or not is_alive(state, target):
        # the kill comes first (seed 003 ghost paragraph 2)
        because = (why("possession_void_ghost_dead", ref=["ghost_paragraph 2"])
                   if not is_alive(state, ghost) else
                   why("possession_void_target_dead", seat=target, ref=["ghost_paragraph 2"]))
        note(state, events, "possession_void", bandits_vis, [because])
        return False
    secret["possession_used"] = True
    state["private"][ghost]["possession_used"] = True
    state["private"][ghost]["possession_pending"] = None
    role = role_of(state, target)
    if role == R.CIVILIAN:
        secret["roles"][target] = R.BANDIT
        secret["possessed"].append(target)
        team = sorted(set(state["private"][ghost]["team"]) | {target})
        for s in team:
            state["private"][s]["team"] = list(team)
        mine = state["private"][target]
        mine.update(role=R.BANDIT, possessed=True, team=list(team), ghost_seat=ghost)
        note(state, events, "possessed", team_visibility(state, R.BANDIT),
             [why("possessed_civilian", seat=target, ref=["ghost 1"], n=7)],
             seat=target, team=team)
        gm_why.append(why("civilian_now_bandit", seat=target))
        return False
    if role == R.POISON:
        kill_seat(state, ghost, POSSESSION)
        kill_seat(state, target, POSSESSION)
        gm_why.append(why("possessed_poison", seat=target, ref=["ghost 3"]))
        return True
    if role == R.POLICE:
        note(state, events, "possession_on_police", team_visibility(state, R.POLICE),
             [why("possession_on_police", ref=["ghost 2"])])
    note(state, events, "possession_void", bandits_vis,
         [why("possession_no_effect", seat=target, ref=["ghost 2"])], seat=target)
    gm_why.append(why("possession_without_effect", seat=target, role=role))
    return False


def announce_dawn(state: dict, events: list, new_deaths: list[dict], *, pair: list | None,
                  hide_all: bool) -> None:
    """Announce the night's deaths (seed 001 §3.13) with what each may reveal.

    `hide_all`: the ghost possessed the poison, so the night's deaths are not revealed
    (minor rule 3: "the three", the ghost, the poison and the victim or whoever died in its
    place). A guardian's death by dereliction that night is none of the three: the guardian
    rules announce it (rules 2, 5), as on any other night (I29)."""
    pub = state["public"]
    dead = sorted(d["seat"] for d in new_deaths)
    due = record_deaths(state, dead)
    cause = {d["seat"]: d["cause"] for d in new_deaths}
    entries = []
    because = [why("dawn_announces", ref=["3.13"])]
    for s in dead:
        hidden = hide_all and cause[s] != DERELICTION
        label = None if hidden else reveal_label(state, s, cause[s])
        pub["revealed"][s] = label
        entries.append({"seat": s, "label": label, "last_words": s in due})
    pair_note = None
    if hide_all:
        because.append(why("identities_hidden", ref=["minor 3"]))
    elif pair:
        # the two seats in seat order, so that the order does not tell which is the poison
        pair_note = {"seats": sorted(pair), "label": public_label(state, pair[1])}
        because.append(why("poison_pair", seats=pair_note["seats"], role=pair_note["label"],
                           ref=["minor 3", "ghost 6"]))
    if not dead:
        because.append(why("nobody_died"))
    for e in entries:
        if e["label"]:
            because.append(why("died_as", seat=e["seat"], role=e["label"]))
    derelict = [s for s in dead if cause[s] == DERELICTION]
    if derelict:
        because.append(why("died_of_dereliction", seats=derelict,
                           ref=["guardian 2", "guardian 5"]))
    if due:
        because.append(last_words_reason(due, pub["last_words_limit"]))
    note(state, events, "dawn", public(), because, number=pub["number"], deaths=entries,
         pair=pair_note, dereliction=derelict)
    pub["last_words_due"] = due


