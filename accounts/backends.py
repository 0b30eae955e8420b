"""Django's and allauth's authentication backends, reading a signed-in user together with
their profile: every page reads the profile (language, timezone, the
header's name), so joining it saves a query on every signed-in request. Authentication
itself is theirs, unchanged. Sessions that named the original classes were rewritten to
name these once (accounts migration 0006)."""

from __future__ import annotations

from allauth.account import auth_backends
from django.contrib.auth import backends, get_user_model


def _user_with_profile(backend, user_id):
    User = get_user_model()
    try:
        user = User._default_manager.select_related("profile").get(pk=user_id)
    except User.DoesNotExist:
        return None
    return user if backend.user_can_authenticate(user) else None


class ModelBackend(backends.ModelBackend):
    def get_user(self, user_id):
        return _user_with_profile(self, user_id)


class AuthenticationBackend(auth_backends.AuthenticationBackend):
    def get_user(self, user_id):
        return _user_with_profile(self, user_id)
