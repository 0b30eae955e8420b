"""`unread_count` for the page header: computed only if a template reads it."""

from __future__ import annotations

from django.utils.functional import SimpleLazyObject


def unread(request):
    """Add `unread_count`: messages from 神的使者 the user has not read, plus (for staff)
    player messages nobody has read or answered yet. At most one query, and none unless
    the template uses the value."""
    user = getattr(request, "user", None)

    def count() -> int:
        from .services import unread_for

        return unread_for(user)

    return {"unread_count": SimpleLazyObject(count)}
