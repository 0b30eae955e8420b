"""Signal receivers of the games app: reply notifications for forum posts; a user's new
reminder hours reschedule the reminder sweep's look at their running games.

Connected by `connect()`, called once from `GamesConfig.ready()` (messaging never imports
games, so the games app listens to messaging's posts rather than messaging calling it).
"""

from __future__ import annotations

from django.db.models.signals import post_save

DISPATCH_UID = "games.signals.reply_notifications"
REMINDER_UID = "games.signals.reminder_hours"


def post_created(sender, instance, created: bool, raw: bool = False, **kwargs) -> None:
    """A new post (not an edit, not a fixture being loaded): email whoever it replies to."""
    if not created or raw:
        return
    from .notifications import notify_reply

    notify_reply(instance)


def profile_saved(sender, instance, raw: bool = False, **kwargs) -> None:
    """A profile saved (its reminder hours may have changed): the reminder sweep looks at
    the user's running games again at its next run (games/reminders.py)."""
    if raw:
        return
    from .models import Game, ReminderLook

    ReminderLook.schedule(dict(Game.objects.filter(
        status=Game.Status.RUNNING, deadline__isnull=False, seats__user_id=instance.user_id)
        .values_list("pk", "deadline")))


def connect() -> None:
    """Connect the receivers (idempotent: the dispatch uid keeps it to one connection)."""
    from accounts.models import Profile
    from messaging.models import Post

    post_save.connect(post_created, sender=Post, dispatch_uid=DISPATCH_UID)
    post_save.connect(profile_saved, sender=Profile, dispatch_uid=REMINDER_UID)
