"""Signal receivers of the games app: reply notifications for forum posts.

Connected by `connect()`, called once from `GamesConfig.ready()` (messaging never imports
games, so the games app listens to messaging's posts rather than messaging calling it).
"""

from __future__ import annotations

from django.db.models.signals import post_save

DISPATCH_UID = "games.signals.reply_notifications"


def post_created(sender, instance, created: bool, raw: bool = False, **kwargs) -> None:
    """A new post (not an edit, not a fixture being loaded): email whoever it replies to."""
    if not created or raw:
        return
    from .notifications import notify_reply

    notify_reply(instance)


def connect() -> None:
    """Connect the receivers (idempotent: the dispatch uid keeps it to one connection)."""
    from messaging.models import Post

    post_save.connect(post_created, sender=Post, dispatch_uid=DISPATCH_UID)
