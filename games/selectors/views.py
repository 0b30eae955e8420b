"""The engine's views and the events a viewer may read: the only way pages read a game's state
(`view_for`, `seat_view`, `gm_view`), the legal actions, public events and vote tallies."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Q, QuerySet

from .. import rulesets
from ..engine.base import GM, SPECTATOR, Choice
from ..models import Event, Game, Phase, Seat
from ..presenters import VoteTally, vote_tallies
from .seats import is_gm, seat_names, seat_of

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User
    from django.contrib.auth.models import AnonymousUser


def view_for(game: Game, user: User | AnonymousUser | None, *,
             seats=None) -> tuple[dict | None, Seat | None]:
    """The engine's view for `user`, and their seat (None without one):
    1. a seat holder gets their seat's view (also after the end: the review shows all);
    2. anyone else gets the GM's view once the game is over (the review reveals everything);
    3. anyone else gets a spectator's view while it runs. Staff status opens nothing here:
       a game's secrets reach the GM through the 天神 console, not through the pages.

    The only way pages read a game's state. `seats`: all of the game's seats, when the
    caller read them already.
    """
    if not game.state:
        return None, None
    seat = seat_of(game, user, seats=seats)
    return seat_view(game, seat.number if seat is not None else None), seat


def seat_view(game: Game, number: int | None) -> dict | None:
    """`view_for` by the viewer's seat number (None: no seat), for a caller that read the
    number with the game's row (the home page: the view and its cache key then come from
    the same read): seat `number`'s view; without one, the GM's view once the game is over
    and a spectator's while it runs."""
    if not game.state:
        return None
    engine = rulesets.engine(game.ruleset)
    if number is not None:
        return engine.view(game.state, number)
    if game.is_over:
        return engine.view(game.state, GM)  # the review reveals everything
    return engine.view(game.state, SPECTATOR)


def gm_view(game: Game) -> dict | None:
    """The GM's view (everything the game hides), None for a game without a state. For the
    post-game review and its preview by the game's GM: the caller has checked that the
    viewer may read it (`view_for` gives it to everyone only after the end)."""
    if not game.state:
        return None
    return rulesets.engine(game.ruleset).view(game.state, GM)


def legal_actions_for(game: Game, number: int | None) -> list[Choice]:
    """What seat `number` may do now (the engine's `legal_actions(state, seat)`, the choices
    its forms are built from): nothing without a seat or a state, or once the game is not
    running (a paused game takes no step)."""
    if number is None or not game.state or game.status != Game.Status.RUNNING:
        return []
    return rulesets.engine(game.ruleset).legal_actions(game.state, number)


def living_seats(game: Game) -> set[int] | None:
    """The seats still in the game (the engine's `living_seats`), for the GM's console; None
    for a game without a state or of a rule set no longer registered."""
    if not game.state or game.ruleset not in rulesets.names():
        return None
    return set(rulesets.engine(game.ruleset).living_seats(game.state))


def events_visible_to(game: Game, user: User | AnonymousUser | None) -> QuerySet[Event]:
    """Events the user may see: their seat's and public ones; everything for the game's GM
    (`is_gm`) or after the end."""
    qs = Event.objects.filter(game=game)
    if game.is_over or is_gm(user, game):
        return qs
    seat = seat_of(game, user)
    cond = Q(public=True)
    if seat is not None:
        cond |= Q(audience__contains=f",{seat.number},")
    return qs.filter(cond)


def public_event_rows(game: Game) -> list[Event]:
    """Every PUBLIC event of `game` (the stored rows, with their phases), oldest first: the
    same for every viewer. The home page reads them once for its timeline and its tallies."""
    return list(Event.objects.filter(game=game, public=True).select_related("phase")
                .order_by("id"))


def public_events(game: Game, *, from_phase_seq: int | None = None,
                  rows: list[Event] | None = None) -> list[dict]:
    """The game's PUBLIC engine events in the engine's order, as engine event dicts with the
    `phase_number` (the round) of the phase they were stored with. Only public events: what
    is read from here is the same for every viewer (vote tallies). `rows`: the game's public
    event rows (`public_event_rows`), when the caller read them already."""
    if rows is None:
        qs = Event.objects.filter(game=game, public=True, seq__isnull=False).select_related(
            "phase").order_by("seq")
        if from_phase_seq is not None:
            qs = qs.filter(phase__seq__gte=from_phase_seq)
    else:
        qs = sorted((e for e in rows if e.seq is not None and (
            from_phase_seq is None or (e.phase is not None and e.phase.seq >= from_phase_seq))),
            key=lambda e: e.seq)
    return [dict(e.as_engine_event(), phase_number=e.phase.number if e.phase else 0)
            for e in qs]


def game_vote_tallies(game: Game, *, from_phase_seq: int | None = None,
                      rows: list[Event] | None = None,
                      names: dict[int, str] | None = None) -> list[VoteTally]:
    """The tallies of the game's votes (public events only), oldest first (`rows`, `names`:
    the public event rows and seat names, when the caller read them already)."""
    return vote_tallies(game.ruleset,
                        public_events(game, from_phase_seq=from_phase_seq, rows=rows),
                        seat_names(game) if names is None else names)


def phase_vote_tally(game: Game, phase: Phase) -> VoteTally | None:
    """The tally of the vote of `phase` (a phase with a vote thread), or None."""
    for tally in game_vote_tallies(game, from_phase_seq=phase.seq):
        if tally.key == (phase.name, phase.number):
            return tally
    return None


def preview_end_phase(game: Game) -> list[dict]:
    """What resolving the current phase now would produce (nothing is stored)."""
    if not game.state or not game.is_live:
        return []
    return rulesets.engine(game.ruleset).end_phase(game.state).events
