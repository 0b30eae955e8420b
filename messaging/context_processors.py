"""`unread_count` and `notification_count` for the page header: computed only if a template
reads them, and then both in one query."""

from __future__ import annotations

from django.utils.functional import SimpleLazyObject


def header_counts(request, thread=None) -> dict[str, int]:
    """The header's counts for this request's user, read once per request (one query) and
    kept on the request, so a view that needs them first (the thread page, which reads the
    notices of the posts it shows and subtracts them) does not pay for them twice. The thread
    page passes its `thread`, so a player's counts carry their mark of it ("mark")."""
    counts = getattr(request, "_header_counts", None)
    if counts is None:
        from .notifications import header_counts as read

        counts = request._header_counts = read(getattr(request, "user", None), thread)
    return counts


def unread(request):
    """Add `unread_count` (messages from 神的使者 the user has not read, plus, for staff,
    player messages nobody has read or answered yet) and `notification_count` (the bell's
    unread notices). One query for both, and none unless the template uses one of them."""
    return {"unread_count": SimpleLazyObject(lambda: header_counts(request)["messages"]),
            "notification_count": SimpleLazyObject(lambda: header_counts(request)["notices"])}
