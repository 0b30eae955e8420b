"""A game's life: create, start (deal, commitment, player list), the clock that ends phases
(`advance_phase`, `sweep`) and the end of the game.

Nothing here knows a particular rule set: the engine interface (games/engine/base.py) is all
the machinery uses.
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
import uuid
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import display_name, messenger_user
from messaging import services as forum
from messaging.models import Board, Thread
from messaging.notifications import Kind

from .. import awaiting, rulesets
from ..engine.base import GM, SPECTATOR, end_phase, new_seed
from ..models import Game, Phase, Seat
from ..presenters import (
    because_text,
    listing,
    phase_end_title,
    phase_summary,
    result_lines,
    vote_heading,
)
from ..presenters.deal import deal_markdown, deal_rows
from ..selectors import commitment_of, seat_names, write_refusal
from . import backoff, kernel, votes
from .ghosts import restore_ghost_threads
from .kernel import GameError, announce, deliver_private, lock_game, ruleset_of
from .record import record_step, store_events, sync_alive
from .watching import deliver_graveyard_mentions, graveyard_board

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User

    from ..engine.base import Outcome

log = logging.getLogger(__name__)


def check_settings(*, ruleset: str, seat_count: int, config: dict | None,
                   durations: dict | None, change_cutoff_minutes: int) -> dict:
    """The full config of a game with these settings, or GameError naming what is wrong.

    1. The rule set is in the table and the seat count within its range.
    2. Each duration names a phase of the rule set and is a number of minutes > 0 and
       longer than the change cut-off (else nobody could change a step in that phase).
    3. The engine accepts the config: a trial deal with a throwaway seed must succeed.
    """
    if ruleset not in rulesets.names():
        raise GameError(_("Unknown rule set."), code="ruleset")
    entry = rulesets.get(ruleset)
    engine = entry.engine
    if isinstance(seat_count, bool) or not isinstance(seat_count, int) or not (
            engine.min_seats <= seat_count <= engine.max_seats):
        raise GameError(_("This rule set is played by %(lo)d to %(hi)d players.")
                        % {"lo": engine.min_seats, "hi": engine.max_seats}, code="seat_count")
    if isinstance(change_cutoff_minutes, bool) or not isinstance(change_cutoff_minutes, int) \
            or change_cutoff_minutes < 0:
        raise GameError(_("The change cut-off is a whole number of minutes, 0 or more."),
                        code="change_cutoff_minutes")
    for phase, minutes in (durations or {}).items():
        if entry.phases and phase not in entry.phases:
            raise GameError(_("This rule set has no phase %(phase)s.") % {"phase": phase},
                            code="durations")
        if isinstance(minutes, bool) or not isinstance(minutes, int | float) or minutes <= 0:
            raise GameError(_("A phase lasts more than 0 minutes."), code="durations")
        if minutes <= change_cutoff_minutes:
            raise GameError(_("Every phase must be longer than the change cut-off "
                              "(%(n)d minutes).") % {"n": change_cutoff_minutes},
                            code="durations")
    full = {**engine.default_config(), **(config or {})}
    if "change_cutoff_minutes" in engine.default_config():
        full["change_cutoff_minutes"] = change_cutoff_minutes
    try:
        engine.initial_state(seats=seat_count, config=full, seed="settings-check")
    except (ValueError, TypeError, KeyError) as exc:
        raise GameError(_("These rule options do not work together: %(why)s")
                        % {"why": why_not(ruleset, exc)}, code="config") from None
    return full


def create_game(*, name: str, ruleset: str, gm: User | None, seat_count: int,
                config: dict | None = None,
                durations: dict | None = None, early_end: bool = True,
                hold_announcements: bool = False, change_cutoff_minutes: int = 10,
                manifesto_review_minutes: int = 0,
                watch_delay: int = Game.WatchDelay.ONE,
                outsiders: str = Game.Outsiders.OFF, watch_risk_accepted: bool = False) -> Game:
    """A new game in draft, with its board and announcement thread (GameError on settings
    that do not fit the rule set; nothing is stored then)."""
    if gm is not None and gm.pk == messenger_user().pk:
        raise GameError(_("The messenger account cannot be a game master."), code="gm")
    refusal = write_refusal(gm)  # a new game's name and notes are read by the living
    if refusal:
        raise GameError(refusal, code="gm")
    full = check_settings(ruleset=ruleset, seat_count=seat_count, config=config,
                          durations=durations, change_cutoff_minutes=change_cutoff_minutes)
    check_review_minutes(manifesto_review_minutes)
    check_watch_delay(watch_delay)
    check_watching(ruleset=ruleset, outsiders=outsiders, risk_accepted=watch_risk_accepted)
    with transaction.atomic():
        game = Game.objects.create(
            name=name, ruleset=ruleset, gm=gm, seat_count=seat_count,
            config=full, durations=durations or {},
            early_end=early_end, hold_announcements=hold_announcements,
            change_cutoff_minutes=change_cutoff_minutes,
            manifesto_review_minutes=manifesto_review_minutes, watch_delay=watch_delay,
            outsiders=outsiders, watch_risk_accepted=watch_risk_accepted)
        ensure_board(game)
    return game


REVIEW_MINUTES_MAX = 7 * 24 * 60


def check_review_minutes(minutes: object) -> None:
    """`Game.manifesto_review_minutes` is a whole number of minutes from 0 to 7 days."""
    if isinstance(minutes, bool) or not isinstance(minutes, int) \
            or not 0 <= minutes <= REVIEW_MINUTES_MAX:
        raise GameError(_("Manifesto review closes 0 to %(n)d minutes before dawn.")
                        % {"n": REVIEW_MINUTES_MAX}, code="manifesto_review_minutes")


def check_watch_delay(delay: object) -> None:
    """`Game.watch_delay` is one of `Game.WatchDelay`."""
    if isinstance(delay, bool) or delay not in Game.WatchDelay.values:
        raise GameError(_("Choose how far behind watchers follow the game."),
                        code="watch_delay")


def check_watching(*, ruleset: str, outsiders: object, risk_accepted: object) -> None:
    """`Game.outsiders` is one of `Game.Outsiders`, and open watching in a rule set whose
    roles never change (`rulesets.RuleSetEntry.roles_fixed`) comes with the GM's acceptance
    of the risk (`Game.watch_risk_accepted`): a watcher knows every hand from the first
    night to the end and may be a living player's second account."""
    if outsiders not in Game.Outsiders.values:
        raise GameError(_("Choose whether outsiders may watch."), code="outsiders")
    if outsiders == Game.Outsiders.OPEN and risk_accepted is not True \
            and ruleset in rulesets.names() and rulesets.get(ruleset).roles_fixed:
        raise GameError(_("In this rule set the roles never change: to let any outsider "
                          "watch, tick that you understand anyone watching may be a "
                          "second account of a player still in the game, seeing every "
                          "hand. Or let outsiders watch by request."),
                        code="watch_risk_accepted")


