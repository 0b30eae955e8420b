"""Activate each reader's timezone and each signed-in user's language for the request.

The zone: a signed-in user's profile (`Profile.timezone`); a reader who is not signed in,
the zone their browser told us (the `TIMEZONE_COOKIE`, written by `accounts.views.
set_timezone`); else the site's default. `request.timezone_unset` says whether the
browser should still be asked (static/js/timezone.js): a profile whose zone nobody set
yet. A reader who is not signed in is asked whenever their browser holds no cookie, which
the script itself checks, so the page reads the same for all of them (the cached parts of
pages are keyed by the active zone).
"""

from __future__ import annotations

import zoneinfo

from django.conf import settings
from django.utils import timezone, translation

from .timezones import is_known

TIMEZONE_COOKIE = "tz"


def user_timezone(user) -> zoneinfo.ZoneInfo:
    name = settings.DEFAULT_USER_TIMEZONE
    if user is not None and user.is_authenticated:
        profile = getattr(user, "profile", None)
        if profile is not None:
            name = profile.timezone
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo(settings.DEFAULT_USER_TIMEZONE)


def reader_timezone(request) -> zoneinfo.ZoneInfo:
    """The zone this request's times are shown in (see the module)."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return user_timezone(user)
    name = request.COOKIES.get(TIMEZONE_COOKIE, "")
    if is_known(name):
        return zoneinfo.ZoneInfo(name)
    return zoneinfo.ZoneInfo(settings.DEFAULT_USER_TIMEZONE)


class UserPreferencesMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = request.user
        timezone.activate(reader_timezone(request))
        request.timezone_unset = False
        if user.is_authenticated:
            profile = getattr(user, "profile", None)
            if profile is not None:
                request.timezone_unset = not profile.timezone_origin
                if profile.language in dict(settings.LANGUAGES):
                    translation.activate(profile.language)
                    request.LANGUAGE_CODE = profile.language
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
