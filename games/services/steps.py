"""Players' steps: an action, a vote, a proxy vote, a loss order, a withdrawal."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.utils import translation
from django.utils.translation import gettext as _

from messaging import services as forum

from ..engine.base import Transition, action
from ..mail import user_locale
from ..models import Action, Game, Seat, Vote
from ..presenters import announce_at_once, describe, phase_step_title
from ..selectors import seat_names, seat_of, write_refusal
from . import kernel
from .kernel import GameError, announce, deliver_private, lock_game, ruleset_of
from .lifecycle import advance_locked, choices_closed, finish_if_over
from .record import apply_step

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User
    from django.contrib.auth.models import AnonymousUser

VOTE_KINDS = {"vote": False, "runoff_vote": False, "proxy_vote": True}
WITHDRAW_KINDS = ("withdraw",)


def submit_action(*, game_id: int, user: User | AnonymousUser | None, kind: str,
                  params: dict | None = None,
                  expected_phase: int | None = None, now: dt.datetime | None = None) -> Transition:
    """A seated player's step (use a card, vote, proxy vote, loss order, withdraw...).

    Refused (GameError, nothing stored) when: the game is not running; the phase the player
    saw (`expected_phase`, a Phase.seq) is over; the deadline has passed; the player holds no
    seat; a change comes inside the change cut-off; the account reads a running game's
    secrets (games.selectors.secrets); or the rules refuse it.
    """
    now = kernel.now(now)
    params = dict(params or {})
    # A seat's step may be public (Classic's last words, a manifesto): whoever reads the
    # secrets of a running game takes none. Asked before the game lock (it reads other
    # games' watchers, none of which this lock guards; a revived watcher's rows are gone).
    refusal = write_refusal(user)
    if refusal:
        raise GameError(refusal, code="forbidden")
    with transaction.atomic():
        game = lock_game(game_id)
        if game is None:
            raise GameError(_("This game does not exist."), code="not_found")
        # Every seat once, with what the step needs of them (the voter's and the target's,
        # their names, who is alive, the conversations and languages of the messages), so
        # the game lock is held for fewer queries.
        facts = kernel.page_facts(game)
        seats = list(game.seats.select_related("user__profile", "conversation"))
        seat = seat_of(game, user, seats=seats)
        if seat is None:
            raise GameError(_("You do not hold a seat in this game."), code="forbidden")
        if game.status == Game.Status.PAUSED:
            raise GameError(_("The game is paused; try again when the GM resumes it."))
        if game.status != Game.Status.RUNNING:
            raise GameError(_("This game is not running."))
        if expected_phase is not None and game.current_phase and \
                game.current_phase.seq != expected_phase:
            raise GameError(_("That phase is over; the page you used was out of date."))
        if game.deadline is not None and now >= game.deadline:
            raise GameError(_("The deadline has passed; nothing was recorded."))
        if choices_closed(game, now) and ruleset_of(game).view(game.state, seat.number)[
                "public"]["phase"] not in ruleset_of(game).within_previous:
            # Tonight's choices closed for every seat alike; only the seat the phase run
            # inside the night concerns (Classic's police in their extra check) acts on.
            raise GameError(_("Tonight's choices are closed; nothing was recorded."))
        if _is_change(game, seat, kind) and game.deadline is not None and \
                now >= game.deadline - dt.timedelta(minutes=game.change_cutoff_minutes):
            raise GameError(_("Changes are closed %(n)d minutes before the deadline.")
                            % {"n": game.change_cutoff_minutes})
        step = action(seat.number, kind, **params)
        before = (game.state or {}).get("public") or {}  # the round and turn the step is in
        t = apply_step(game, step, user=user, seat=seat, received_at=now, seats=seats)
        if kind in VOTE_KINDS:
            _store_vote(game, seat, kind, params, seats)
        names = seat_names(game, seats)
        deliver_private(game, t.events, names, seats)
        _confirm(game, seat, step, names, seats)
        at_once = announce_at_once(game.ruleset)
        shown = [e for e in t.events if e["visibility"]["public"] and e["kind"] in at_once]
        if shown:
            announce(game, game.current_phase, phase_step_title(
                game.ruleset, game.phase_name, game.phase_number, before, names), "",
                events=shown, step=game.steps)
        if not finish_if_over(game, now):
            early = game.early_end and not ruleset_of(game).phase(game.state).awaiting \
                and not choices_closed(game, now)
            if early:
                advance_locked(game, reason="early", now=now, by=None)
        if kernel.page_facts(game) != facts or any(e["visibility"]["public"] for e in t.events):
            kernel.changed(game, since=facts, saved_after=True)
        game.save()
        # else a secret step (a card chosen at night): nothing anyone else's page shows has
        # changed, and a public version or a feed event moving now would tell every reader
        # when the seat acted. The seat's own kept parts are keyed by the step count too
        # (games.web.pages.parts_key).
    return t


def _is_change(game: Game, seat: Seat, kind: str) -> bool:
    """Does this step change or withdraw something already submitted in this phase?"""
    if kind in WITHDRAW_KINDS:
        return True
    return Action.objects.filter(game=game, phase=game.current_phase, seat=seat,
                                 kind=kind).exists()


def _store_vote(game: Game, seat: Seat, kind: str, params: dict, seats: list[Seat]) -> None:
    target_number = params.get("target")
    target = next((s for s in seats if s.number == target_number), None) if isinstance(
        target_number, int) else None
    proxy = VOTE_KINDS[kind]
    if proxy:
        Vote.objects.update_or_create(phase=game.current_phase, voter=seat, proxy=True,
                                      defaults={"game": game, "target": target})
        return
    try:  # no savepoint: the refusal rolls the whole step back
        Vote.objects.create(game=game, phase=game.current_phase, voter=seat, target=target)
    except IntegrityError:
        raise GameError(
            _("You have already voted in this phase; a vote cannot be changed.")) from None


def _confirm(game: Game, seat: Seat, step: dict, names: dict[int, str],
             seats: list[Seat] | None = None) -> None:
    """The "received" message to the seat. `names` are the seats' names in the active
    language, reused when the seat reads that language too (an empty seat's "seat N")."""
    written_in = translation.get_language()
    with translation.override(user_locale(seat.user).language):
        if translation.get_language() != written_in:
            names = seat_names(game, seats)
        summary = describe(game.ruleset, {"kind": step["kind"], "data": step["params"],
                                          "visibility": {"public": False, "seats": []}}, names)
        body = _("Received: %(summary)s") % {"summary": summary}
    if seat.conversation is not None:
        message = forum.send_as_messenger(conversation=seat.conversation, body=body[:19_000])
        kernel.link_step_message(game, message)