# What may still change once a game has started; the rest is its setup (replay depends on it,
# and how far behind watchers follow was known to everyone who signed up). Who of the
# outsiders may watch stays the GM's choice while it runs: turning it off lets nobody new in,
# and who already watches keeps watching (they have read the secrets already).
RUNNING_SETTINGS = ("name", "gm", "early_end", "hold_announcements", "manifesto_review_minutes",
                    "outsiders", "watch_risk_accepted")
SETUP_SETTINGS = ("ruleset", "seat_count", "config", "durations", "change_cutoff_minutes")
DRAFT_SETTINGS = RUNNING_SETTINGS + SETUP_SETTINGS + ("watch_delay",)


def update_settings(*, game_id: int, changes: dict) -> Game:
    """Change a game's settings from the admin: lock, re-check, write only those columns.

    Race prevented: the admin form was read before a sweep advanced the game; saving the
    whole row would write back the old state, phase and deadline. Under the game lock only
    the named columns are written (`update_fields`), so whatever the sweeper wrote stays.
    A started game keeps its setup: only RUNNING_SETTINGS may change.
    """
    with transaction.atomic():
        game = lock_game(game_id)
        if game is None:
            raise GameError(_("This game does not exist."), code="not_found")
        started = game.status not in (Game.Status.DRAFT, Game.Status.SIGNUP)
        allowed = RUNNING_SETTINGS if started else DRAFT_SETTINGS
        refused = sorted(set(changes) - set(allowed))
        if refused:
            raise GameError(_("A started game's setup cannot change: %(fields)s.")
                            % {"fields": listing(refused)}, code="started")
        if "manifesto_review_minutes" in changes:
            check_review_minutes(changes["manifesto_review_minutes"])
        if "watch_delay" in changes:
            check_watch_delay(changes["watch_delay"])
        check_watching(ruleset=changes.get("ruleset", game.ruleset),
                       outsiders=changes.get("outsiders", game.outsiders),
                       risk_accepted=changes.get("watch_risk_accepted",
                                                 game.watch_risk_accepted))
        gm = changes.get("gm", game.gm)
        if gm is not None and gm.pk == messenger_user().pk:
            raise GameError(_("The messenger account cannot be a game master."), code="gm")
        if not started:
            merged = {key: changes.get(key, getattr(game, key)) for key in SETUP_SETTINGS}
            changes = {**changes, "config": check_settings(**merged)}
        for key, value in changes.items():
            setattr(game, key, value)
        game.save(update_fields=list(changes))
        kernel.changed(game)
    return game


