"""What a player's own profile changes in their games: the name the game pages show and
the reminder sweep's looks (called by the profile page, web.profiles.profile)."""

from __future__ import annotations

from django.db import transaction

from messaging.blocks import names_changed

from ..models import Game, ReminderLook
from .kernel import changed, lock_game


def profile_saved(*, user_id: int, renamed: bool, new_hours: bool) -> None:
    """User `user_id` saved their profile:
    1. `renamed` (a new display name): every game in which they hold a seat shows the new
       name, so each one's page version moves (one game at a time, under its lock, in
       the order of its id, so two renames never wait on each other's locks), and the
       forum's board pages kept for visitors who are not signed in, which name each
       thread's last writer, are forgotten (messaging.blocks.names_changed);
    2. `new_hours` (new reminder hours): the reminder sweep looks at their running games
       again at its next run (games/reminders.py), so a mark farther than the one it was
       going to look at next is not missed.
    """
    if renamed:
        names_changed()
        ids = (Game.objects.filter(seats__user_id=user_id).order_by("pk")
               .values_list("pk", flat=True).distinct())
        for game_id in ids:
            with transaction.atomic():
                game = lock_game(game_id)
                if game is not None:
                    changed(game)
    if new_hours:
        ReminderLook.schedule(dict(Game.objects.filter(
            status=Game.Status.RUNNING, deadline__isnull=False, seats__user_id=user_id)
            .values_list("pk", "deadline")))
