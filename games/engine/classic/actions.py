"""Classic 杀人游戏: what a seat may do, declared once (seed 001 §3.3-§3.16, seed 003 ghost,
poison and guardians).

`ACTIONS` is the one table of action kinds. Each row says who may act (a living seat, or a
dead one for its last words), in which phases, which other checks the actor must pass, which
parameters the step carries, which targets are open, and how an accepted step is recorded.
Both the choices a seat is offered (`choices`) and the refusal of any other step (`refusal`)
are read from it, so an offered choice is always accepted and an accepted step was offered.

A step is checked in this order (the first failing check gives the refusal):
    1. a living actor, unless the row is for the dead too (last words);
    2. the phase (`off_phase` gives the refusal, which depends on the phase it is now);
    3. the row's `who` checks, in order (role, turn, what the actor already did);
    4. the parameter names (exactly `keys`);
    5. the row's `extra` check on the parameters other than the target (a self-vote, the
       death pact's bandit);
    6. the target among the row's `targets`.
Free text (speeches, last words, team messages) is checked before, by `Classic.apply`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..base import Refusal, TextField, public
from ..base import seats as to_seats
from . import night
from . import roles as R
from .common import is_alive, note, role_of, seat_name, team_visibility
from .reasons import R as why

TEXT_MAX = 20_000
SPEECH = TextField("text", min_chars=1, max_chars=TEXT_MAX)
LAST_WORDS = TextField("text", min_chars=1, max_chars=TEXT_MAX)
TEAM_MESSAGE = TextField("text", min_chars=1, max_chars=TEXT_MAX)

NIGHT_PHASES = frozenset({"night", "extra_check"})
SPEECH_PHASES = frozenset({"speech", "tie_speech"})
VOTE_PHASES = frozenset({"vote", "tie_vote"})

Check = Callable[[dict, int, str], "Refusal | None"]


def refuse(code: str, **params) -> Refusal:
    """A refusal: a code of the rule set's reason table (reasons.py) and its arguments."""
    why(code, **params)  # a code or an argument the table does not declare fails here
    return Refusal(code, params=params)


def is_seat(state: dict, value) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)
            and 0 <= value < len(state["private"]))


# --- the phase a kind belongs to ---------------------------------------------------------

def by_night(ph: str) -> Refusal:
    return refuse("wrong_phase")


def first_night_part(ph: str) -> Refusal:
    """A kind of the night proper, outside it: during the extra check of a night settled
    before it (a game saved in the earlier order, see `night_open`), or by day. The refusal
    during the extra check does not name it: only the police and the poison may know the
    poison was checked (seed 003 poison rules 3-4)."""
    if ph == "extra_check":
        return refuse("choices_closed")
    return by_night(ph)


def night_goes_on(state: dict) -> bool:
    """During the extra check, the night is still open for every seat's own choices: it is
    settled when the extra check ends (`night.open_extra_check`). A game saved in the
    extra check of the earlier order had its night settled before it (no `held` mark)."""
    return state["secret"]["night"].get("held", False)


def not_speaker(ph: str) -> Refusal:
    return refuse("not_your_turn_to_speak")


def not_voter(ph: str) -> Refusal:
    return refuse("not_your_turn_to_vote")


def no_last_words(ph: str) -> Refusal:
    return refuse("no_last_words_due")


# --- who checks: (state, actor, phase) -> Refusal | None ----------------------------------

def team_role(state: dict, actor: int) -> str | None:
    role = role_of(state, actor)
    return role if role in (R.BANDIT, R.POLICE) else None


def has_slot(state: dict, actor: int) -> bool:
    """The day's queue has reached `actor` and it has not spoken (voted) yet."""
    pub = state["public"]
    return not pub["done"] and pub["queue"][pub["turn"]] == actor


def speaks_now(state: dict, actor: int, ph: str) -> Refusal | None:
    return None if has_slot(state, actor) else not_speaker(ph)


def votes_now(state: dict, actor: int, ph: str) -> Refusal | None:
    return None if has_slot(state, actor) else not_voter(ph)


def owes_last_words(state: dict, actor: int, ph: str) -> Refusal | None:
    if actor not in state["public"]["last_words_due"]:
        return no_last_words(ph)
    if actor in state["public"]["last_words_given"]:
        return refuse("last_words_given")
    return None


def night_open(state: dict, actor: int, ph: str) -> Refusal | None:
    """The night's own choices (kill, possession, protection) during the extra check: open
    while the night goes on (`night_goes_on`), closed in a night settled before it."""
    if ph == "extra_check" and not night_goes_on(state):
        return first_night_part(ph)
    return None