def ensure_board(game: Game) -> Board:
    """The game's board and its announcement thread (created once; the admin's add form
    calls this too)."""
    if game.board is None:
        game.board = forum.create_board(slug=f"game-{uuid.uuid4().hex[:12]}", title=game.name)
        game.save(update_fields=["board"])
        forum.start_thread(board=game.board, author=messenger_user(),
                           kind=Thread.Kind.ANNOUNCEMENT,
                           title=_("Announcements: %(name)s") % {"name": game.name},
                           body=_("Announcements of the game will be posted here."),
                           key="announcements", pinned=True, enforce_rate_limit=False)
    return game.board


def start_game(*, game_id: int, users: list[User], seed: str | None = None,
               now: dt.datetime | None = None) -> Game:
    """Seat `users` in order, deal, publish the player list and the deal commitment, and
    open the first phase."""
    now = kernel.now(now)
    with transaction.atomic():
        game = lock_game(game_id)
        if game is None:
            raise GameError(_("This game does not exist."), code="not_found")
        if game.status not in (Game.Status.DRAFT, Game.Status.SIGNUP):
            raise GameError(_("This game has already started."))
        if len(users) != game.seat_count or len({u.pk for u in users}) != len(users):
            raise GameError(_("A game of %(n)d seats needs %(n)d different players.")
                            % {"n": game.seat_count})
        engine = ruleset_of(game)
        game.seed = seed or new_seed()
        try:
            t = engine.initial_state(seats=game.seat_count, config=game.config, seed=game.seed)
        except ValueError as exc:
            raise GameError(_("The game cannot start: %(why)s") % {"why": why_not(game.ruleset, exc)}) \
                from None
        for number, user in enumerate(users):
            conversation = forum.conversation_for(owner=user, board=game.board)
            # The seat keeps the name its holder has now for the whole game (seat_names).
            Seat.objects.create(game=game, number=number, user=user, conversation=conversation,
                                name=display_name(user))
        game.state = t.state
        game.awaiting = awaiting.for_game(game)
        text = engine.commitment_text(t.state)
        if text is not None:
            game.salt = secrets.token_hex(16)
            game.commitment = commitment_of(text, game.salt)
        game.status = Game.Status.RUNNING
        game.started_at = now
        game.save()
        graveyard_board(game)
        phase = open_phase(game, now)
        store_events(game, t.events, phase)
        names = seat_names(game)
        lines = [_("The game begins. Players:")]
        lines += [f"{n + 1}. {name}" for n, name in sorted(names.items())]
        if game.commitment:
            lines.append(_("Deal commitment (SHA-256 of the deal and a secret salt, revealed "
                           "at the end): `%(hash)s`") % {"hash": game.commitment})
        announce(game, phase, _("Player list"), "\n\n".join(lines), events=t.events,
                  force_publish=True)
        deliver_private(game, t.events, names)
        game.save()
        kernel.changed(game, what="phase")
    return game


