"""Every deadline of a user's games as an iCalendar feed.

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

import icalendar
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.models import Profile
from config.site import site_url

from ..mail import user_locale
from ..selectors import deadlines

TOKEN_BYTES = 30  # 40 URL-safe characters, the length of Profile.calendar_token
MIN_TOKEN_LENGTH = 20


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def feed(user, *, now: dt.datetime | None = None) -> bytes:
    """The whole VCALENDAR of `user`, in their language."""
    with translation.override(user_locale(user).language):
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
    url = (site_url() + reverse("calendar-feed", args=[profile.calendar_token])
           if profile.calendar_token else "")
    return render(request, "accounts/calendar.html", {"profile": profile, "feed_url": url})
