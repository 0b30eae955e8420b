"""Model admins for a game's records (seats, phases, the replay log, votes, events,
announcements, reminders): lists to search and read; the replay log and events are
append-only.

These keep Django's model permissions (superusers, or staff given them), and every list
holds only the records of games the user may govern: never a game they hold or held a
seat in (its events carry the seed, hence every hand), and for a non-superuser only the
games they host (`selectors.games_run_by`).
"""

from __future__ import annotations

import json

from django.contrib import admin
from django.utils.translation import gettext_lazy

from config.inputs import DateRangeAdmin

from .. import selectors
from ..models import Action, Announcement, Event, Phase, ReminderSent, Seat, Vote


class GameRecords(DateRangeAdmin, admin.ModelAdmin):  # a date out of range: a form error
    game_field = "game"

    def get_queryset(self, request):
        records = super().get_queryset(request)
        user = request.user
        if user.is_superuser:
            return records.exclude(**{f"{self.game_field}__in": selectors.games_played_by(user)})
        return records.filter(**{f"{self.game_field}__in": [
            g.pk for g in selectors.games_run_by(user)]})


@admin.register(Seat)
class SeatAdmin(GameRecords):
    list_display = ["game", "number", "user", "alive"]
    list_filter = ["alive", "game__status"]
    search_fields = ["game__name", "user__profile__display_name", "user__email"]
    raw_id_fields = ["game", "user", "conversation"]


@admin.register(Phase)
class PhaseAdmin(GameRecords):
    list_display = ["game", "seq", "name", "number", "started_at", "deadline", "ended_at",
                    "end_reason"]
    list_filter = ["name", "end_reason"]
    search_fields = ["game__name"]
    raw_id_fields = ["game"]


@admin.register(Action)
class ActionAdmin(GameRecords):
    list_display = ["game", "seq", "phase", "actor", "kind", "short_params", "user", "created"]
    list_filter = ["kind", "actor"]
    search_fields = ["game__name", "kind"]
    raw_id_fields = ["game", "phase", "seat", "user"]

    @admin.display(description=gettext_lazy("params"))
    def short_params(self, action):
        return json.dumps(action.params, ensure_ascii=False)[:80]

    def has_change_permission(self, request, obj=None):
        return False  # the replay log is append-only

    def has_delete_permission(self, request, obj=None):
        return False  # a game without one of its steps no longer replays to its state


@admin.register(Vote)
class VoteAdmin(GameRecords):
    list_display = ["game", "phase", "voter", "target", "proxy", "created"]
    list_filter = ["proxy"]
    search_fields = ["game__name"]
    raw_id_fields = ["game", "phase", "voter", "target"]


@admin.register(Event)
class EventAdmin(GameRecords):
    list_display = ["game", "seq", "phase", "kind", "public", "audience", "created"]
    list_filter = ["public", "kind"]
    search_fields = ["game__name", "kind"]
    raw_id_fields = ["game", "phase"]

    def has_change_permission(self, request, obj=None):
        return False  # append-only

    def has_delete_permission(self, request, obj=None):
        return False  # the events are the engine's log, one row per logged event


@admin.register(Announcement)
class AnnouncementAdmin(GameRecords):
    list_display = ["game", "title", "published_at", "created"]
    list_filter = ["published_at"]
    search_fields = ["game__name", "title", "body"]
    raw_id_fields = ["game", "phase", "post"]


@admin.register(ReminderSent)
class ReminderSentAdmin(GameRecords):
    game_field = "phase__game"
    list_display = ["game", "phase_title", "user", "first_hours", "hours", "created"]
    list_select_related = ["phase__game", "user"]
    list_filter = ["hours"]
    search_fields = ["user__email"]
    raw_id_fields = ["phase", "user"]

    @admin.display(description=gettext_lazy("game"), ordering="phase__game__name")
    def game(self, reminder: ReminderSent):
        return reminder.phase.game

    @admin.display(description=gettext_lazy("phase"), ordering="phase__seq")
    def phase_title(self, reminder: ReminderSent) -> str:
        """The phase's name in the reader's language ("第1夜"), not its engine key."""
        return selectors.phase_title(reminder.phase.game, reminder.phase)