def has_team(state: dict, actor: int, ph: str) -> Refusal | None:
    if team_role(state, actor) is None or (ph == "extra_check" and not night_goes_on(state)
                                           and role_of(state, actor) != R.POLICE):
        return refuse("no_team")
    return None


def night_key(state: dict, actor: int) -> str:
    """Where a team member's night choice is kept: the bandits' kill, the police's check, or
    during the extra check the police's extra check (their night check is settled)."""
    if role_of(state, actor) == R.BANDIT:
        return "kill"
    return "extra" if state["public"]["phase"] == "extra_check" else "check"


def may_defer(state: dict, actor: int, ph: str) -> Refusal | None:
    nt = state["secret"]["night"]
    if ph == "extra_check" and role_of(state, actor) != R.POLICE and not night_goes_on(state):
        return refuse("not_police")
    if ph == "extra_check" and role_of(state, actor) == R.POLICE:
        current = nt["extra"][actor]
    elif team_role(state, actor) is None:
        return refuse("not_a_team_member")
    else:
        current = nt[night_key(state, actor)][actor]
    if current == "defer":
        return refuse("already_deferred")
    return None


def is_police(state: dict, actor: int, ph: str) -> Refusal | None:
    if role_of(state, actor) != R.POLICE:
        return refuse("not_police")
    return None


def is_bandit(state: dict, actor: int, ph: str) -> Refusal | None:
    if role_of(state, actor) != R.BANDIT:
        return refuse("not_bandit")
    return None


def is_ghost(state: dict, actor: int, ph: str) -> Refusal | None:
    if not night.may_possess(state, actor):
        return refuse("cannot_possess")
    return None


def has_possession(state: dict, actor: int, ph: str) -> Refusal | None:
    if not night.may_possess(state, actor) or state["secret"]["night"]["possess"] is None:
        return refuse("nothing_to_cancel")
    return None


def is_guardian(state: dict, actor: int, ph: str) -> Refusal | None:
    if role_of(state, actor) not in R.GUARDIANS or actor in state["secret"]["lapsed"]:
        return refuse("not_guardian")
    return None


def may_skip(state: dict, actor: int, ph: str) -> Refusal | None:
    if state["secret"]["night"]["protect"][actor] == "skip":
        return refuse("already_skipped")
    if not night.protect_targets(state, actor):
        return refuse("nobody_to_protect")
    return None


# --- parameters and targets -----------------------------------------------------------------

def kill_keys(state: dict) -> tuple[tuple[str, ...], str | None]:
    """The kill's parameters: the victim and, in the ghost variant, the bandit of the death
    pact, who dies with the poison if the victim is the poison (seed 003 minor rule 2)."""
    if state["config"]["variant_ghost_poison"]:
        return ("target", "pact"), "kill_needs_pact"
    return ("target",), None


def valid_pact(state: dict, actor: int, params: dict) -> Refusal | None:
    if state["config"]["variant_ghost_poison"] and (
            not is_seat(state, params["pact"])
            or params["pact"] not in night.pact_choices(state)):
        return refuse("bad_pact")
    return None


def not_self_vote(state: dict, actor: int, params: dict) -> Refusal | None:
    if params["target"] == actor:
        return refuse("self_vote")
    return None


def kill_options(state: dict, actor: int, ph: str) -> Iterator[dict]:
    """Each victim, with each possible death-pact bandit in the ghost variant."""
    pacts = night.pact_choices(state) if state["config"]["variant_ghost_poison"] else [None]
    for t in night.kill_targets(state):
        for p in pacts:
            yield {"target": t, "pact": p} if p is not None else {"target": t}


# --- recording an accepted step ---------------------------------------------------------------

def do_kill(state: dict, actor: int, params: dict, events: list) -> None:
    t, p = params["target"], params.get("pact")
    state["secret"]["night"]["kill"][actor] = [t, p]
    state["private"][actor]["choice"] = {"kill": t, "pact": p}
    because = [why("proposes_kill", seat=actor, target=t)]
    if p is not None:
        because.append(why("death_pact_named", seat=p, ref=["minor 2"]))
    note(state, events, "kill_proposed", team_visibility(state, R.BANDIT), because,
         seat=actor, target=t, pact=p)


def do_defer(state: dict, actor: int, params: dict, events: list) -> None:
    state["secret"]["night"][night_key(state, actor)][actor] = "defer"
    state["private"][actor]["choice"] = {"defer": True}
    note(state, events, "deferred", team_visibility(state, role_of(state, actor)),
         [why("defers", seat=actor, ref=["3.6"])], seat=actor)


def do_team_message(state: dict, actor: int, params: dict, events: list) -> None:
    note(state, events, "team_message", team_visibility(state, role_of(state, actor)),
         [why("writes_to_team", seat=actor)], seat=actor, text=params["text"])