def open_phase(game: Game, now: dt.datetime) -> Phase:
    """Create the Phase row for the engine's current phase and set the deadline.

    Precondition: the caller holds the game lock and `game.state` is the new state.
    """
    info = ruleset_of(game).phase(game.state)
    seq = (game.current_phase.seq + 1) if game.current_phase_id else 1
    deadline = now + dt.timedelta(minutes=game.minutes_for(info.name))
    phase = Phase.objects.create(game=game, seq=seq, name=info.name, number=info.number,
                                 started_at=now, deadline=deadline)
    game.current_phase = phase
    game.phase_name, game.phase_number, game.deadline = info.name, info.number, deadline
    game.choices_close_at, game.choices_closed = reserved_close(game, deadline, now), False
    if info.name in ruleset_of(game).vote_phases:
        _open_vote_thread(game, phase)
    return phase


def reserved_close(game: Game, deadline: dt.datetime, now: dt.datetime) -> dt.datetime | None:
    """When the phase opening now closes its choices: its deadline less the duration of the
    phase it keeps time for (`RuleSet.reserved_for`: Classic's extra check); None when it
    keeps none, or its own time is no longer than that."""
    kept = ruleset_of(game).reserved_for(game.state)
    if kept is None:
        return None
    at = deadline - dt.timedelta(minutes=game.minutes_for(kept))
    return at if at > now else None


def choices_closed(game: Game, now: dt.datetime) -> bool:
    """Are the current phase's choices closed ahead of its deadline (`reserved_close`):
    its close has come or the service closed them (`close_choices`)? The same for every
    seat; only a seat whose own view names a phase run inside this one (Classic's police in
    their extra check) still acts then."""
    return game.choices_close_at is not None and (
        game.choices_closed or now >= game.choices_close_at)


def close_choices(game: Game, *, reason: str, now: dt.datetime, by: User | None = None) -> None:
    """Close the current phase's choices (its reserved close has come, or the GM ended it
    from the console before then). If the phase's end would go on into a phase run inside
    it (Classic: the police checked the poison), that phase begins now and runs to the
    deadline, which stays; otherwise nothing shows and the phase ends at its deadline.
    Either way every other seat sees the same: its choices closed, the same deadline.

    Precondition: the caller holds the game lock and the game is running. (A GM's act is
    logged by its caller, services.gm.end_phase_now: one line for the whole press.)
    """
    engine = ruleset_of(game)
    game.choices_closed = True
    if engine.phase(game.state).name not in engine.within_previous:
        probe = engine.end_phase(game.state).state
        if engine.outcome(probe) is None and engine.phase(probe).name in engine.within_previous:
            advance_locked(game, reason=reason, now=now, by=by)
            return
    game.version += 1
    game.save()
    backoff.clear(game.pk)
    log.info("choices closed (%s): %s", reason, game.phase_name, extra={"game_id": game.pk})


def continue_phase(game: Game, phase: Phase, now: dt.datetime) -> Phase:
    """The engine's current phase goes on inside `phase`, the one it follows (a rule set's
    `within_previous`: Classic's extra check inside the night), as the public sees it: the
    same Phase row (the same phase on every page, form and record) and the same deadline as
    long as that leaves the new phase its own duration, else its own duration from now.

    Precondition: the caller holds the game lock and `game.state` is the new state.
    """
    info = ruleset_of(game).phase(game.state)
    own = now + dt.timedelta(minutes=game.minutes_for(info.name))
    # A phase that kept its time (`reserved_close`) keeps its deadline whatever is left.
    if game.choices_close_at is None and (phase.deadline is None or phase.deadline < own):
        phase.deadline = own
        Phase.objects.filter(pk=phase.pk).update(deadline=own)
    game.phase_name, game.phase_number, game.deadline = info.name, info.number, phase.deadline
    return phase


def _open_vote_thread(game: Game, phase: Phase) -> None:
    key = f"vote-{phase.seq}"
    if game.board is None:
        return
    existing = Thread.objects.filter(board=game.board, key=key).first()
    if existing is not None:
        # The phase opens again after a rollback: its thread comes back as it was (the
        # living seats are told again: the vote is open again).
        if kernel.restore_thread(existing):
            kernel.notify_players(game, kind=Kind.VOTE_THREAD, thread=existing,
                                  living_only=True)
        return
    title = vote_heading(game.ruleset, phase)
    thread = forum.start_thread(
        board=game.board, author=messenger_user(), kind=Thread.Kind.VOTE, title=title,
        body=_("Vote with the form above. A vote cannot be changed once cast."), key=key,
        pinned=True, enforce_rate_limit=False)
    # The living seats vote: each gets a notice (the dead have no vote to cast).
    kernel.notify_players(game, kind=Kind.VOTE_THREAD, thread=thread, living_only=True)


