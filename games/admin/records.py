"""Model admins for a game's records (seats, phases, the replay log, votes, events,
announcements, reminders): lists to search and read, in the reader's language.

Who reads them: a game's GM and co-GMs read the records of the games they run, as they read
its console (any active staff account opens these lists, and every list holds only the
records of the games the user may govern); superusers read every game's but those they hold
or held a seat in (its events carry the seed, hence every hand). Changing and deleting keep
Django's model permissions (superusers); nothing is added here, since the services write the
records; the replay log and the events are append-only.

What they show: each row as people name it — a seat as "3号阿狗", a phase as "第1夜", a step
or an event as the presenters' sentence, who may read an event by seat — never an engine
key, a 0-based seat or JSON. The stored data itself (a step's parameters, an event's data and
`because` chain) is for debugging: shown to superusers only, on the row's own page, as a
verbatim block.
"""

from __future__ import annotations

import json

from django.contrib import admin
from django.contrib.admin.views.main import ChangeList
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from config.inputs import DateRangeAdmin

from .. import rulesets, selectors
from ..engine.base import CLOCK, GM
from ..models import Action, Announcement, Event, Phase, ReminderSent, Seat, Vote
from ..presenters import describe, explanation, labels, phase_label, who
from .text import event_sentence, is_gm_entry, plain, rendered

# The superuser's debugging blocks: stored data as the engine reads it (verbatim JSON).
DEBUGGING_FIELDS = ("raw_settings", "raw_params", "raw_data")


def debugging_fieldsets(fields: list[str]) -> list[tuple]:
    """A change page's fieldsets: `fields` as one, then the superuser's debugging blocks
    among them (DEBUGGING_FIELDS) folded under one heading, "调试数据" (Django's "collapse"
    fieldset: a closed <details>), after everything a GM reads."""
    shown = [f for f in fields if f not in DEBUGGING_FIELDS]
    raw = [f for f in fields if f in DEBUGGING_FIELDS]
    sets: list[tuple] = [(None, {"fields": shown})]
    if raw:
        sets.append((_("Debugging data"), {"fields": raw, "classes": ["collapse"]}))
    return sets


class RecordChangeList(ChangeList):
    """A changelist whose rows learn their game's seat names and phase titles once per game
    (GameRecords.prepare), not once per cell."""

    def get_results(self, request):
        super().get_results(request)
        self.model_admin.prepare(self.result_list)


class GameRecords(DateRangeAdmin, admin.ModelAdmin):  # a date out of range: a form error
    game_field = "game"
    change_form_template = "admin/games/record_change_form.html"

    def get_queryset(self, request):
        records = super().get_queryset(request)
        user = request.user
        if user.is_superuser:
            return records.exclude(**{f"{self.game_field}__in": selectors.games_played_by(user)})
        return records.filter(**{f"{self.game_field}__in": [
            g.pk for g in selectors.games_run_by(user)]})

    # -- who reads: the hosts their games' records (the queryset narrows), as the console --
    def has_module_permission(self, request):
        return request.user.is_active and request.user.is_staff

    def has_view_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_staff

    def has_add_permission(self, request):
        return False  # written by the services, never by hand

    def get_changelist(self, request, **kwargs):
        return RecordChangeList

    def get_fieldsets(self, request, obj=None):
        return debugging_fieldsets(list(self.get_fields(request, obj)))

    def change_view(self, request, object_id, form_url="", extra_context=None):
        obj = self.get_object(request, object_id)
        extra = {"record_label": self.record_label(obj), "subtitle": self.record_label(obj)} \
            if obj is not None else {}
        return super().change_view(request, object_id, form_url, {**extra,
                                                                  **(extra_context or {})})

    # -- what a row says --
    def game_of(self, row):
        return row.game

    def record_label(self, row) -> str:
        """The row as the breadcrumbs name it (not the model's str: engine words)."""
        return str(self.game_of(row))

    def prepare(self, rows) -> None:
        """Each row's game's seat names and phase titles, read once per game."""
        cache: dict[int, dict] = {}
        for row in rows:
            game = self.game_of(row)
            row._game_facts = cache.setdefault(game.pk, {"game": game})

    def _facts(self, row) -> dict:
        facts = getattr(row, "_game_facts", None)
        if facts is None:
            facts = row._game_facts = {"game": self.game_of(row)}
        return facts

    def names(self, row) -> dict[int, str]:
        facts = self._facts(row)
        if "names" not in facts:
            facts["names"] = selectors.seat_names(facts["game"])
        return facts["names"]

    def phase_name(self, row, phase) -> str:
        if phase is None:
            return "—"
        facts = self._facts(row)
        if "phases" not in facts:
            facts["phases"] = selectors.phase_titles(facts["game"])
        return facts["phases"].get(phase.pk) or selectors.phase_title(facts["game"], phase)

    def seat_text(self, row, number: int | None) -> str:
        if number is None:
            return "—"
        return who(self.names(row), number)

    @admin.display(description=gettext_lazy("phase"), ordering="phase__seq")
    def phase_title(self, row) -> str:
        return self.phase_name(row, row.phase)

    @admin.display(description=gettext_lazy("game"))
    def game_name(self, row) -> str:
        return str(self.game_of(row))

    @staticmethod
    def raw(data) -> str:
        """Stored data for a superuser's debugging: a verbatim block (lang="zxx")."""
        return format_html('<pre lang="zxx" style="white-space:pre-wrap">{}</pre>',
                           json.dumps(data, ensure_ascii=False, indent=1))


