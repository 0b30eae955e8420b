"""Activate each signed-in user's timezone and language for the request."""

from __future__ import annotations

import zoneinfo

from django.conf import settings
from django.utils import timezone, translation


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


class UserPreferencesMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = request.user
        timezone.activate(user_timezone(user))
        if user.is_authenticated:
            profile = getattr(user, "profile", None)
            if profile is not None and profile.language in dict(settings.LANGUAGES):
                translation.activate(profile.language)
                request.LANGUAGE_CODE = profile.language
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