def advance_phase(*, game_id: int, reason: str = "deadline", expected_version: int | None = None,
                  now: dt.datetime | None = None, by: User | None = None) -> bool:
    """End the game's current phase and open the next one. Returns True if it advanced.

    Safe to call any number of times at once (two sweepers, a redelivered task, a player's
    last action racing the deadline): the game row lock serializes them; `expected_version`
    and the deadline are re-checked inside the lock, so a phase is advanced once only. A
    sweeper passes skip_locked so it never waits behind another advancing the same game.
    """
    now = kernel.now(now)
    with transaction.atomic():
        game = lock_game(game_id, skip_locked=(reason == "deadline"))
        if game is None or game.status != Game.Status.RUNNING:
            return False
        if expected_version is not None and game.version != expected_version:
            return False
        facts = kernel.page_facts(game)
        if reason == "deadline" and game.choices_close_at is not None and \
                not game.choices_closed and game.choices_close_at <= now - grace():
            close_choices(game, reason=reason, now=now, by=by)
            if game.deadline is not None and game.deadline <= now - grace():
                advance_locked(game, reason=reason, now=now, by=by)  # a late sweep: both due
            kernel.changed(game, since=facts)
            return True
        if reason == "deadline" and (game.deadline is None or game.deadline > now - grace()):
            return False
        if reason == "early" and (ruleset_of(game).phase(game.state).awaiting
                                  or choices_closed(game, now)):
            return False
        advance_locked(game, reason=reason, now=now, by=by)
        kernel.changed(game, since=facts)
        return True


def advance_locked(game: Game, *, reason: str, now: dt.datetime, by: User | None = None) -> None:
    """Precondition: the caller holds the game lock and the game is running. (A GM's act,
    reason "gm", is logged by its caller, services.gm.end_phase_now: one line a press.)"""
    engine = ruleset_of(game)
    closing = game.current_phase
    before = (game.state or {}).get("public") or {}  # the closing phase's round and turn
    t = engine.end_phase(game.state)
    record_step(game, end_phase(), t, user=by, seat=None)
    outcome = engine.outcome(game.state)
    # A phase the rule set runs inside the closing one goes on in its row (continue_phase).
    goes_on = closing is not None and outcome is None and \
        engine.phase(game.state).name in engine.within_previous
    if closing is not None and not goes_on:
        Phase.objects.filter(pk=closing.pk).update(ended_at=now, end_reason=reason)
    names = seat_names(game)
    sync_alive(game, engine)
    if outcome is not None:
        phase = closing
    elif goes_on:
        phase = continue_phase(game, closing, now)
    else:
        phase = open_phase(game, now)
    store_events(game, t.events, phase)
    votes.post_vote_results(game, t.events)  # the vote thread's result post
    title = phase_end_title(game.ruleset, closing.name, closing.number, before, names) \
        if closing else _("Announcement")
    summary = phase_summary(game.ruleset, closing.name, closing.number, t.events, names) \
        if closing else ""
    announce(game, phase, title, summary, events=t.events,
             outro=votes.tally_text_for(game, t.events), step=game.steps)
    deliver_private(game, t.events, names)
    if outcome is not None:
        _finish(game, outcome, phase, names, now)
    game.version += 1
    game.save()
    backoff.clear(game.pk)
    log.info("phase advanced (%s): %s -> %s", reason, closing.name if closing else "-",
             "over" if outcome is not None else f"{phase.name} {phase.number}",
             extra={"game_id": game.pk})


def why_not(ruleset: str, exc: Exception) -> str:
    """Why the engine refused a setup, in the reader's language: the reasons it gives (a
    typed-in deal's broken rules), else its message."""
    reasons = getattr(exc, "reasons", None)
    if reasons:
        return listing(because_text(ruleset, r, {}) for r in reasons)
    return str(exc)