@admin.register(Seat)
class SeatAdmin(GameRecords):
    list_display = ["game", "seat", "player", "alive"]
    list_select_related = ["game", "user__profile"]
    list_filter = ["alive", "game__status"]
    search_fields = ["game__name", "user__profile__display_name", "user__email"]
    # The seat's number is the engine's index and its holder changes by a substitution
    # (the console): neither is edited here.
    fields = ["game_name", "seat", "player", "alive", "checked_in_at", "joined_at"]
    readonly_fields = ["game_name", "seat", "player", "joined_at"]

    def record_label(self, row) -> str:
        return f"{row.game} · {self.seat(row)}"

    @admin.display(description=gettext_lazy("seat"), ordering="number")
    def seat(self, row: Seat) -> str:
        return self.seat_text(row, row.number)

    @admin.display(description=gettext_lazy("player"), ordering="user__profile__display_name")
    def player(self, row: Seat) -> str:
        from accounts.models import display_name

        return display_name(row.user) if row.user_id else "—"


class PhaseKindFilter(admin.SimpleListFilter):
    """Phases by their kind, as the rule sets name them ("夜", "发言")."""

    title = gettext_lazy("kind of phase")
    parameter_name = "kind"

    def lookups(self, request, model_admin):
        seen = {}
        for entry in rulesets.TABLE.values():
            for name in entry.phases:
                label = phase_label(name, entry.name)
                seen.setdefault(name, []).append(label)
        return [(name, " / ".join(dict.fromkeys(found))) for name, found in seen.items()]

    def queryset(self, request, queryset):
        return queryset.filter(name=self.value()) if self.value() else queryset


class EndReasonFilter(admin.SimpleListFilter):
    title = gettext_lazy("how it ended")
    parameter_name = "ended"

    def lookups(self, request, model_admin):
        return [(r, labels.end_reason_label(r)) for r in ("deadline", "early", "gm", "over")]

    def queryset(self, request, queryset):
        return queryset.filter(end_reason=self.value()) if self.value() else queryset


