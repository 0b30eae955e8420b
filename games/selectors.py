"""Reads for pages, tasks and services: nothing here writes.

Every secret passes through the engine's `view(state, viewer)` (`view_for`); events through
their stored visibility (`events_visible_to`). Services may call these; these call no
service.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import icalendar
from django.conf import settings
from django.db.models import Max, Q, QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import display_name
from messaging.models import Message, Post

from . import rulesets
from .engine.base import GM, SPECTATOR
from .models import (
    ActivityWarning,
    Award,
    Event,
    Game,
    Seat,
    Signup,
    Substitution,
)
from .presenters import phase_label

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User
    from django.contrib.auth.models import AnonymousUser


# --- a game and its seats ------------------------------------------------------------------

def seat_names(game: Game) -> dict[int, str]:
    return {s.number: display_name(s.user) if s.user else _("seat %(n)d") % {"n": s.number + 1}
            for s in game.seats.select_related("user__profile")}


def seat_of(game: Game, user: User | AnonymousUser | None) -> Seat | None:
    if user is None or not user.is_authenticated:
        return None
    return game.seats.filter(user=user).first()


def view_for(game: Game, user: User | AnonymousUser | None) -> tuple[dict | None, Seat | None]:
    """The engine's view for `user`, and their seat (None without one):
    1. a seat holder gets their seat's view (also after the end: the review shows all);
    2. anyone else gets the GM's view once the game is over (the review reveals everything);
    3. anyone else gets a spectator's view while it runs. Staff status opens nothing here:
       a game's secrets reach the GM through the 天神 console, not through the pages.

    The only way pages read a game's state.
    """
    if not game.state:
        return None, None
    engine = rulesets.engine(game.ruleset)
    seat = seat_of(game, user)
    if seat is not None:
        return engine.view(game.state, seat.number), seat
    if game.is_over:
        return engine.view(game.state, GM), None  # the review reveals everything
    return engine.view(game.state, SPECTATOR), None


def events_visible_to(game: Game, user: User | AnonymousUser | None) -> QuerySet[Event]:
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


def preview_end_phase(game: Game) -> list[dict]:
    """What resolving the current phase now would produce (nothing is stored)."""
    if not game.state or not game.is_live:
        return []
    return rulesets.engine(game.ruleset).end_phase(game.state).events


def commitment_of(text: str, salt: str) -> str:
    """SHA-256 hex of the canonical deal text followed by the salt (see docs)."""
    return hashlib.sha256((text + salt).encode("utf-8")).hexdigest()


# --- the community around a game ------------------------------------------------------------

def waiting_substitutes(game: Game) -> QuerySet[Signup]:
    """Substitute sign-ups who may still take a seat: nobody who holds or ever held a seat of
    `game` (issue 16 item 2: one person, one seat's secrets)."""
    return (Signup.objects.filter(game=game, role=Signup.Role.SUBSTITUTE, withdrawn_at=None)
            .exclude(user_id__in=player_ids(game)).select_related("user"))


def ever_held_seat(user: User | AnonymousUser | None, game: Game) -> bool:
    """Whether `user` holds a seat of `game` now or held one before (a replaced player)."""
    if user is None or not user.is_authenticated:
        return False
    return game.seats.filter(user=user).exists() or Substitution.objects.filter(
        game=game).filter(Q(outgoing=user) | Q(incoming=user)).exists()


def last_activity(game: Game, user: User | AnonymousUser | None) -> dt.datetime | None:
    """The user's last post on the game's board or message to 神的使者 in it."""
    if user is None:
        return None
    post = Post.objects.filter(thread__board=game.board, author=user).aggregate(
        t=Max("created_at"))["t"]
    message = Message.objects.filter(conversation__board=game.board, sender=user).aggregate(
        t=Max("created_at"))["t"]
    return max([t for t in (post, message) if t is not None], default=None)


def dead_seat(game: Game, user: User | AnonymousUser | None) -> Seat | None:
    return game.seats.filter(user=user, alive=False).first() if user else None


def open_warnings(game: Game) -> QuerySet[ActivityWarning]:
    return ActivityWarning.objects.filter(game=game, resolved_at=None).select_related(
        "seat__user__profile").order_by("seat__number")


# --- awards -----------------------------------------------------------------------------------

def player_ids(game: Game) -> set[int]:
    """Ids of every user who holds or held a seat in `game` (present holders, everyone a
    replacement was opened for, everyone who took a seat over)."""
    ids = set(game.seats.exclude(user=None).values_list("user_id", flat=True))
    for pair in Substitution.objects.filter(game=game).values_list("outgoing_id",
                                                                   "incoming_id"):
        ids.update(i for i in pair if i is not None)
    return ids


def tally(award: Award) -> list[dict]:
    """The candidates of `award` with their votes, winner first.

    Order: most votes; on a tie, the one whose last vote came first (who reached the count
    first); candidates without votes last, in the order they were added.
    """
    rows = []
    for nomination in award.nominations.select_related("nominee__profile").order_by(
            "created", "id"):
        times = sorted(v.created for v in nomination.votes.all())
        rows.append({"nomination": nomination, "name": display_name(nomination.nominee),
                     "votes": len(times), "reached": times[-1] if times else None})
    far = dt.datetime.max.replace(tzinfo=dt.UTC)
    rows.sort(key=lambda r: (-r["votes"], r["reached"] or far))
    return rows


# --- the review -------------------------------------------------------------------------------

def phase_titles(game: Game) -> dict[int, str]:
    """Phase.pk -> "Night 1" in the reader's language."""
    return {p.pk: f"{phase_label(p.name, game.ruleset)} {p.number}"
            for p in game.phases.all()}


def seat_holders(game: Game) -> dict[int, list[str]]:
    """Seat number -> the names of everyone who held it, first to last (substitutions)."""
    holders: dict[int, list[str]] = {}
    handovers = (Substitution.objects.filter(game=game, status=Substitution.Status.ACCEPTED)
                 .select_related("seat", "outgoing__profile", "incoming__profile")
                 .order_by("closed_at", "id"))
    for sub in handovers:
        chain = holders.setdefault(sub.seat.number, [])
        if not chain and sub.outgoing_id:
            chain.append(display_name(sub.outgoing))
        if sub.incoming_id:
            chain.append(display_name(sub.incoming))
    for seat in game.seats.select_related("user__profile"):
        chain = holders.setdefault(seat.number, [])
        current = display_name(seat.user) if seat.user_id else ""
        if current and (not chain or chain[-1] != current):
            chain.append(current)
    return holders


def commitment_check(game: Game) -> dict:
    """The deal commitment recomputed from the revealed deal and salt (after the end, or for
    staff: the caller has checked access)."""
    text = rulesets.engine(game.ruleset).commitment_text(game.state) if game.state else None
    if text is None or not game.commitment:
        return {"text": None}
    recomputed = commitment_of(text, game.salt)
    return {"text": text, "salt": game.salt, "recomputed": recomputed,
            "matches": recomputed == game.commitment}


# --- the calendar -----------------------------------------------------------------------------

def _host() -> str:
    return urlsplit(settings.SITE_URL).hostname or "localhost"


def _entry(uid: str, when: dt.datetime, summary: str, url: str, now: dt.datetime,
           description: str = "") -> icalendar.Event:
    """One deadline: an instant (DTSTART without DTEND, RFC 5545 §3.6.1) in UTC."""
    event = icalendar.Event()
    event.add("uid", f"{uid}@{_host()}")
    event.add("dtstamp", now)
    event.add("dtstart", when.astimezone(dt.UTC))
    event.add("summary", summary)
    event.add("url", settings.SITE_URL + url)
    if description:
        event.add("description", description)
    return event


def deadlines(user: User | AnonymousUser | None, *,
              now: dt.datetime | None = None) -> list[icalendar.Event]:
    """The calendar entries of `user` (what they are: games/web/calendar.py), soonest first.

    Precondition: the caller has activated the language the summaries should use.
    """
    now = now or timezone.now()
    entries: list[tuple[dt.datetime, icalendar.Event]] = []
    mine = Q(seats__user=user) | Q(gm=user)

    # 1-3: running games.
    for game in Game.objects.filter(mine, status=Game.Status.RUNNING).distinct():
        is_gm = game.gm_id == user.pk
        home = reverse("game-act" if not is_gm else "game-home", args=[game.pk])
        seat = Seat.objects.filter(game=game, user=user).first()
        # A dead seat owes nothing any more: no phase deadline, no check-in (issue 16).
        owes = is_gm or (seat is not None and seat.alive)
        if owes and game.deadline and game.current_phase_id:
            title = f"{phase_label(game.phase_name, game.ruleset)} {game.phase_number}"
            entries.append((game.deadline, _entry(
                f"game-{game.pk}-phase-{game.current_phase_id}", game.deadline,
                _("%(game)s: %(phase)s ends") % {"game": game.name, "phase": title},
                home, now)))
        if owes and seat is not None and seat.checked_in_at is None and game.started_at:
            until = game.started_at + dt.timedelta(hours=game.checkin_hours)
            if until > now:
                entries.append((until, _entry(
                    f"game-{game.pk}-checkin-{seat.number}", until,
                    _("%(game)s: check in by now") % {"game": game.name}, home, now)))
        handovers = Substitution.objects.filter(game=game, status=Substitution.Status.OPEN)
        if not is_gm:
            handovers = handovers.filter(seat__user=user)
        for sub in handovers.select_related("seat"):
            entries.append((sub.ends_at, _entry(
                f"game-{game.pk}-handover-{sub.pk}", sub.ends_at,
                _("%(game)s: the handover of seat %(n)d ends")
                % {"game": game.name, "n": sub.seat.number + 1}, home, now)))

    # 4: games in sign-up with an announced start.
    signed = Signup.objects.filter(user=user, withdrawn_at__isnull=True).values("game_id")
    upcoming = Game.objects.filter(Q(pk__in=signed) | Q(gm=user), status=Game.Status.SIGNUP,
                                   starts_at__isnull=False)
    for game in upcoming:
        entries.append((game.starts_at, _entry(
            f"game-{game.pk}-start", game.starts_at,
            _("%(game)s starts") % {"game": game.name}, game.get_absolute_url(), now)))

    # 5: open awards of finished games the user played in (or ran).
    open_awards = Award.objects.filter(closed_at__isnull=True, vote_until__isnull=False) \
        .select_related("game")
    for award in open_awards.filter(Q(game__gm=user) | Q(game__seats__user=user)
                                    | Q(game__substitutions__outgoing=user)).distinct():
        if award.game.gm_id != user.pk and user.pk not in player_ids(award.game):
            continue
        entries.append((award.vote_until, _entry(
            f"game-{award.game_id}-award-{award.kind}", award.vote_until,
            _("%(game)s: voting for %(award)s closes")
            % {"game": award.game.name, "award": award.get_kind_display()},
            reverse("game-awards", args=[award.game_id]), now)))

    entries.sort(key=lambda pair: pair[0])
    return [event for _when, event in entries]