def _finish(game: Game, outcome: Outcome, phase: Phase | None, names: dict[int, str],
            now: dt.datetime) -> None:
    """The game is over: stop the clock, publish the result and reveal the deal.

    Precondition: the caller holds the game lock and saves the game afterwards.
    """
    game.status = Game.Status.FINISHED
    game.finished_at, game.deadline = now, None
    game.outcome = {"result": outcome.result, "winners": list(outcome.winners),
                    "reason": outcome.reason}
    if phase is not None:
        Phase.objects.filter(pk=phase.pk, ended_at=None).update(ended_at=now, end_reason="over")
    _announce_end(game, phase, outcome, names)
    restore_ghost_threads(game)
    deliver_graveyard_mentions(game)


def finish_if_over(game: Game, now: dt.datetime) -> bool:
    """After a player's or the GM's step: end the game if the rules say it is over."""
    outcome = ruleset_of(game).outcome(game.state)
    if outcome is None or game.is_over:
        return False
    _finish(game, outcome, game.current_phase, seat_names(game), now)
    game.version += 1
    return True


def _announce_end(game: Game, phase: Phase | None, outcome: Outcome, names: dict[int, str]) -> None:
    # The result as the game's page words it (with the winners and, in gold, every seat's
    # coins; a rule set without its own wording gets the engine's reason and the winners).
    view = ruleset_of(game).view(game.state, SPECTATOR)
    lines = result_lines(game.ruleset, game.outcome, names, view)
    # The deal as a table in words (seat, then the rule set's three columns); its canonical text,
    # which the commitment hashes, is on the commitment page, not in a post people read.
    deal = deal_markdown(deal_rows(game.ruleset, ruleset_of(game).view(game.state, GM), names),
                         game.ruleset)
    if deal:
        lines.append(_("The deal:"))
        lines.append(deal)
    text = ruleset_of(game).commitment_text(game.state)
    if game.commitment and text is not None:
        lines.append(_("The deal and the salt are revealed; anyone can check the commitment "
                       "on the game's deal commitment page:"))
        lines.append(_("Salt: `%(salt)s` → SHA-256 `%(hash)s`")
                     % {"salt": game.salt, "hash": game.commitment})
    announce(game, phase, _("Game over"), "\n\n".join(lines), events=[], force_publish=True)


def grace() -> dt.timedelta:
    """How long after a deadline the clock waits before ending the phase.

    A vote or action is judged by when it ARRIVED (taken before waiting for the game lock);
    the grace lets one that arrived just before the deadline, and is still waiting for the
    lock, be counted before the phase ends.
    """
    return dt.timedelta(seconds=settings.SWEEP_GRACE_SECONDS)


# The PostgreSQL advisory lock a sweep holds while it advances games (one per database).
SWEEP_LOCK = 0x6B67_7377


def sweep(*, now: dt.datetime | None = None, limit: int = 100, lock_wait: float = 5.0) -> int:
    """Advance every running game whose deadline has passed; return how many advanced (0 when
    another sweep is running: see `sweep_alone`)."""
    return sweep_alone(now=now, limit=limit, lock_wait=lock_wait) or 0


def sweep_alone(*, now: dt.datetime | None = None, limit: int = 100,
                lock_wait: float = 5.0) -> int | None:
    """Advance every running game whose deadline has passed; return how many advanced, or
    None when another sweep is running (it reads the due games until none is left, so
    this one leaves them to it: two sweeps would only wait for each other's locks).

    One indexed query when nothing is due, whatever the number of games. Every game found
    due advances in this sweep, or a line with its `game=<id>` says why not:
    1. With games due, the sweep takes the advisory lock SWEEP_LOCK (try, never wait; the
       database lets go of it if the worker dies), then reads the due games `limit` at a
       time, until none is left that this sweep has not tried (each game is tried once a
       sweep: the next phase waits for the next sweep).
    2. Each is advanced skipping a locked row (`advance_phase`).
    3. One that did not advance is read again: moved on meanwhile (a GM's "end phase now",
       an early end), no longer running or no longer due: logged, done. Otherwise its row
       was locked, by a player's step or vote in flight at the deadline (votes crowd it):
       it is tried again after the others, this time waiting up to `lock_wait` seconds for
       the lock (those writes take milliseconds). Before, it was skipped without a word
       until the next sweep, SWEEP_INTERVAL_SECONDS later: two games due together advanced
       20 s apart with nothing in the logs.
    4. A game whose advance raises is backed off (games/services/backoff.py): skipped by the
       due query until its retry time, logged once per step, its GM told; the others go on.
    """
    from django.db import DatabaseError, connection

    now = kernel.now(now)

    def due_now(tried):
        return list(backoff.due_games(now, now - grace()).exclude(pk__in=tried)
                    .order_by("deadline", "id").values_list("id", "version")[:limit])

    due = due_now(())
    if not due:
        return 0
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [SWEEP_LOCK])
        if not cursor.fetchone()[0]:
            log.info("another sweep is running: %d due games left to it", len(due))
            return None
    try:
        return _advance_due(due, due_now, now, lock_wait)
    finally:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [SWEEP_LOCK])
        except DatabaseError:  # the connection is gone, and the lock with it
            pass