@admin.register(Phase)
class PhaseAdmin(GameRecords):
    list_display = ["game", "title", "started_at", "deadline", "ended_at", "how_it_ended"]
    list_select_related = ["game"]
    list_filter = [PhaseKindFilter, EndReasonFilter]
    search_fields = ["game__name"]
    # Its times may be corrected (superusers); what the phase is comes from the replay log.
    fields = ["game_name", "title", "started_at", "deadline", "ended_at", "how_it_ended"]
    readonly_fields = ["game_name", "title", "how_it_ended"]

    def record_label(self, row) -> str:
        return f"{row.game} · {self.title(row)}"

    @admin.display(description=gettext_lazy("phase"), ordering="seq")
    def title(self, row: Phase) -> str:
        return self.phase_name(row, row)

    @admin.display(description=gettext_lazy("how it ended"), ordering="end_reason")
    def how_it_ended(self, row: Phase) -> str:
        return labels.end_reason_label(row.end_reason) if row.end_reason else "—"


class ActorFilter(admin.SimpleListFilter):
    title = gettext_lazy("taken by")
    parameter_name = "by"

    def lookups(self, request, model_admin):
        return [("seat", _("a player")), (GM, _("the GM")), (CLOCK, _("the game clock"))]

    def queryset(self, request, queryset):
        if self.value() == "seat":
            return queryset.exclude(actor__in=[GM, CLOCK])
        if self.value() in (GM, CLOCK):
            return queryset.filter(actor=self.value())
        return queryset


@admin.register(Action)
class ActionAdmin(GameRecords):
    list_display = ["game", "seq", "phase_title", "by", "step", "created"]
    list_select_related = ["game", "phase"]
    list_filter = [ActorFilter]
    search_fields = ["game__name"]
    readonly_fields = ["game_name", "seq", "phase_title", "by", "step", "received_at",
                       "created"]
    fields = readonly_fields

    def get_fields(self, request, obj=None):
        return self.fields + (["raw_params"] if request.user.is_superuser else [])

    def get_readonly_fields(self, request, obj=None):
        return self.get_fields(request, obj)

    def record_label(self, row) -> str:
        return f"{row.game} · #{row.seq}"

    @admin.display(description=gettext_lazy("taken by"), ordering="actor")
    def by(self, row: Action) -> str:
        if row.actor.isdigit():
            return self.seat_text(row, int(row.actor))
        return _("the GM") if row.actor == GM else _("the game clock") \
            if row.actor == CLOCK else row.actor

    @admin.display(description=gettext_lazy("what was done"))
    def step(self, row: Action):
        if row.actor == CLOCK:
            return _("the end of %(phase)s") % {"phase": self.phase_name(row, row.phase)}
        if row.game.ruleset not in rulesets.names():
            return row.kind
        return rendered(describe(row.game.ruleset, {"kind": row.kind, "data": row.params,
                                                    "visibility": {"public": False,
                                                                   "seats": []}},
                                 self.names(row)))

    @admin.display(description=gettext_lazy("stored step (for debugging)"))
    def raw_params(self, row: Action) -> str:
        return self.raw({"actor": row.actor, "kind": row.kind, "params": row.params})

    def has_change_permission(self, request, obj=None):
        return False  # the replay log is append-only

    def has_delete_permission(self, request, obj=None):
        return False  # a game without one of its steps no longer replays to its state


@admin.register(Vote)
class VoteAdmin(GameRecords):
    list_display = ["game", "phase_title", "voter_name", "target_name", "proxy", "created"]
    list_select_related = ["game", "phase", "voter", "target"]
    list_filter = ["proxy"]
    search_fields = ["game__name"]
    fields = ["game_name", "phase_title", "voter_name", "target_name", "proxy", "created"]
    readonly_fields = fields

    def record_label(self, row) -> str:
        return f"{row.game} · {self.voter_name(row)} → {self.target_name(row)}"

    @admin.display(description=gettext_lazy("voter"), ordering="voter__number")
    def voter_name(self, row: Vote) -> str:
        return self.seat_text(row, row.voter.number)

    @admin.display(description=gettext_lazy("voted for"), ordering="target__number")
    def target_name(self, row: Vote) -> str:
        return self.seat_text(row, row.target.number) if row.target_id else _("abstained")