def do_possess(state: dict, actor: int, params: dict, events: list) -> None:
    state["secret"]["night"]["possess"] = params["target"]
    state["private"][actor]["possession_pending"] = params["target"]
    note(state, events, "possession_submitted", team_visibility(state, R.BANDIT),
         [why("will_possess", seat=actor, target=params["target"], ref=["ghost"])],
         seat=actor, target=params["target"])


def do_cancel_possession(state: dict, actor: int, params: dict, events: list) -> None:
    state["secret"]["night"]["possess"] = None
    state["private"][actor]["possession_pending"] = None
    note(state, events, "possession_cancelled", team_visibility(state, R.BANDIT),
         [why("possession_withdrawn", seat=actor)], seat=actor)


def do_check(state: dict, actor: int, params: dict, events: list) -> None:
    key = "extra" if state["public"]["phase"] == "extra_check" else "check"
    state["secret"]["night"][key][actor] = params["target"]
    state["private"][actor]["choice"] = {"check": params["target"]}
    note(state, events, "check_proposed", team_visibility(state, R.POLICE),
         [why("proposes_check", seat=actor, target=params["target"])],
         seat=actor, target=params["target"])


def do_protect(state: dict, actor: int, params: dict, events: list) -> None:
    state["secret"]["night"]["protect"][actor] = params["target"]
    state["private"][actor]["choice"] = {"protect": params["target"]}
    note(state, events, "protection_submitted", to_seats(actor),
         [why("you_protect", seat=params["target"], ref=["guardian"])],
         target=params["target"])


def do_skip_protection(state: dict, actor: int, params: dict, events: list) -> None:
    state["secret"]["night"]["protect"][actor] = "skip"
    state["private"][actor]["choice"] = {"protect": None}
    note(state, events, "protection_skip_chosen", to_seats(actor),
         [why("you_protect_nobody", ref=["guardian 2"])])


def do_last_words(state: dict, actor: int, params: dict, events: list) -> None:
    state["public"]["last_words_given"].append(actor)
    note(state, events, "last_words", public(),
         [why("leaves_last_words", seat=actor, ref=["3.14"])], seat=actor,
         text=params["text"])


def do_speak(state: dict, actor: int, params: dict, events: list) -> None:
    pub = state["public"]
    pub["done"] = True
    note(state, events, "speech", public(),
         [why("speaks", seat=actor, ref=["3.15"])],
         seat=actor, stage=pub["stage"], text=params["text"])


def do_vote(state: dict, actor: int, params: dict, events: list) -> None:
    """A vote or an abstention (no target), cast in the open in the queue's order."""
    pub = state["public"]
    target = params.get("target")
    pub["votes"].append([actor, target])
    pub["done"] = True
    because = (why("votes_for", seat=actor, target=target, ref=["3.16"]) if target is not None
               else why("abstains", seat=actor, ref=["3.16"]))
    note(state, events, "vote", public(), [because],
         voter=actor, target=target, stage=pub["stage"])


# --- the table ---------------------------------------------------------------------------------

def target_keys(state: dict) -> tuple[tuple[str, ...], str | None]:
    return ("target",), None


def no_keys(state: dict) -> tuple[tuple[str, ...], str | None]:
    return (), None


@dataclass(frozen=True)
class Action:
    """One kind of step: who, when, with what, on whom, and how it is recorded."""

    phases: frozenset[str]
    off_phase: Callable[[str], Refusal]
    do: Callable[[dict, int, dict, list], None]
    label: str                                  # "{t}" is the target's name
    who: tuple[Check, ...] = ()
    # the parameter names, and the refusal code of other names (None: "bad_params")
    keys: Callable[[dict], tuple[tuple[str, ...], str | None]] = no_keys
    extra: Callable[[dict, int, dict], Refusal | None] | None = None
    targets: Callable[[dict, int, str], list[int]] | None = None
    bad_target: str = ""                        # the refusal of a target not offered
    options: Callable[[dict, int, str], Iterator[dict]] | None = None
    text: TextField | None = None
    living: bool = True                         # False: the dead may take it too

    def param_sets(self, state: dict, actor: int, ph: str) -> Iterator[dict]:
        """The concrete parameters a seat could choose (before checks 4-6)."""
        if self.options is not None:
            yield from self.options(state, actor, ph)
        elif self.targets is not None:
            for t in self.targets(state, actor, ph):
                yield {"target": t}
        else:
            yield {}


