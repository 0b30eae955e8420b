"""The only writers of games: views, Celery tasks and the admin all call these functions.

Every write follows one pattern (lock, re-check, write, notify on commit):
1. `transaction.atomic()` and `select_for_update()` on the game row — the game lock;
2. re-check status, phase and deadline inside the lock (what the player saw may be stale);
3. hand the step to the rule set's pure engine, which accepts it or refuses with a reason;
4. store the step, its events and the new state snapshot in the same transaction;
5. queue emails and tasks with `transaction.on_commit`, so nothing is sent for a rollback.

Nothing here knows a particular rule set: the engine interface (games/engine/base.py) is all
the machinery uses.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import secrets
import uuid

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from accounts.models import display_name, messenger_user
from messaging import services as forum
from messaging.models import Board, Thread

from .engine import registry
from .engine.base import GM, Refusal, RuleSet, Transition, action, end_phase, new_seed
from .models import Action, Announcement, Event, Game, Phase, Seat, Vote
from .notifications import notify_announcement, notify_private_result
from .presenters import announce_at_once, describe, phase_title, refusal_text

log = logging.getLogger(__name__)

VOTE_KINDS = {"vote": False, "runoff_vote": False, "proxy_vote": True}
WITHDRAW_KINDS = ("withdraw",)


class GameError(Exception):
    """A refused request, with a sentence to show the user. Nothing was stored."""

    def __init__(self, message, code: str = "refused"):
        super().__init__(str(message))
        self.message = message
        self.code = code


def ruleset_of(game: Game) -> RuleSet:
    return registry.get(game.ruleset)


def _now(now: dt.datetime | None) -> dt.datetime:
    return now or timezone.now()


def _lock(game_id: int, *, skip_locked: bool = False) -> Game | None:
    """The game row, locked for this transaction (None if another holds it and skip_locked)."""
    return (Game.objects.select_for_update(skip_locked=skip_locked)
            .filter(pk=game_id).first())


def seat_names(game: Game) -> dict[int, str]:
    return {s.number: display_name(s.user) if s.user else _("seat %(n)d") % {"n": s.number + 1}
            for s in game.seats.select_related("user__profile")}


# --- creating and starting ---------------------------------------------------------------

def create_game(*, name: str, ruleset: str, gm, seat_count: int, config: dict | None = None,
                durations: dict | None = None, early_end: bool = True,
                hold_announcements: bool = False, change_cutoff_minutes: int = 10) -> Game:
    """A new game in draft, with its board and announcement thread."""
    try:
        engine = registry.get(ruleset)
    except (KeyError, ImportError):
        raise GameError(_("Unknown rule set.")) from None
    if not engine.min_seats <= seat_count <= engine.max_seats:
        raise GameError(_("This rule set is played by %(lo)d to %(hi)d players.")
                        % {"lo": engine.min_seats, "hi": engine.max_seats})
    with transaction.atomic():
        game = Game.objects.create(
            name=name, ruleset=ruleset, gm=gm, seat_count=seat_count,
            config=config or engine.default_config(), durations=durations or {},
            early_end=early_end, hold_announcements=hold_announcements,
            change_cutoff_minutes=change_cutoff_minutes)
        ensure_board(game)
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


def commitment_of(text: str, salt: str) -> str:
    """SHA-256 hex of the canonical deal text followed by the salt (see docs)."""
    return hashlib.sha256((text + salt).encode("utf-8")).hexdigest()


def start_game(*, game_id: int, users: list, seed: str | None = None,
               now: dt.datetime | None = None) -> Game:
    """Seat `users` in order, deal, publish the player list and the deal commitment, and
    open the first phase."""
    now = _now(now)
    with transaction.atomic():
        game = _lock(game_id)
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
            raise GameError(_("The game cannot start: %(why)s") % {"why": exc}) from None
        for number, user in enumerate(users):
            conversation = forum.conversation_for(owner=user, board=game.board)
            Seat.objects.create(game=game, number=number, user=user, conversation=conversation)
        game.state = t.state
        text = engine.commitment_text(t.state)
        if text is not None:
            game.salt = secrets.token_hex(16)
            game.commitment = commitment_of(text, game.salt)
        game.status = Game.Status.RUNNING
        game.started_at = now
        game.save()
        phase = _open_phase(game, now)
        _store_events(game, t.events, phase)
        names = seat_names(game)
        lines = [_("The game begins. Players:")]
        lines += [f"{n + 1}. {name}" for n, name in sorted(names.items())]
        if game.commitment:
            lines.append(_("Deal commitment (SHA-256 of the deal and a secret salt, revealed "
                           "at the end): `%(hash)s`") % {"hash": game.commitment})
        _announce(game, phase, _("Player list"), "\n\n".join(lines), events=t.events,
                  force_publish=True)
        _deliver_private(game, t.events, names)
        game.save()
    return game


# --- phases ------------------------------------------------------------------------------

def _open_phase(game: Game, now: dt.datetime) -> Phase:
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
    if info.name in ruleset_of(game).vote_phases:
        _open_vote_thread(game, phase)
    return phase


def _open_vote_thread(game: Game, phase: Phase) -> None:
    key = f"vote-{phase.seq}"
    if game.board is None or Thread.objects.filter(board=game.board, key=key).exists():
        return
    title = _("Vote: %(phase)s %(n)d") % {"phase": phase_label(phase.name, game.ruleset),
                                          "n": phase.number}
    forum.start_thread(board=game.board, author=messenger_user(), kind=Thread.Kind.VOTE,
                       title=title, body=_("Vote with the form above. A vote cannot be "
                                           "changed once cast."), key=key, pinned=True,
                       enforce_rate_limit=False)


def phase_label(name: str, ruleset: str | None = None) -> str:
    labels = {"night": _("Night"), "day": _("Day"), "runoff": _("Runoff vote"),
              "setup": _("Setup")}
    own = phase_title(ruleset, name) if ruleset else None
    return own or labels.get(name, name.replace("_", " ").capitalize())


def advance_phase(*, game_id: int, reason: str = "deadline", expected_version: int | None = None,
                  now: dt.datetime | None = None, by=None) -> bool:
    """End the game's current phase and open the next one. Returns True if it advanced.

    Safe to call any number of times at once (two sweepers, a redelivered task, a player's
    last action racing the deadline): the game row lock serializes them; `expected_version`
    and the deadline are re-checked inside the lock, so a phase is advanced once only. A
    sweeper passes skip_locked so it never waits behind another advancing the same game.
    """
    now = _now(now)
    with transaction.atomic():
        game = _lock(game_id, skip_locked=(reason == "deadline"))
        if game is None or game.status != Game.Status.RUNNING:
            return False
        if expected_version is not None and game.version != expected_version:
            return False
        if reason == "deadline" and (game.deadline is None or game.deadline > now - grace()):
            return False
        if reason == "early" and ruleset_of(game).phase(game.state).awaiting:
            return False
        _advance(game, reason=reason, now=now, by=by)
        return True


def _advance(game: Game, *, reason: str, now: dt.datetime, by=None) -> None:
    """Precondition: the caller holds the game lock and the game is running."""
    engine = ruleset_of(game)
    closing = game.current_phase
    t = engine.end_phase(game.state)
    _record_step(game, end_phase(), t, user=by, seat=None)
    if closing is not None:
        Phase.objects.filter(pk=closing.pk).update(ended_at=now, end_reason=reason)
    if reason == "gm":
        _log_gm(game, by, "end_phase_now", {})
    outcome = engine.outcome(game.state)
    names = seat_names(game)
    _sync_alive(game, engine)
    phase = _open_phase(game, now) if outcome is None else closing
    _store_events(game, t.events, phase)
    title = (_("%(phase)s %(n)d ends") % {"phase": phase_label(closing.name, game.ruleset),
                                          "n": closing.number}) if closing else _("Announcement")
    _announce(game, phase, title, "", events=t.events)
    _deliver_private(game, t.events, names)
    if outcome is not None:
        _finish(game, outcome, phase, names, now)
    game.version += 1
    game.save()


def _finish(game: Game, outcome, phase: Phase | None, names, now: dt.datetime) -> None:
    """The game is over: stop the clock, publish the result and reveal the deal.

    Precondition: the caller holds the game lock and saves the game afterwards.
    """
    game.status = Game.Status.FINISHED
    game.finished_at, game.deadline = now, None
    game.outcome = {"result": outcome.result, "winners": list(outcome.winners),
                    "summary": outcome.summary}
    if phase is not None:
        Phase.objects.filter(pk=phase.pk, ended_at=None).update(ended_at=now, end_reason="over")
    _announce_end(game, phase, outcome, names)
    from .community import restore_ghost_threads

    restore_ghost_threads(game)


def _finish_if_over(game: Game, now: dt.datetime) -> bool:
    """After a player's or the GM's step: end the game if the rules say it is over."""
    outcome = ruleset_of(game).outcome(game.state)
    if outcome is None or game.is_over:
        return False
    _finish(game, outcome, game.current_phase, seat_names(game), now)
    game.version += 1
    return True


def _announce_end(game: Game, phase: Phase | None, outcome, names) -> None:
    winners = ", ".join(names.get(w, str(w + 1)) for w in outcome.winners) or _("nobody")
    lines = [_("The game is over: %(summary)s") % {"summary": outcome.summary},
             _("Winners: %(names)s") % {"names": winners}]
    text = ruleset_of(game).commitment_text(game.state)
    if game.commitment and text is not None:
        lines.append(_("The deal and the salt are revealed; anyone can check the commitment "
                       "(see the review page):"))
        lines.append(f"```\n{text}\n```")
        lines.append(_("Salt: `%(salt)s` → SHA-256 `%(hash)s`")
                     % {"salt": game.salt, "hash": game.commitment})
    _announce(game, phase, _("Game over"), "\n\n".join(lines), events=[], force_publish=True)


def grace() -> dt.timedelta:
    """How long after a deadline the clock waits before ending the phase.

    A vote or action is judged by when it ARRIVED (taken before waiting for the game lock);
    the grace lets one that arrived just before the deadline, and is still waiting for the
    lock, be counted before the phase ends.
    """
    return dt.timedelta(seconds=settings.SWEEP_GRACE_SECONDS)


def sweep(*, now: dt.datetime | None = None, limit: int = 100) -> int:
    """Advance every running game whose deadline has passed; return how many advanced.

    One indexed query when nothing is due, whatever the number of games.
    """
    now = _now(now)
    due = list(Game.objects.filter(status=Game.Status.RUNNING, deadline__lte=now - grace())
               .order_by("deadline").values_list("id", "version")[:limit])
    advanced = 0
    for game_id, version in due:
        try:
            advanced += advance_phase(game_id=game_id, expected_version=version, now=now)
        except Exception:  # one broken game must not stop the others being advanced
            log.exception("advancing game %s failed", game_id)
    return advanced


# --- players' steps ----------------------------------------------------------------------

def seat_of(game: Game, user) -> Seat | None:
    if user is None or not user.is_authenticated:
        return None
    return game.seats.filter(user=user).first()


def submit_action(*, game_id: int, user, kind: str, params: dict | None = None,
                  expected_phase: int | None = None, now: dt.datetime | None = None) -> Transition:
    """A seated player's step (use a card, vote, proxy vote, loss order, withdraw...).

    Refused (GameError, nothing stored) when: the game is not running; the phase the player
    saw (`expected_phase`, a Phase.seq) is over; the deadline has passed; the player holds no
    seat; a change comes inside the change cut-off; or the rules refuse it.
    """
    now = _now(now)
    params = dict(params or {})
    with transaction.atomic():
        game = _lock(game_id)
        if game is None:
            raise GameError(_("This game does not exist."), code="not_found")
        seat = seat_of(game, user)
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
        if _is_change(game, seat, kind) and game.deadline is not None and \
                now >= game.deadline - dt.timedelta(minutes=game.change_cutoff_minutes):
            raise GameError(_("Changes are closed %(n)d minutes before the deadline.")
                            % {"n": game.change_cutoff_minutes})
        step = action(seat.number, kind, **params)
        t = _apply(game, step, user=user, seat=seat, received_at=now)
        if kind in VOTE_KINDS:
            _store_vote(game, seat, kind, params)
        names = seat_names(game)
        _deliver_private(game, t.events, names)
        _confirm(game, seat, step)
        at_once = announce_at_once(game.ruleset)
        shown = [e for e in t.events if e["visibility"]["public"] and e["kind"] in at_once]
        if shown:
            _announce(game, game.current_phase, _("%(phase)s %(n)d") % {
                "phase": phase_label(game.phase_name, game.ruleset), "n": game.phase_number},
                "", events=shown)
        if not _finish_if_over(game, now):
            early = game.early_end and not ruleset_of(game).phase(game.state).awaiting
            if early:
                _advance(game, reason="early", now=now, by=None)
        game.save()
    return t


def _is_change(game: Game, seat: Seat, kind: str) -> bool:
    """Does this step change or withdraw something already submitted in this phase?"""
    if kind in WITHDRAW_KINDS:
        return True
    return Action.objects.filter(game=game, phase=game.current_phase, seat=seat,
                                 kind=kind).exists()


def _apply(game: Game, step: dict, *, user, seat: Seat | None,
           received_at: dt.datetime | None = None) -> Transition:
    """Precondition: the caller holds the game lock."""
    try:
        result = ruleset_of(game).apply(game.state, step)
    except Exception:
        log.exception("engine raised on %s", step)
        raise GameError(
            _("The rules could not process this request; nothing was recorded.")) from None
    if isinstance(result, Refusal):
        raise GameError(refusal_text(game.ruleset, result), code=result.code)
    _record_step(game, step, result, user=user, seat=seat, received_at=received_at)
    _store_events(game, result.events, game.current_phase)
    _sync_alive(game, ruleset_of(game))
    return result


def _record_step(game: Game, step: dict, t: Transition, *, user, seat: Seat | None,
                 received_at: dt.datetime | None = None) -> None:
    game.steps += 1
    Action.objects.create(game=game, seq=game.steps, phase=game.current_phase,
                          actor=str(step["actor"]), seat=seat, kind=step["kind"],
                          params=step["params"], user=user if user and user.pk else None,
                          received_at=received_at or timezone.now())
    game.state = t.state


def _store_vote(game: Game, seat: Seat, kind: str, params: dict) -> None:
    target_number = params.get("target")
    target = game.seats.filter(number=target_number).first() if isinstance(
        target_number, int) else None
    proxy = VOTE_KINDS[kind]
    if proxy:
        Vote.objects.update_or_create(phase=game.current_phase, voter=seat, proxy=True,
                                      defaults={"game": game, "target": target})
        return
    try:
        with transaction.atomic():
            Vote.objects.create(game=game, phase=game.current_phase, voter=seat, target=target)
    except IntegrityError:
        raise GameError(
            _("You have already voted in this phase; a vote cannot be changed.")) from None


def _store_events(game: Game, events: list[dict], phase: Phase | None) -> None:
    Event.objects.bulk_create([
        Event(game=game, seq=e["seq"], phase=phase, kind=e["kind"],
              public=e["visibility"]["public"],
              audience="," + ",".join(str(s) for s in e["visibility"]["seats"]) + ","
              if e["visibility"]["seats"] else "",
              data=e["data"], because=e.get("because", []))
        for e in events])


def _sync_alive(game: Game, engine: RuleSet) -> None:
    living = set(engine.living_seats(game.state))
    for seat in game.seats.all():
        if seat.alive != (seat.number in living):
            Seat.objects.filter(pk=seat.pk).update(alive=seat.number in living)


# --- what people are told -----------------------------------------------------------------

def _deliver_private(game: Game, events: list[dict], names: dict[int, str]) -> None:
    """Each seat's private results, as messages from 神的使者 in the seat's conversation."""
    per_seat: dict[int, list[str]] = {}
    for e in events:
        vis = e["visibility"]
        if vis["public"]:
            continue
        for number in vis["seats"]:
            per_seat.setdefault(number, []).append(e)
    if not per_seat:
        return
    seats = {s.number: s for s in game.seats.select_related("conversation", "user__profile")}
    for number, seat_events in per_seat.items():
        seat = seats.get(number)
        if seat is None or seat.conversation is None:
            continue
        lang = getattr(getattr(seat.user, "profile", None), "language", None) or "zh-hans"
        with translation.override(lang):
            body = "\n\n".join(describe(game.ruleset, e, names) for e in seat_events)
        forum.send_as_messenger(conversation=seat.conversation, body=body[:19_000])
        notify_private_result(game, seat, body)


def _confirm(game: Game, seat: Seat, step: dict) -> None:
    lang = getattr(getattr(seat.user, "profile", None), "language", None) or "zh-hans"
    with translation.override(lang):
        names = seat_names(game)
        summary = describe(game.ruleset, {"kind": step["kind"], "data": step["params"],
                                          "visibility": {"public": False, "seats": []}}, names)
        body = _("Received: %(summary)s") % {"summary": summary}
    if seat.conversation is not None:
        forum.send_as_messenger(conversation=seat.conversation, body=body[:19_000])


def _announce(game: Game, phase: Phase | None, title: str, intro: str, *, events: list[dict],
              force_publish: bool = False) -> Announcement | None:
    """Draft the public announcement of `events`; post it unless the GM holds drafts."""
    names = seat_names(game)
    lines = [intro] if intro else []
    lines += [describe(game.ruleset, e, names) for e in events if e["visibility"]["public"]]
    if not lines:
        return None
    ann = Announcement.objects.create(game=game, phase=phase, title=title[:120],
                                      body="\n\n".join(lines))
    if force_publish or not game.hold_announcements:
        publish_announcement(announcement_id=ann.pk)
    return ann


def publish_announcement(*, announcement_id: int, story: str = "", gm=None) -> Announcement:
    """Post a drafted announcement (with the GM's story text, if any) in the game's
    announcement thread. Publishing twice does nothing the second time."""
    with transaction.atomic():
        ann = Announcement.objects.select_for_update().select_related("game").get(
            pk=announcement_id)
        if ann.published_at is not None:
            return ann
        game = ann.game
        if story:
            ann.story = story
        body = f"### {ann.title}\n\n" + (f"{ann.story}\n\n---\n\n" if ann.story else "") + ann.body
        thread = Thread.objects.filter(board=game.board, key="announcements").first()
        if thread is not None:
            ann.post = forum.reply(thread=thread, author=messenger_user(), body=body[:19_000],
                                   enforce_rate_limit=False)
        ann.published_at = timezone.now()
        ann.save()
        notify_announcement(game, ann)
        if gm is not None:
            _log_gm(game, gm, "publish_announcement", {"announcement": ann.pk})
    return ann


# --- the GM's powers ---------------------------------------------------------------------

def _log_gm(game: Game, gm, what: str, details: dict) -> None:
    """Every GM act goes into the event log, visible to the GM only."""
    Event.objects.create(game=game, seq=None, phase=game.current_phase, kind=f"gm_{what}",
                         public=False, audience="",
                         data=dict(details, gm=display_name(gm) if gm else "system"),
                         because=[f"GM action: {what}"])


def _gm_game(game_id: int, gm) -> Game:
    if gm is None or not gm.is_staff:
        raise GameError(_("Only a game master may do this."), code="forbidden")
    game = _lock(game_id)
    if game is None:
        raise GameError(_("This game does not exist."), code="not_found")
    return game


def gm_step(*, game_id: int, gm, kind: str, params: dict | None = None) -> Transition:
    """A GM step the rule set defines (override an action, reject a manifesto...)."""
    with transaction.atomic():
        game = _gm_game(game_id, gm)
        if not game.is_live:
            raise GameError(_("This game is not running."))
        t = _apply(game, action(GM, kind, **(params or {})), user=gm, seat=None)
        names = seat_names(game)
        _deliver_private(game, t.events, names)
        _log_gm(game, gm, kind, params or {})
        _announce(game, game.current_phase, _("From the GM"), "", events=t.events)
        _finish_if_over(game, timezone.now())
        game.save()
    return t


def end_phase_now(*, game_id: int, gm, now: dt.datetime | None = None) -> None:
    now = _now(now)
    with transaction.atomic():
        game = _gm_game(game_id, gm)
        if game.status != Game.Status.RUNNING:
            raise GameError(_("This game is not running."))
        _advance(game, reason="gm", now=now, by=gm)


def extend_deadline(*, game_id: int, gm, minutes: int) -> Game:
    if not isinstance(minutes, int) or not 1 <= minutes <= 7 * 24 * 60:
        raise GameError(_("Extend by 1 minute to 7 days."))
    with transaction.atomic():
        game = _gm_game(game_id, gm)
        if game.status != Game.Status.RUNNING or game.deadline is None:
            raise GameError(_("This game is not running."))
        game.deadline += dt.timedelta(minutes=minutes)
        Phase.objects.filter(pk=game.current_phase_id).update(deadline=game.deadline)
        game.save(update_fields=["deadline"])
        _log_gm(game, gm, "extend_deadline", {"minutes": minutes})
    return game


def pause_game(*, game_id: int, gm, now: dt.datetime | None = None) -> Game:
    now = _now(now)
    with transaction.atomic():
        game = _gm_game(game_id, gm)
        if game.status != Game.Status.RUNNING:
            raise GameError(_("Only a running game can be paused."))
        game.status = Game.Status.PAUSED
        game.paused_remaining = max(game.deadline - now, dt.timedelta()) if game.deadline else None
        game.save(update_fields=["status", "paused_remaining"])
        _log_gm(game, gm, "pause", {})
    return game


def resume_game(*, game_id: int, gm, now: dt.datetime | None = None) -> Game:
    """Resume with the time that was left when the game was paused."""
    now = _now(now)
    with transaction.atomic():
        game = _gm_game(game_id, gm)
        if game.status != Game.Status.PAUSED:
            raise GameError(_("Only a paused game can be resumed."))
        game.status = Game.Status.RUNNING
        if game.paused_remaining is not None:
            game.deadline = now + game.paused_remaining
            Phase.objects.filter(pk=game.current_phase_id).update(deadline=game.deadline)
        game.paused_remaining = None
        game.save(update_fields=["status", "deadline", "paused_remaining"])
        _log_gm(game, gm, "resume", {})
    return game


def abort_game(*, game_id: int, gm, reason: str = "", now: dt.datetime | None = None) -> Game:
    now = _now(now)
    with transaction.atomic():
        game = _gm_game(game_id, gm)
        if game.is_over:
            raise GameError(_("This game is already over."))
        game.status = Game.Status.ABORTED
        game.finished_at, game.deadline = now, None
        game.outcome = {"result": "aborted", "winners": [], "summary": reason or "aborted"}
        game.save()
        _log_gm(game, gm, "abort", {"reason": reason})
        _announce(game, game.current_phase, _("Game aborted"),
                  _("The GM has stopped the game. %(reason)s") % {"reason": reason},
                  events=[], force_publish=True)
    return game


def preview_end_phase(game: Game) -> list[dict]:
    """What resolving the current phase now would produce (nothing is stored)."""
    if not game.state or not game.is_live:
        return []
    return ruleset_of(game).end_phase(game.state).events


# --- reading -----------------------------------------------------------------------------

def view_for(game: Game, user) -> tuple[dict | None, Seat | None]:
    """The engine's view for `user`: their seat's, the GM's for staff, else a spectator's.

    The only way pages read a game's state.
    """
    if not game.state:
        return None, None
    engine = ruleset_of(game)
    seat = seat_of(game, user)
    if seat is not None:
        return engine.view(game.state, seat.number), seat
    if game.is_over:
        return engine.view(game.state, GM), None  # the review reveals everything
    from .engine.base import SPECTATOR

    return engine.view(game.state, SPECTATOR), None


def events_visible_to(game: Game, user):
    """Events the user may see: their seat's and public ones; everything for staff or after
    the end."""
    qs = Event.objects.filter(game=game)
    if (user is not None and user.is_authenticated and user.is_staff) or game.is_over:
        return qs
    seat = seat_of(game, user)
    cond = Q(public=True)
    if seat is not None:
        cond |= Q(audience__contains=f",{seat.number},")
    return qs.filter(cond)
