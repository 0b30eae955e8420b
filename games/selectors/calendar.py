"""The calendar feed (ICS): a user's deadlines as calendar entries."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import icalendar
from django.db.models import Prefetch, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from config.site import site_url

from ..models import Award, Game, Seat, Signup, Substitution
from .review import current_phase_name

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User
    from django.contrib.auth.models import AnonymousUser


def _host() -> str:
    return urlsplit(site_url()).hostname or "localhost"


def _entry(uid: str, when: dt.datetime, summary: str, url: str, now: dt.datetime,
           description: str = "") -> icalendar.Event:
    """One deadline: an instant (DTSTART without DTEND, RFC 5545 §3.6.1) in UTC."""
    event = icalendar.Event()
    event.add("uid", f"{uid}@{_host()}")
    event.add("dtstamp", now)
    event.add("dtstart", when.astimezone(dt.UTC))
    event.add("summary", summary)
    event.add("url", site_url() + url)
    if description:
        event.add("description", description)
    return event


DEADLINE_QUERIES = 7


def deadlines(user: User | AnonymousUser | None, *,
              now: dt.datetime | None = None) -> list[icalendar.Event]:
    """The calendar entries of `user` (what they are: games/web/calendar.py), soonest first.

    At most seven queries whatever the number of games and awards (DEADLINE_QUERIES,
    tests/web/test_calendar.py): the running games, the user's seats in them and their
    open handovers; the games in sign-up; the open awards and, when there are any, the
    games the user holds or held a seat in (two).
    Precondition: the caller has activated the language the summaries should use.
    """
    now = now or timezone.now()
    entries: list[tuple[dt.datetime, icalendar.Event]] = []
    mine = Q(seats__user=user) | Q(gm=user)

    # 1-3: running games.
    running = Game.objects.filter(mine, status=Game.Status.RUNNING).distinct().prefetch_related(
        Prefetch("seats", queryset=Seat.objects.filter(user=user), to_attr="users_seats"),
        Prefetch("substitutions", to_attr="open_handovers", queryset=Substitution.objects
                 .filter(status=Substitution.Status.OPEN).select_related("seat")))
    for game in running:
        is_gm = game.gm_id == user.pk
        home = reverse("game-act" if not is_gm else "game-home", args=[game.pk])
        seat = game.users_seats[0] if game.users_seats else None
        # A dead seat owes nothing any more: no phase deadline, no check-in.
        owes = is_gm or (seat is not None and seat.alive)
        if owes and game.deadline and game.current_phase_id:
            title = current_phase_name(game)
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
        for sub in game.open_handovers:
            if not is_gm and sub.seat.user_id != user.pk:
                continue
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

    # 5: open awards of finished games the user played in (or ran): a seat of the game now,
    # or a handover of one either way (`player_ids`).
    open_awards = list(Award.objects.filter(closed_at__isnull=True, vote_until__isnull=False)
                       .filter(Q(game__gm=user) | Q(game__seats__user=user)
                               | Q(game__substitutions__outgoing=user)).distinct()
                       .select_related("game"))
    played = set(Seat.objects.filter(user=user).values_list("game_id", flat=True)) | set(
        Substitution.objects.filter(Q(outgoing=user) | Q(incoming=user))
        .values_list("game_id", flat=True)) if open_awards else set()
    for award in open_awards:
        if award.game.gm_id != user.pk and award.game_id not in played:
            continue
        entries.append((award.vote_until, _entry(
            f"game-{award.game_id}-award-{award.kind}", award.vote_until,
            _("%(game)s: voting for %(award)s closes")
            % {"game": award.game.name, "award": award.get_kind_display()},
            reverse("game-awards", args=[award.game_id]), now)))

    entries.sort(key=lambda pair: pair[0])
    return [event for _when, event in entries]
