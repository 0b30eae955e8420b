"""The GM's undo: what can be rolled back (games/services/rollback.py does it)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _

from .. import rulesets
from ..engine.base import GM, replay
from ..models import Action, Announcement, Event, Game, Phase, Seat, StepMessage, StepPost, Vote


@dataclass
class RollbackPlan:
    """What undoing `kind` would do, computed without writing anything.

    `kind` is "phase_end" (the most recent phase end and every step after it) or "step" (one
    seat's last accepted step in the current phase). `target` is the Action.seq the GM
    confirms (a stale page names another one); `steps` the game's step count when planned.
    """

    kind: str
    target: int
    steps: int
    version: int
    removed: list  # the Action rows taken out of the log, in order
    kept_after: list  # the Action rows after `target` that stay (a "step" plan only)
    seat: Seat | None  # the seat whose step is undone (a "step" plan only)
    phase: Phase  # the phase open afterwards
    dropped_phases: list  # the phases the undone phase end opened (they are removed)
    state: dict  # the rebuilt state
    events_removed: list  # stored engine events that go
    events_renumbered: list  # (Event row, its new seq) for later events that stay
    announcements: list  # Announcement rows marked withdrawn
    messages: list  # StepMessage rows whose messages are marked withdrawn
    posts: list  # StepPost rows (vote results, round replies) whose posts are marked withdrawn
    votes: list  # Vote rows deleted (the voter may vote again)
    revived: list  # seat numbers alive again
    fallen: list  # seat numbers no longer alive (a later kept step may kill)

    def summary(self, names: dict[int, str]) -> dict:
        """What the confirm page lists (per seat, how many private messages are withdrawn)."""
        per_seat: dict[int, int] = {}
        for link in self.messages:
            seat = getattr(link.message.conversation, "seat", None)
            if seat is not None:
                per_seat[seat.number] = per_seat.get(seat.number, 0) + 1
        return {"messages": [(n + 1, names.get(n, ""), c) for n, c in sorted(per_seat.items())],
                "revived": [(n + 1, names.get(n, "")) for n in self.revived],
                "fallen": [(n + 1, names.get(n, "")) for n in self.fallen]}


def _same_event(stored: dict, logged: dict) -> bool:
    return all(stored.get(k) == logged.get(k) for k in ("kind", "visibility", "data"))


def rollback_plan(game: Game, kind: str, seat_number: int | None = None) -> RollbackPlan | str:
    """The plan of an undo, or the sentence that says why there is nothing to undo.

    1. Only a running or paused game: a finished or aborted game is not rolled back.
    2. "phase_end": the latest end_phase step and every step after it (the steps taken in
       the phase it opened) leave the log; the phases it opened go; the phase it closed
       is open again.
       "step": the seat's latest accepted step in the current phase leaves the log; the
       later steps stay, provided the engine, replaying them without it, says exactly what
       it said before (else that step cannot be undone alone).
    3. The state is `replay(setup, kept steps)` (games.engine.base.replay).
    """
    if not game.is_live or not game.state or not game.seed:
        return _("Only a running or paused game can be rolled back.")
    actions = list(Action.objects.filter(game=game).order_by("seq"))
    if kind == "phase_end":
        ends = [a for a in actions if a.actor == "clock" and a.kind == "end_phase"]
        if not ends:
            return _("No phase has ended yet: there is nothing to roll back.")
        target = ends[-1]
        removed = [a for a in actions if a.seq >= target.seq]
        kept = [a for a in actions if a.seq < target.seq]
        closing = Phase.objects.filter(pk=target.phase_id).first()
        if closing is None:
            return _("The phase that step ended is no longer on record.")
        phase, seat = closing, None
        dropped = list(game.phases.filter(seq__gt=closing.seq).order_by("seq"))
    elif kind == "step":
        seat = game.seats.filter(number=seat_number).first() if isinstance(
            seat_number, int) and not isinstance(seat_number, bool) else None
        if seat is None:
            return _("There is no such seat.")
        mine = [a for a in actions if a.actor == str(seat.number)
                and a.phase_id == game.current_phase_id and game.current_phase_id]
        if not mine:
            return _("This seat has no accepted step in the current phase to undo.")
        target = mine[-1]
        removed = [target]
        kept = [a for a in actions if a.seq != target.seq]
        phase, dropped = game.current_phase, []
    else:
        return _("Unknown kind of rollback.")
    engine = rulesets.engine(game.ruleset)
    setup = {"seats": game.seat_count, "config": game.config, "seed": game.seed}
    try:
        state = replay(engine, setup, [a.as_step() for a in kept])
    except ValueError:
        return _("The remaining steps do not replay without it; it cannot be undone alone.")
    stored = list(Event.objects.filter(game=game, seq__isnull=False).order_by("seq"))
    log = state["log"]
    prefix = 0
    while prefix < min(len(stored), len(log)) and _same_event(
            stored[prefix].as_engine_event(), log[prefix]):
        prefix += 1
    tail, renumbered, removed_events = stored[prefix:], [], []
    for row in tail:  # the new tail must be the old one less the undone step's events
        if len(renumbered) < len(log) - prefix and _same_event(
                row.as_engine_event(), log[prefix + len(renumbered)]):
            renumbered.append((row, prefix + len(renumbered)))
        else:
            removed_events.append(row)
    if prefix + len(renumbered) != len(log):
        return _("Later steps depend on this one; undo them first.")
    removed_seqs = [a.seq for a in removed]
    living_now = set(engine.living_seats(game.state))
    living_then = set(engine.living_seats(state))
    return RollbackPlan(
        kind=kind, target=target.seq, steps=game.steps, version=game.version,
        removed=removed, kept_after=[a for a in kept if a.seq > target.seq], seat=seat,
        phase=phase, dropped_phases=dropped, state=state, events_removed=removed_events,
        events_renumbered=[(row, seq) for row, seq in renumbered if row.seq != seq],
        announcements=list(Announcement.objects.filter(
            game=game, step_seq__in=removed_seqs, withdrawn_at=None).order_by("id")),
        messages=list(StepMessage.objects.filter(game=game, step_seq__in=removed_seqs)
                      .select_related("message__conversation__seat").order_by("id")),
        posts=list(StepPost.objects.filter(game=game, step_seq__in=removed_seqs,
                                           post__withdrawn_at=None).order_by("id")),
        votes=list(_undone_votes(game, removed, dropped)),
        revived=sorted(living_then - living_now), fallen=sorted(living_now - living_then))


def _undone_votes(game: Game, removed: list, dropped: list) -> QuerySet[Vote]:
    """The Vote rows of the undone steps: every vote of a dropped phase, and the vote an
    undone vote step cast."""
    cond = Q(phase__in=dropped)
    for a in removed:
        if a.kind in ("vote", "runoff_vote", "proxy_vote") and a.seat_id and a.phase_id:
            cond |= Q(phase_id=a.phase_id, voter_id=a.seat_id, proxy=a.kind == "proxy_vote")
    return Vote.objects.filter(cond, game=game).select_related("voter", "target")


def undoable(game: Game) -> dict:
    """What the GM may roll back now: the latest phase end and each seat's last step in the
    current phase, each a RollbackPlan or the reason it cannot be undone."""
    seats = sorted(set(Action.objects.filter(game=game, phase=game.current_phase_id)
                       .exclude(actor__in=("clock", GM)).values_list("seat__number", flat=True))
                   - {None}) if game.current_phase_id else []
    return {"phase_end": rollback_plan(game, "phase_end"),
            "steps": [(n, rollback_plan(game, "step", n)) for n in seats]}
