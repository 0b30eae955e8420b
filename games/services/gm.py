"""The GM's powers over a running game: a rule set's GM step, end the phase now, extend the
deadline, pause, resume, abort. Each is logged in the game's GM-only event log."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..engine.base import GM, Transition, action
from ..models import Game, Phase
from ..presenters import phase_label
from ..selectors import inner_phase, seat_names
from . import kernel
from .kernel import (
    GameError,
    announce,
    changed,
    deliver_private,
    log_gm,
    page_facts,
    require_gm,
)
from .lifecycle import advance_locked, close_choices, finish_if_over
from .manifestos import review_open
from .record import apply_step
from .watching import deliver_graveyard_mentions

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User


def gm_step(*, game_id: int, gm: User | None, kind: str, params: dict | None = None) -> Transition:
    """A GM step the rule set defines (override an action, reject a manifesto...)."""
    with transaction.atomic():
        game = require_gm(game_id, gm)
        facts = page_facts(game)
        if not game.is_live:
            raise GameError(_("This game is not running."))
        if kind == "reject_manifesto" and not review_open(game, timezone.now()):
            raise GameError(_("Review closed %(n)d minutes before dawn: the manifesto is "
                              "published as written.") % {"n": game.manifesto_review_minutes},
                            code="closed")
        t = apply_step(game, action(GM, kind, **(params or {})), user=gm, seat=None)
        names = seat_names(game)
        deliver_private(game, t.events, names)
        log_gm(game, gm, kind, params or {})
        announce(game, game.current_phase, _("From the GM"), "", events=t.events,
                 step=game.steps)
        finish_if_over(game, timezone.now())
        game.save()
        changed(game, since=facts)
    return t


# The GM's answers when ending a phase now would begin a phase the rule set runs inside it
# (Classic's extra check): wait for it, or end both now.
INNER_CHOICES = ("wait", "skip")


def end_phase_now(*, game_id: int, gm: User | None, now: dt.datetime | None = None,
                  inner: str | None = None) -> None:
    """The console's "end this phase now": one press, one line in the GM's log.

    1. If ending the phase would begin a phase the rule set runs inside it
       (`selectors.inner_phase`'s "due": Classic's extra check, the police having checked
       the poison), the GM says which they want: `inner="wait"` begins it now (a night that
       keeps its time closes its choices now, and the extra check runs to the deadline,
       which stays; docs/rules/classic.md), `inner="skip"` ends both now (the police are
       told their check, then the dawn comes: no extra check). No answer is refused, and
       nothing changes.
    2. Otherwise the phase ends now, whatever is under way inside it and whether or not
       its choices closed already; an answer is refused then (the console was out of date:
       the police's check changed, the choices closed meanwhile).
    Bad input (an answer that is neither) is refused before anything is read.
    """
    if inner not in (None, *INNER_CHOICES):
        raise GameError(_("Choose whether to wait for what is still due or to end the "
                          "phase without it."), code="inner")
    now = kernel.now(now)
    with transaction.atomic():
        game = require_gm(game_id, gm)
        facts = page_facts(game)
        if game.status != Game.Status.RUNNING:
            raise GameError(_("This game is not running."))
        where = inner_phase(game)
        if where["due"] and inner is None:
            raise GameError(_("Ending this phase now would begin %(inner)s: choose whether "
                              "to wait for it or to end the phase without it.")
                            % {"inner": phase_label(where["due"], game.ruleset)}, code="inner")
        if inner is not None and not where["due"]:
            raise GameError(_("Nothing is due inside this phase any more: look at the "
                              "console again."), code="inner")
        # Logged first, so that the line belongs to the phase the press ended.
        details = {"inner": inner, "phase": where["due"]} if inner else \
            {"inner": "running", "phase": where["running"]} if where["running"] else {}
        log_gm(game, gm, "end_phase_now", details)
        if inner == "wait" and game.choices_close_at is not None and not game.choices_closed:
            close_choices(game, reason="gm", now=now, by=gm)  # the inner phase begins
        else:
            advance_locked(game, reason="gm", now=now, by=gm)
            if inner == "skip":
                advance_locked(game, reason="gm", now=now, by=gm)  # and ends at once
        changed(game, since=facts)


def extend_deadline(*, game_id: int, gm: User | None, minutes: int) -> Game:
    if not isinstance(minutes, int) or not 1 <= minutes <= 7 * 24 * 60:
        raise GameError(_("Extend by 1 minute to 7 days."))
    with transaction.atomic():
        game = require_gm(game_id, gm)
        if game.status != Game.Status.RUNNING or game.deadline is None:
            raise GameError(_("This game is not running."))
        game.deadline += dt.timedelta(minutes=minutes)
        if game.choices_close_at is not None:  # the choices' close moves with it
            game.choices_close_at += dt.timedelta(minutes=minutes)
        Phase.objects.filter(pk=game.current_phase_id).update(deadline=game.deadline)
        game.save(update_fields=["deadline", "choices_close_at"])
        log_gm(game, gm, "extend_deadline", {"minutes": minutes})
        changed(game, what="deadline")
    return game


def pause_game(*, game_id: int, gm: User | None, now: dt.datetime | None = None) -> Game:
    now = kernel.now(now)
    with transaction.atomic():
        game = require_gm(game_id, gm)
        if game.status != Game.Status.RUNNING:
            raise GameError(_("Only a running game can be paused."))
        game.status = Game.Status.PAUSED
        game.paused_remaining = max(game.deadline - now, dt.timedelta()) if game.deadline else None
        game.save(update_fields=["status", "paused_remaining"])
        log_gm(game, gm, "pause", {})
        changed(game, what="phase")
    return game


def resume_game(*, game_id: int, gm: User | None, now: dt.datetime | None = None) -> Game:
    """Resume with the time that was left when the game was paused."""
    now = kernel.now(now)
    with transaction.atomic():
        game = require_gm(game_id, gm)
        if game.status != Game.Status.PAUSED:
            raise GameError(_("Only a paused game can be resumed."))
        game.status = Game.Status.RUNNING
        if game.paused_remaining is not None:
            moved = now + game.paused_remaining - game.deadline
            game.deadline += moved
            if game.choices_close_at is not None:  # the choices' close moves with it
                game.choices_close_at += moved
            Phase.objects.filter(pk=game.current_phase_id).update(deadline=game.deadline)
        game.paused_remaining = None
        game.save(update_fields=["status", "deadline", "choices_close_at", "paused_remaining"])
        log_gm(game, gm, "resume", {})
        changed(game, what="phase")
    return game


def abort_game(*, game_id: int, gm: User | None, reason: str = "",
               now: dt.datetime | None = None) -> Game:
    now = kernel.now(now)
    with transaction.atomic():
        game = require_gm(game_id, gm)
        if game.is_over:
            raise GameError(_("This game is already over."))
        game.status = Game.Status.ABORTED
        game.finished_at, game.deadline = now, None
        game.outcome = {"result": "aborted", "winners": [], "note": reason}
        game.save()
        log_gm(game, gm, "abort", {"reason": reason})
        announce(game, game.current_phase, _("Game aborted"),
                  _("The GM has stopped the game. %(reason)s") % {"reason": reason},
                  events=[], force_publish=True)
        deliver_graveyard_mentions(game)
        changed(game, what="phase")
    return game