# In the order the choices are offered (kill ... team_message at night, then the day's).
ACTIONS: dict[str, Action] = {
    "kill": Action(
        NIGHT_PHASES, by_night, do_kill, "kill {t}", who=(night_open, is_bandit),
        keys=kill_keys, extra=valid_pact, targets=lambda s, a, ph: night.kill_targets(s),
        bad_target="bad_kill_target", options=kill_options),
    "possess": Action(
        NIGHT_PHASES, by_night, do_possess, "possess {t}", who=(night_open, is_ghost),
        keys=target_keys, targets=lambda s, a, ph: night.possess_targets(s, a),
        bad_target="bad_possess_target"),
    "cancel_possession": Action(
        NIGHT_PHASES, by_night, do_cancel_possession,
        "cancel the possession", who=(night_open, has_possession)),
    "check": Action(
        NIGHT_PHASES, by_night, do_check, "check {t}", who=(is_police,), keys=target_keys,
        targets=lambda s, a, ph: night.check_targets(s, a, extra=ph == "extra_check"),
        bad_target="bad_check_target"),
    "protect": Action(
        NIGHT_PHASES, by_night, do_protect, "protect {t}",
        who=(night_open, is_guardian), keys=target_keys,
        targets=lambda s, a, ph: night.protect_targets(s, a),
        bad_target="bad_protect_target"),
    "skip_protection": Action(
        NIGHT_PHASES, by_night, do_skip_protection, "protect nobody",
        who=(night_open, is_guardian, may_skip)),
    "defer": Action(NIGHT_PHASES, by_night, do_defer, "go with my team", who=(may_defer,)),
    "team_message": Action(NIGHT_PHASES, by_night, do_team_message, "message my team",
                           who=(has_team,), text=TEAM_MESSAGE),
    "last_words": Action(frozenset({"last_words"}), no_last_words, do_last_words,
                         "leave last words", who=(owes_last_words,), keys=no_keys,
                         text=LAST_WORDS, living=False),
    "speak": Action(SPEECH_PHASES, not_speaker, do_speak, "speak (closing with 过)",
                    who=(speaks_now,), text=SPEECH),
    "vote": Action(
        VOTE_PHASES, not_voter, do_vote, "vote for {t}", who=(votes_now,),
        keys=target_keys, extra=not_self_vote,
        targets=lambda s, a, ph: s["public"]["candidates"], bad_target="bad_vote_target"),
    "abstain": Action(VOTE_PHASES, not_voter, do_vote, "abstain",
                      who=(votes_now,)),
}
KINDS = tuple(ACTIONS)


# --- reading the table ---------------------------------------------------------------------

def may_act(state: dict, actor: int, row: Action) -> Refusal | None:
    """Checks 1-3: whether `actor` may take this kind of step at all now."""
    ph = state["public"]["phase"]
    if row.living and not is_alive(state, actor):
        return refuse("dead")
    if ph not in row.phases:
        return row.off_phase(ph)
    for check in row.who:
        refusal = check(state, actor, ph)
        if refusal is not None:
            return refusal
    return None


def params_refusal(state: dict, actor: int, row: Action, params: dict) -> Refusal | None:
    """Checks 4-6: the parameters (text already removed) of a step `may_act` allows."""
    names, code = row.keys(state)
    if set(params) != set(names):
        return refuse(code or "bad_params")
    if row.extra is not None:
        refusal = row.extra(state, actor, params)
        if refusal is not None:
            return refusal
    if row.targets is not None:
        t = params.get("target")
        if not is_seat(state, t) or t not in row.targets(state, actor, state["public"]["phase"]):
            return refuse(row.bad_target)
    return None


def refusal(state: dict, actor: int, kind: str, params: dict) -> Refusal | None:
    """Whether `actor` may take `kind` with `params` (text already checked) now."""
    row = ACTIONS.get(kind)
    if row is None:
        return refuse("unknown_action")
    found = may_act(state, actor, row)
    return found if found is not None else params_refusal(state, actor, row, params)


def choices(state: dict, actor: int) -> Iterator[tuple[str, dict, Action]]:
    """Every (kind, params, row) `actor` may take now: the table's rows whose checks 1-3
    pass, with each of their parameter sets that passes checks 4-6."""
    ph = state["public"]["phase"]
    for kind, row in ACTIONS.items():
        if may_act(state, actor, row) is not None:
            continue
        for params in row.param_sets(state, actor, ph):
            if params_refusal(state, actor, row, params) is None:
                yield kind, params, row


def label(row: Action, params: dict) -> str:
    """An offered choice in plain words ("kill seat 3 (death pact: seat 5)")."""
    target = params.get("target")
    text = row.label.format(t=seat_name(target) if isinstance(target, int) else "")
    if params.get("pact") is not None:
        text += f" (death pact: {seat_name(params['pact'])})"
    return text