def _advance_due(due, due_now, now: dt.datetime, lock_wait: float) -> int:
    """`sweep_alone`'s steps 1-4, under the sweep's lock."""
    advanced, tried, locked = 0, set(), []
    while due:
        for game_id, version in due:
            tried.add(game_id)
            try:
                if advance_phase(game_id=game_id, expected_version=version, now=now):
                    advanced += 1
                elif _why_not_advanced(game_id, version, now) == "locked":
                    locked.append((game_id, version))
            except Exception as exc:  # one broken game must not stop the others advancing
                backoff.record_failure(game_id, exc, now)
        due = due_now(tried)
    for game_id, version in locked:
        try:
            if _advance_waiting_for_lock(game_id, version, now, lock_wait):
                advanced += 1
            else:
                _why_not_advanced(game_id, version, now, waited=True)
        except _StillLocked:
            log.warning("not advanced by this sweep: its row stayed locked by another "
                        "transaction for %.1f s; the next sweep tries again", lock_wait,
                        extra={"game_id": game_id})
        except Exception as exc:
            backoff.record_failure(game_id, exc, now)
    return advanced


class _StillLocked(Exception):
    pass


def _advance_waiting_for_lock(game_id: int, version: int, now: dt.datetime,
                              wait: float) -> bool:
    """`advance_phase` after waiting up to `wait` seconds for the game's row lock (taken
    here, in the transaction advance_phase then nests in, so its own skip-locked read finds
    the row ours). _StillLocked when the wait ran out."""
    from django.db import OperationalError, connection

    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(f"SET LOCAL lock_timeout = {max(1, int(wait * 1000))}")
                cursor.execute(f"SELECT 1 FROM {Game._meta.db_table} WHERE id = %s FOR UPDATE",
                               [game_id])
                cursor.execute("SET LOCAL lock_timeout = 0")  # the advance waits as usual
            return advance_phase(game_id=game_id, expected_version=version, now=now)
    except OperationalError as exc:
        if getattr(exc.__cause__, "sqlstate", None) == "55P03":  # lock_not_available
            raise _StillLocked from exc
        raise


def _why_not_advanced(game_id: int, version: int, now: dt.datetime, *,
                      waited: bool = False) -> str:
    """Log why a due game did not advance (read without a lock) and return the reason:
    "moved" (advanced meanwhile by someone else: a GM, an early end, a sweep of another
    deployment's beat), "stopped" (no longer running), "not due"
    (its deadline moved), or "locked" (another transaction holds its row: the caller tries
    again, waiting)."""
    row = Game.objects.filter(pk=game_id).values(
        "status", "version", "deadline", "choices_close_at", "choices_closed").first()
    if row is None or row["status"] != Game.Status.RUNNING:
        reason, text = "stopped", "no longer running"
    elif row["version"] != version:
        reason, text = "moved", f"advanced meanwhile by another (version {version} -> " \
                                f"{row['version']})"
    elif not ((row["deadline"] is not None and row["deadline"] <= now - grace()) or (
            row["choices_close_at"] is not None and not row["choices_closed"]
            and row["choices_close_at"] <= now - grace())):
        reason, text = "not due", f"no longer due (deadline {row['deadline']})"
    else:
        reason, text = "locked", "its row was locked by another transaction"
    if reason != "locked" or waited:
        log.info("due game not advanced by this sweep: %s", text, extra={"game_id": game_id})
    return reason
