"""Every deadline of a user's games as an iCalendar feed (issue 6, item 8).

`/calendar/<token>.ics` is a private URL per user: the token (`Profile.calendar_token`) is the
only credential, since calendar applications fetch feeds without signing in. Making a new
token revokes the old URL at once (it is no longer found: 404); revoking leaves none.

What the feed holds, for the games where the user holds a seat or is the GM:
1. the deadline of the current phase of every running game;
2. the check-in deadline (seed 002 §5.2) while the user's seat has not checked in;
3. the end of an open handover window (§9.3) of the user's seat (the GM sees them all);
4. the announced start of a game in sign-up the user signed up for (not withdrawn);
5. the voting deadline of every open award (§11.2) of a finished game they played.

Later phases are not projected: when a phase ends depends on early ends and on how the
hidden resolution goes (a night that ends the game has no day after it), so a projection
would either be wrong or leak. Each entry has a stable UID (the game, the kind and the phase
or window), so a calendar application updates an entry when the GM moves a deadline instead
of adding a second one. A paused game's deadline is left out until the GM resumes it.
"""

from __future__ import annotations

import datetime as dt
import secrets
from urllib.parse import urlsplit

import icalendar
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.models import Profile

from .awards import player_ids
from .models import Award, Game, Seat, Signup, Substitution
from .services import phase_label

TOKEN_BYTES = 30  # 40 URL-safe characters, the length of Profile.calendar_token
MIN_TOKEN_LENGTH = 20


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


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


def deadlines(user, *, now: dt.datetime | None = None) -> list[icalendar.Event]:
    """The calendar entries of `user` (see the module docstring), soonest first.

    Precondition: the caller has activated the language the summaries should use.
    """
    now = now or timezone.now()
    entries: list[tuple[dt.datetime, icalendar.Event]] = []
    mine = Q(seats__user=user) | Q(gm=user)

    # 1-3: running games.
    for game in Game.objects.filter(mine, status=Game.Status.RUNNING).distinct():
        is_gm = game.gm_id == user.pk
        home = reverse("game-act" if not is_gm else "game-home", args=[game.pk])
        if game.deadline and game.current_phase_id:
            title = f"{phase_label(game.phase_name, game.ruleset)} {game.phase_number}"
            entries.append((game.deadline, _entry(
                f"game-{game.pk}-phase-{game.current_phase_id}", game.deadline,
                _("%(game)s: %(phase)s ends") % {"game": game.name, "phase": title},
                home, now)))
        seat = Seat.objects.filter(game=game, user=user).first()
        if seat is not None and seat.checked_in_at is None and game.started_at:
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


def feed(user, *, now: dt.datetime | None = None) -> bytes:
    """The whole VCALENDAR of `user`, in their language."""
    profile = getattr(user, "profile", None)
    with translation.override(getattr(profile, "language", None) or settings.LANGUAGE_CODE):
        calendar = icalendar.Calendar()
        calendar.add("prodid", "-//Killing Games//deadlines//EN")
        calendar.add("version", "2.0")
        calendar.add("calscale", "GREGORIAN")
        calendar.add("x-wr-calname", _("Killing games: my deadlines"))
        for event in deadlines(user, now=now):
            calendar.add_component(event)
    return calendar.to_ical()


def calendar_feed(request, token: str):
    """The feed of the user whose token this is; 404 for any other (revoked) token."""
    if len(token) < MIN_TOKEN_LENGTH:
        raise Http404
    profile = Profile.objects.filter(calendar_token=token, user__is_active=True) \
        .select_related("user").first()
    if profile is None:
        raise Http404
    response = HttpResponse(feed(profile.user), content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = 'inline; filename="killing-games.ics"'
    # The URL is the credential: no shared cache may keep it, no search engine list it.
    response["Cache-Control"] = "private, no-store"
    response["X-Robots-Tag"] = "noindex"
    return response


@login_required
@require_http_methods(["GET", "POST"])
def calendar_settings(request):
    """The profile's calendar section: create (or replace) the private URL, or revoke it."""
    profile, _created = Profile.objects.get_or_create(
        user=request.user, defaults={"display_name": f"user{request.user.pk}"})
    if request.method == "POST":
        if request.POST.get("do") == "revoke":
            profile.calendar_token = ""
            messages.success(request, _("The calendar link was revoked."))
        else:
            replaced = bool(profile.calendar_token)
            profile.calendar_token = new_token()
            messages.success(request, _("A new calendar link was made; the old one no longer "
                                        "works.") if replaced else
                             _("Your calendar link is ready."))
        profile.save(update_fields=["calendar_token"])
        return redirect("profile-calendar")
    url = (settings.SITE_URL + reverse("calendar-feed", args=[profile.calendar_token])
           if profile.calendar_token else "")
    return render(request, "accounts/calendar.html", {"profile": profile, "feed_url": url})
