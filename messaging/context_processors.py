"""`unread_count` and `notification_count` for the page header: computed only if a template
reads them, and then both in one query."""

from __future__ import annotations

from django.utils.functional import SimpleLazyObject


def unread(request):
    """Add `unread_count` (messages from 神的使者 the user has not read, plus, for staff,
    player messages nobody has read or answered yet) and `notification_count` (the bell's
    unread notices). One query for both, and none unless the template uses one of them."""
    user = getattr(request, "user", None)
    counts: dict[str, int] = {}

    def load() -> dict[str, int]:
        if not counts:
            from .notifications import header_counts

            counts.update(header_counts(user))
        return counts

    return {"unread_count": SimpleLazyObject(lambda: load()["messages"]),
            "notification_count": SimpleLazyObject(lambda: load()["notices"])}