@admin.register(Event)
class EventAdmin(GameRecords):
    list_display = ["game", "seq", "phase_title", "what", "readers", "created"]
    list_select_related = ["game", "phase"]
    list_filter = ["public"]
    search_fields = ["game__name"]
    readonly_fields = ["game_name", "seq", "phase_title", "what", "readers", "why",
                       "created"]
    fields = readonly_fields

    def get_fields(self, request, obj=None):
        return self.fields + (["raw_data"] if request.user.is_superuser else [])

    def get_readonly_fields(self, request, obj=None):
        return self.get_fields(request, obj)

    def record_label(self, row) -> str:
        return f"{row.game} · {self.phase_name(row, row.phase)}"

    @admin.display(description=gettext_lazy("what happened"))
    def what(self, row: Event):
        return rendered(event_sentence(row.game.ruleset, row.as_engine_event(),
                                       self.names(row)))

    @admin.display(description=gettext_lazy("who may read it"), ordering="public")
    def readers(self, row: Event) -> str:
        event = row.as_engine_event()
        return labels.audience_text(row.public, event["visibility"]["seats"], self.names(row))

    @admin.display(description=gettext_lazy("because"))
    def why(self, row: Event):
        event = row.as_engine_event()
        if is_gm_entry(event) or row.game.ruleset not in rulesets.names():
            return "—"
        names = self.names(row)
        chain = explanation(row.game.ruleset, event,
                            event_sentence(row.game.ruleset, event, names), names)
        return format_html_join(mark_safe("<br>"), "{}", ((plain(b),) for b in chain)) or "—"

    @admin.display(description=gettext_lazy("stored event (for debugging)"))
    def raw_data(self, row: Event) -> str:
        return self.raw({"kind": row.kind, "audience": row.audience, "data": row.data,
                         "because": row.because})

    def has_change_permission(self, request, obj=None):
        return False  # append-only

    def has_delete_permission(self, request, obj=None):
        return False  # the events are the engine's log, one row per logged event


@admin.register(Announcement)
class AnnouncementAdmin(GameRecords):
    list_display = ["game", "title", "published_at", "created"]
    list_select_related = ["game"]
    list_filter = ["published_at"]
    search_fields = ["game__name", "title", "body"]
    # Held drafts are published from the console (with the GM's story); here a superuser
    # may correct the title, the story and the times.
    fields = ["game_name", "phase_title", "title", "shown", "story", "published_at",
              "withdrawn_at", "created"]
    readonly_fields = ["game_name", "phase_title", "shown", "withdrawn_at", "created"]

    def record_label(self, row) -> str:
        return row.title

    @admin.display(description=gettext_lazy("as shown"))
    def shown(self, row: Announcement):
        return rendered(row.body)


@admin.register(ReminderSent)
class ReminderSentAdmin(GameRecords):
    game_field = "phase__game"
    list_display = ["game", "phase_title", "user_name", "first_hours", "hours", "created"]
    list_select_related = ["phase__game", "user__profile"]
    list_filter = ["hours"]
    search_fields = ["user__email", "user__profile__display_name"]
    fields = ["game", "phase_title", "user_name", "first_hours", "hours", "created"]
    readonly_fields = ["game", "phase_title", "user_name", "created"]

    def game_of(self, row):
        return row.phase.game

    def record_label(self, row) -> str:
        return f"{self.game(row)} · {self.phase_title(row)} · {self.user_name(row)}"

    @admin.display(description=gettext_lazy("game"), ordering="phase__game__name")
    def game(self, reminder: ReminderSent):
        return reminder.phase.game

    @admin.display(description=gettext_lazy("phase"), ordering="phase__seq")
    def phase_title(self, reminder: ReminderSent) -> str:
        """The phase's name in the reader's language ("第1夜"), not its engine key."""
        return self.phase_name(reminder, reminder.phase)

    @admin.display(description=gettext_lazy("user"), ordering="user__profile__display_name")
    def user_name(self, reminder: ReminderSent) -> str:
        from accounts.models import display_name

        return display_name(reminder.user)
