"""Storing what the engine said: the replay log, the events, the state snapshot.

Shared by every writer that hands a step to the engine (steps, gm, lifecycle).
Precondition of everything here: the caller holds the game lock.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import TYPE_CHECKING

from django.utils import timezone
from django.utils.translation import gettext as _

from .. import awaiting
from ..engine.base import Refusal, RuleSet, Transition
from ..models import Action, Event, Game, Phase, Seat
from ..presenters import refusal_text
from .kernel import GameError, ruleset_of
from .watching import end_watching

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User
    from django.contrib.auth.models import AnonymousUser

log = logging.getLogger(__name__)


def apply_step(game: Game, step: dict, *, user: User | AnonymousUser | None, seat: Seat | None,
           received_at: dt.datetime | None = None,
           seats: list[Seat] | None = None) -> Transition:
    """Precondition: the caller holds the game lock. `seats`: all of the game's seats, when
    the caller read them under the lock (their `alive` is kept in step here)."""
    try:
        result = ruleset_of(game).apply(game.state, step)
    except Exception:
        log.exception("engine raised on %s", step)
        raise GameError(
            _("The rules could not process this request; nothing was recorded.")) from None
    if isinstance(result, Refusal):
        raise GameError(refusal_text(game.ruleset, result), code=result.code)
    record_step(game, step, result, user=user, seat=seat, received_at=received_at)
    store_events(game, result.events, game.current_phase)
    sync_alive(game, ruleset_of(game), seats)
    return result


def record_step(game: Game, step: dict, t: Transition, *, user: User | AnonymousUser | None,
                seat: Seat | None,
                 received_at: dt.datetime | None = None) -> None:
    game.steps += 1
    Action.objects.create(game=game, seq=game.steps, phase=game.current_phase,
                          actor=str(step["actor"]), seat=seat, kind=step["kind"],
                          params=step["params"], user=user if user and user.pk else None,
                          received_at=received_at or timezone.now())
    game.state = t.state
    game.awaiting = awaiting.for_game(game)


def store_events(game: Game, events: list[dict], phase: Phase | None) -> None:
    Event.objects.bulk_create([
        Event(game=game, seq=e["seq"], phase=phase, kind=e["kind"],
              public=e["visibility"]["public"],
              audience="," + ",".join(str(s) for s in e["visibility"]["seats"]) + ","
              if e["visibility"]["seats"] else "",
              data=e["data"], because=e.get("because", []))
        for e in events])


def sync_alive(game: Game, engine: RuleSet, seats: list[Seat] | None = None) -> None:
    """Each seat's `alive` copy as the engine has it (`seats`: read under the lock already).
    A seat alive again (the GM's rollback) stops watching the game at once
    (`watching.end_watching`: revival revokes)."""
    living = set(engine.living_seats(game.state))
    revived = []
    for seat in game.seats.all() if seats is None else seats:
        if seat.alive != (seat.number in living):
            Seat.objects.filter(pk=seat.pk).update(alive=seat.number in living)
            seat.alive = seat.number in living
            if seat.alive and seat.user_id is not None:
                revived.append(seat.user_id)
    end_watching(game, revived)
