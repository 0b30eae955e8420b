"""The 天神 console: every GM power as an admin page or button, all through services.

GameAdmin is the Game model's admin and the console: the console page (`console`) and one
POST endpoint per command (`command`), each command a small function in COMMANDS. The Game
change form itself saves the Game row directly (Django's ModelAdmin.save_model), not
through a service.
"""

from __future__ import annotations

import functools

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import display_name
from config.inputs import InputError, parse_int
from messaging import keeping
from messaging import services as forum
from messaging.models import Conversation

from .. import rulesets, selectors, services
from ..engine.base import GM
from ..models import Action, Announcement, Event, Game, Seat, Signup, Watcher
from ..presenters import (
    describe,
    explanation,
    labels,
    outcome_text,
    param_label,
    phase_label,
    who,
)
from ..services import winrates
from ..web import clock
from . import gm_steps, guide, rollback
from .forms import GameSettingsForm, RunningGameForm, running_fields
from .records import debugging_fieldsets
from .text import plain, rendered


def _camp_name(ruleset: str, camp: str) -> str:
    return {"civilian": _("civilians"), "killer": _("killers"), "wolf": _("wolves"),
            "draw": _("draw"), "unfinished": _("unfinished"), "police": _("police"),
            "bandit": _("bandits")}.get(camp, camp)


def _started(game: Game) -> bool:
    return game.status not in (Game.Status.DRAFT, Game.Status.SIGNUP)


class PlayerChoiceField(forms.ModelChoiceField):
    """A seat picker: players by display name (the queryset sorts them), never usernames."""

    def label_from_instance(self, user):
        return user.profile.display_name


class StartForm(forms.Form):
    def __init__(self, *args, game: Game, **kwargs):
        super().__init__(*args, **kwargs)
        users = (get_user_model().objects.filter(is_active=True, profile__isnull=False)
                 .exclude(username=settings.MESSENGER_USERNAME)
                 .exclude(pk=game.gm_id).exclude(pk__in=game.co_gms.values("pk"))
                 .select_related("profile").order_by("profile__display_name", "pk"))
        for i in range(game.seat_count):
            self.fields[f"seat_{i}"] = PlayerChoiceField(
                users, label=_("Seat %(n)d") % {"n": i + 1})
        self.fields["seed"] = forms.CharField(
            label=gettext_lazy("seed (optional)"), required=False, max_length=64,
            help_text=gettext_lazy("Leave empty for a fresh secret seed."))

    def users(self):
        return [self.cleaned_data[f"seat_{i}"] for i in range(len(self.fields) - 1)]


class RuleSetFilter(admin.SimpleListFilter):
    """The games list's filter by rule set, by the rule sets' titles."""

    title = gettext_lazy("rule set")
    parameter_name = "ruleset"

    def lookups(self, request, model_admin):
        return [(name, labels.ruleset_title(name)) for name in rulesets.names()]

    def queryset(self, request, queryset):
        return queryset.filter(ruleset=self.value()) if self.value() else queryset


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ["name", "ruleset_title", "status", "phase_display", "deadline",
                    "seat_count", "gm_name", "created"]
    list_filter = ["status", RuleSetFilter]
    search_fields = ["name"]
    raw_id_fields = ["board", "gm"]
    readonly_fields = ["status", "console_link"]
    # A started game's settings page: what may still change (services.RUNNING_SETTINGS),
    # then the rest as labelled facts in the reader's words (never the engine's keys or
    # JSON; a superuser also gets the stored data itself, `raw_settings`).
    STARTED_FACTS = ["ruleset_title", "seat_count", "options_text",
                     "durations_text", "cutoff_text", "seat_list", "board_link", "console_link", "status",
                     "phase_display", "deadline", "result_text", "commitment", "started_at",
                     "finished_at"]

    @admin.display(description=gettext_lazy("phase"))
    def phase_display(self, game):
        return phase_heading(game) or "—"

    @admin.display(description=gettext_lazy("rule set"), ordering="ruleset")
    def ruleset_title(self, game):
        return labels.ruleset_title(game.ruleset)

    @admin.display(description=gettext_lazy("game master"), ordering="gm__profile__display_name")
    def gm_name(self, game):
        return display_name(game.gm) if game.gm_id else "—"

    @admin.display(description=gettext_lazy("rule options"))
    def options_text(self, game):
        lines = labels.option_lines(game.ruleset, game.config, selectors.seat_names(game))
        return format_html_join(mark_safe("<br>"), "{}", ((line,) for line in lines)) or "—"

    @admin.display(description=gettext_lazy("phase lengths"))
    def durations_text(self, game):
        lines = labels.duration_lines(game.ruleset, game.durations)
        return format_html_join(mark_safe("<br>"), "{}", ((line,) for line in lines)) or "—"

    @admin.display(description=gettext_lazy("change cut-off"))
    def cutoff_text(self, game):
        return labels.cutoff_text(game.change_cutoff_minutes)

    @admin.display(description=gettext_lazy("watchers follow the game"))
    def watch_delay_text(self, game):
        """How far behind watchers follow: chosen at creation, fixed from the start (whoever
        signed up knew it)."""
        return _("%(delay)s (fixed since the start)") % {
            "delay": game.get_watch_delay_display()}

    @admin.display(description=gettext_lazy("outsiders who watch"))
    def outsiders_text(self, game):
        """Who of the outsiders could watch, as a fact once the game is over (nobody watches
        then: the review shows everything to everyone)."""
        choice = game.get_outsiders_display()
        if game.outsiders == Game.Outsiders.OPEN and game.watch_risk_accepted:
            choice = _("%(choice)s (the risk accepted)") % {"choice": choice}
        return _("%(choice)s (the game is over: its review is open to everyone)") % {
            "choice": choice}

    @admin.display(description=gettext_lazy("board"))
    def board_link(self, game):
        """The game's board on the site (the board's admin row is the forum's business)."""
        if not game.board_id:
            return "—"
        return format_html('<a href="{}">{}</a>', game.board.get_absolute_url(),
                           game.board.title)

    @admin.display(description=gettext_lazy("result"))
    def result_text(self, game):
        return result_line(game) or "—"

    @admin.display(description=gettext_lazy("stored settings (for debugging)"))
    def raw_settings(self, game):
        """The stored config and phase lengths as the engine reads them: superusers only,
        a verbatim block (lang="zxx": data, not text in any language)."""
        import json

        data = {"ruleset": game.ruleset, "config": game.config, "durations": game.durations,
                "outcome": game.outcome}
        return format_html('<pre lang="zxx" style="white-space:pre-wrap">{}</pre>',
                           json.dumps(data, ensure_ascii=False, indent=1))

    @admin.display(description=gettext_lazy("console"))
    def console_link(self, game):
        if not game.pk:
            return "—"
        return format_html('<a href="{}">{}</a>', reverse("admin:games_game_console",
                                                          args=[game.pk]), _("Open the console"))

    class Media:
        js = ["admin/games/game_form.js"]

    # -- who sees what: staff status means "may host games" --
    # Django's model permissions are not the authority here: any active staff account may
    # open the Game admin and add a game; a saved game is shown and changed only by its GM
    # and co-GMs who never held a seat in it (selectors.is_gm). Superusers see every game in
    # the list and may change its settings (to reassign the GM) except the games they hold
    # or held a seat in (no GM view of those, superusers included); the console stays is_gm.
    # Deleting keeps Django's permissions (superusers).
    def has_module_permission(self, request):
        return request.user.is_active and request.user.is_staff

    def has_view_permission(self, request, obj=None):
        return self._may_govern(request, obj)

    def has_add_permission(self, request):
        return request.user.is_active and request.user.is_staff

    def has_change_permission(self, request, obj=None):
        return self._may_govern(request, obj)

    def _may_govern(self, request, obj) -> bool:
        user = request.user
        if not (user.is_active and user.is_staff):
            return False
        if obj is None:
            return True
        if user.is_superuser:
            return user.pk not in selectors.ever_seated_ids(obj)
        return selectors.is_gm(user, obj)

    def _get_obj_does_not_exist_redirect(self, request, opts, object_id):
        """A game outside the user's list (another host's, one they play in) is a 404, not
        Django's redirect to the index: the same answer as its console."""
        raise Http404

    def get_queryset(self, request):
        """The changelist: every game for a superuser but those they play or played in, the
        games they host for other staff."""
        games = super().get_queryset(request)
        if request.user.is_superuser:
            return games.exclude(pk__in=selectors.games_played_by(request.user))
        return games.filter(pk__in=[g.pk for g in selectors.games_run_by(request.user)])

    # -- the add/change form: typed settings (games/admin/forms.py), saved by services --
    SETUP_FIELDS = ["name", "ruleset", "seat_count", "gm", "early_end", "hold_announcements",
                    "manifesto_review_minutes", "change_cutoff_minutes", "watch_delay",
                    "outsiders", "watch_risk_accepted"]

    # A started game's watching (观战), under a heading of its own: who of the outsiders
    # may watch (editable while the game runs: games/admin/forms.py, running_fields; a
    # fact once it is over) and how far behind watchers follow (fixed from the start).
    WATCHING = ["outsiders", "watch_risk_accepted", "outsiders_text", "watch_delay_text"]

    def _facts(self, request, game) -> list[str]:
        return (self.STARTED_FACTS + ["watch_delay_text"]
                + (["outsiders_text"] if game.is_over else [])
                + (["raw_settings"] if request.user.is_superuser else []))

    def get_fields(self, request, obj=None):
        if obj is None:
            return None  # the settings form's own fields, in its order
        if _started(obj):
            return running_fields(obj) + self._facts(request, obj)
        return None

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        if _started(obj):
            return self._facts(request, obj)
        return list(self.readonly_fields)

    def get_fieldsets(self, request, obj=None):
        if obj is not None and _started(obj):
            fields = self.get_fields(request, obj)
            watching = [f for f in self.WATCHING if f in fields]
            sets = debugging_fieldsets([f for f in fields if f not in watching])
            sets.insert(1, (_("Spectating"), {"fields": watching}))
            return sets
        form = GameSettingsForm(instance=obj)
        sets = [(None, {"fields": self.SETUP_FIELDS})]
        for group in form.groups:
            sets.append((group["title"], {
                "fields": [group["preset"], *group["durations"],
                           *group["options"]] if group["preset"] else group["options"],
                "classes": [f"ruleset-fields ruleset-{group['ruleset']}"]}))
        if obj is not None:
            sets.append((_("State"), {"fields": ["console_link", "status"]}))
        return sets

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is not None and _started(obj):
            base = RunningGameForm
        else:
            base = GameSettingsForm
        user = request.user

        class Form(base):
            def __init__(self, *args, **kw):
                kw.setdefault("user", user)
                super().__init__(*args, **kw)

        Form.__name__ = base.__name__
        return Form

    @admin.display(description=gettext_lazy("players in their seats"))
    def seat_list(self, game):
        """A started game's seats, read-only (a seat changes hands by a substitution)."""
        names = selectors.seat_names(game)
        return format_html_join(mark_safe("<br>"), "{}", ((who(names, n),) for n in
                                                          sorted(names))) or "—"

    def save_model(self, request, obj, form, change):
        """Through the services: create_game for a new game, update_settings (under the game
        lock, writing only the form's columns) for an existing one."""
        if not change:
            game = services.create_game(**form.settings())
            obj.pk = game.pk
            obj.refresh_from_db()
            return
        changes = form.settings()
        services.update_settings(game_id=obj.pk, changes=changes)
        obj.refresh_from_db()

    def get_urls(self):
        urls = [
            path("winrates/", self.admin_site.admin_view(self.winrates_view),
                 name="games_game_winrates"),
            path("guide/", self.admin_site.admin_view(
                functools.partial(guide.guide_view, self.admin_site)), name="games_game_guide"),
            path("guide/img/<str:name>", self.admin_site.admin_view(guide.guide_image),
                 name="games_game_guide_image"),
            path("<id:pk>/console/", self.admin_site.admin_view(self.console),
                 name="games_game_console"),
            path("<id:pk>/console/end-phase/", self.admin_site.admin_view(self.end_phase_view),
                 name="games_game_end_phase"),
            path("<id:pk>/console/<str:command>/", self.admin_site.admin_view(self.command),
                 name="games_game_command"),
            *rollback.urls(self.admin_site),
        ]
        return urls + super().get_urls()

    def winrates_view(self, request):
        """JSON for the form's poll (GET): where the setup's win rates stand
        (services.winrates.estimate), with a sentence to show: "ready" with the figures per
        camp; "pending" while the task is queued (`stage` "queued", seconds waited) or
        running (`stage` "running", games done of the total and the seconds left); "failed"
        with the error (the form stops polling); "unavailable" when the cache or the broker
        cannot be reached; "none" for a rule set without camps. A setup the form or the
        rules refuse: 400, "invalid" with the reasons, and nothing queued. A saved game's
        figures are for its GM (`is_gm`: 404 for anyone else, as the console); an unsaved
        setup's for whoever may add a game."""
        if not self.has_add_permission(request):
            return JsonResponse({"status": "forbidden"}, status=403)
        game_id = request.GET.get("game", "")
        if game_id.isascii() and game_id.isdigit() and len(game_id) < 12:  # a saved game
            game = governed_game_or_404(request, int(game_id))
            setup = {"ruleset": game.ruleset, "seat_count": game.seat_count,
                     "config": game.config}
        else:
            # The win rates depend on the setup only: what else the form needs is filled (who
            # watches too: open watching not accepted yet is no reason to hide the figures).
            form = GameSettingsForm(data={"watch_delay": Game.WatchDelay.ONE,
                                          **request.GET.dict(), "name": "-",
                                          "gm": request.user.pk,
                                          "outsiders": Game.Outsiders.OFF}, user=request.user)
            if not form.is_valid():
                return _winrates_refused([str(m) for ms in form.errors.values() for m in ms])
            setup = form.settings_kwargs
        try:
            found = winrates.estimate(ruleset=setup["ruleset"], seats=setup["seat_count"],
                                      config=setup["config"])
        except winrates.Refused as refused:
            return _winrates_refused([refused.message])
        return JsonResponse(_winrates_answer(setup["ruleset"], found))

    # -- the console page --
    def console(self, request, pk, step_forms=None):
        game = governed_game_or_404(request, pk)
        names = selectors.seat_names(game)
        choices = selectors.gm_choices(game)
        manifestos = manifesto_rows(game, names)
        inner = inner_phase_notice(game, names)
        context = {
            **self.admin_site.each_context(request), "title": _("Console: %(name)s") % {
                "name": game.name}, "game": game, "opts": self.model._meta,
            "phase_title": phase_heading(game, inner),
            "result": result_line(game, names),
            "seats": seat_rows(game, names),
            "pending": step_rows(game, names),
            # With an inner phase due, "ending now" is the GM's "end without it" (the
            # notice says what waiting for it does instead).
            "preview": event_rows(game, selectors.end_phase_consequences(
                game, through_inner=True)["events"], names)
            if inner["due"] else event_rows(game, selectors.preview_end_phase(game), names),
            "inner": inner,
            "drafts": game.announcements.filter(published_at=None, withdrawn_at=None),
            "start_form": StartForm(game=game) if game.status in ("draft", "signup") else None,
            # Manifestos are reviewed in their own section (approve / reject with a reason),
            # not among the rules' other GM steps.
            "step_forms": step_forms or gm_steps.step_forms(
                game, [c for c in choices if c.kind != "reject_manifesto"], names),
            "manifestos": manifestos,
            "manifestos_pending": sum(1 for m in manifestos if not m["approved"]),
            "review_open": services.review_open(game, timezone.now()),
            "everyone_acted": everyone_acted(game),
            "events": event_rows(game, [
                e.as_engine_event() for e in Event.objects.filter(game=game).order_by("-id")[:200]],
                names),
            "signups": game.signups.filter(withdrawn_at=None).select_related("user__profile"),
            "substitutions": named(game.substitutions.select_related(
                "seat", "outgoing__profile", "incoming__profile")[:50], names),
            "warnings": named(selectors.open_warnings(game), names),
            "leaves": named(game.leaves.select_related("seat", "user__profile")[:50], names),
            "can_foul_out": any(c.kind == "foul_out" for c in choices),
            "engine_abort": any(c.kind == "abort" for c in choices),
            "seat_choices": sorted(names.items()),
            "inbox": selectors.gm_inbox(game),
            "reports": selectors.gm_reports(game),
            "watch_requests": watch_request_rows(game),
            "watchers": watcher_rows(game, names),
            # A stopped game clock, in the GM's words (one cache read, no query).
            "clock_notice": clock.notice(game, runs=True),
        }
        return TemplateResponse(request, "admin/games/console.html", context)

    def end_phase_view(self, request, pk):
        """"End phase now", step 1: what will happen, from the engine run on a copy of the
        state; the confirm button posts the `end_phase` command."""
        game = governed_game_or_404(request, pk)
        names = selectors.seat_names(game)
        inner = inner_phase_notice(game, names)
        # With an inner phase due, the list is what "end without it" does (both ends).
        found = selectors.end_phase_consequences(game, through_inner=bool(inner["due"]))
        context = {
            **self.admin_site.each_context(request), "opts": self.model._meta, "game": game,
            "title": _("End %(phase)s now?") % {"phase": phase_heading(game, inner)},
            "running": game.status == Game.Status.RUNNING,
            "inner": inner,
            "missing": [(who(names, n), gm_steps.owed_texts(kinds))
                        for n, kinds in found["missing"].items()],
            "fouled_out": [who(names, n) for n in found["fouled_out"] if isinstance(n, int)],
            "defaults": event_rows(game, found["defaults"], names),
            "events": event_rows(game, found["events"], names),
            "next_phase": found["next_phase_name"],
            "unreviewed": [m for m in manifesto_rows(game, names) if not m["approved"]],
        }
        return TemplateResponse(request, "admin/games/end_phase.html", context)

    def command(self, request, pk, command):
        """One console button (POST): run its command; say what came of it."""
        game = governed_game_or_404(request, pk)
        back = redirect("admin:games_game_console", pk=game.pk)
        if request.method != "POST":
            return back
        if command == "step":
            return self.step(request, game)
        run = COMMANDS.get(command)
        if run is None:
            messages.error(request, _("Unknown command."))
            return back
        try:
            problem = run(game, request.user, request.POST)
        except InputError as refused:  # config.inputs: a readable refusal, nothing changed
            messages.error(request, refused.message)
        except services.GameError as exc:
            messages.error(request, exc.message)
        else:
            if problem:
                messages.error(request, problem)
            else:
                messages.success(request, _("Done."))
        return back


    def step(self, request, game):
        """A GM step from its small form: a bad pick re-shows the console with the form's
        message (nothing stored); an accepted one goes through services.gm_step."""
        names = selectors.seat_names(game)
        choices = selectors.gm_choices(game)
        kind = request.POST.get("kind", "")
        forms_ = gm_steps.step_forms(game, choices, names, data=request.POST, kind=kind)
        form = next((f for f in forms_ if f.step_kind == kind), None)
        if form is None:
            messages.error(request, _("This step is not offered now."))
            return redirect("admin:games_game_console", pk=game.pk)
        if not form.is_valid():
            messages.error(request, _("The step was not applied: see the form."))
            return self.console(request, game.pk, step_forms=forms_)
        try:
            services.gm_step(game_id=game.pk, gm=request.user, kind=kind,
                             params=form.step_params)
        except services.GameError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, _("Done."))
        return redirect("admin:games_game_console", pk=game.pk)


def phase_heading(game: Game, inner: dict | None = None) -> str:
    """The current phase's name as every page gives it ("第3夜", "第2轮 · 选牌"); for the GM
    (`inner`: inner_phase_notice), a phase run inside it that is under way is named too
    ("第2夜 · 追加验人": the players see the night going on)."""
    name = selectors.current_phase_name(game)
    return f"{name} · {inner['label']}" if inner and inner["running"] else name


def inner_phase_notice(game: Game, names: dict[int, str]) -> dict:
    """What "end this phase now" does when the rule set runs a phase inside this one
    (selectors.inner_phase: Classic's extra check inside the night), for the console and
    the end page, in the GM's words:

        {"due": bool, "running": bool, "closed": bool,   # as selectors.inner_phase
         "label": the inner phase's name ("追加验人"),
         "why": why it is due, the rule set's own sentence (the reason of the event that
                would begin it: "警察验到了毒药，天亮前可以再验一人（毒药 4）")}
    """
    where = selectors.inner_phase(game)
    name = where["due"] or where["running"]
    out = {"due": bool(where["due"]), "running": bool(where["running"]),
           "closed": where["closed"], "label": phase_label(name, game.ruleset)
           if name else "", "why": ""}
    if out["due"]:
        rows = event_rows(game, selectors.end_phase_consequences(game)["events"], names)
        if rows:
            out["why"] = (rows[-1]["because"] or [plain(str(rows[-1]["text"]))])[-1]
    return out


def result_line(game: Game, names: dict[int, str] | None = None) -> str:
    """A finished (or aborted) game's result as the players' pages give it, through the
    presenters ("游戏结束：平民阵营获胜。获胜者：……"); "" while it runs."""
    if not game.outcome or game.ruleset not in rulesets.names():
        return ""
    if names is None:
        names = selectors.seat_names(game)
    return plain(outcome_text(game.ruleset, game.outcome, names))


def named(rows, names: dict[int, str]) -> list:
    """Rows of a seat (warnings, leave, replacements), each given `who`: its seat as a
    sentence names it ("3号阿狗")."""
    rows = list(rows)
    for row in rows:
        row.who = who(names, row.seat.number)
    return rows


def seat_rows(game: Game, names: dict[int, str]) -> list[dict]:
    """Per seat (1-based number, display name): alive, and what it still owes this phase."""
    duties = selectors.seat_duties(game)
    alive = selectors.living_seats(game)
    if alive is None:
        alive = set(names)
    return [{"number": n + 1, "name": name, "seat": who(names, n), "alive": n in alive,
             "owes": gm_steps.owed_texts(duties[n]) if n in duties else []}
            for n, name in sorted(names.items())]


def everyone_acted(game: Game) -> bool:
    """A running phase whose seats owe nothing more (the engine awaits nobody): with early
    ends off (seed 002 §5.7, the GM's choice) the console offers to end it now."""
    return (game.status == Game.Status.RUNNING and bool(game.phase_name)
            and selectors.living_seats(game) is not None and not selectors.seat_duties(game))


def manifesto_rows(game: Game, names: dict[int, str]) -> list[dict]:
    """The night's manifestos for review (selectors.manifestos_for_review), with the
    author, card and target as the console names them."""
    rows = []
    for m in selectors.manifestos_for_review(game):
        target = m["target"]
        rows.append({**m, "number": m["seat"] + 1, "author": names.get(m["seat"], ""),
                     "who": who(names, m["seat"]),
                     "card_name": param_label(game.ruleset, "card", m["card"], names),
                     "target_name": "" if target is None else who(names, target)})
    return rows


def step_rows(game: Game, names: dict[int, str]) -> list[dict]:
    """This phase's accepted steps, each as a sentence with its actor's seat and name."""
    if not game.current_phase_id:
        return []
    rows = []
    for a in Action.objects.filter(game=game, phase=game.current_phase).exclude(
            actor="clock").order_by("seq"):
        actor = (who(names, int(a.actor)) if a.actor.isdigit()
                 else _("GM") if a.actor == GM else a.actor)
        rows.append({"seq": a.seq, "actor": actor, "created": a.created,
                     "text": rendered(describe(game.ruleset, {"kind": a.kind, "data": a.params},
                                               names))})
    return rows


def event_rows(game: Game, events: list[dict], names: dict[int, str]) -> list[dict]:
    """Events as sentences in the viewer's language, each with the engine's `because` chain
    in that language too, unless the sentence already holds it (no explanation twice). A
    GM's own log entry is its sentence alone (its chain only names the act again)."""
    known = game.ruleset in rulesets.names()
    rows = []
    for e in events:
        visibility = e.get("visibility") or {}
        text = gm_steps.gm_log_text(e, names, game.ruleset)
        gm_entry = text is not None
        if text is None:
            text = describe(game.ruleset, e, names) if known else e["kind"]
        rows.append({
            "text": rendered(text),
            "public": visibility.get("public", False),
            "to": labels.audience_text(False, visibility.get("seats") or [], names)
            if visibility.get("seats") else "",
            "because": [] if gm_entry else (
                explanation(game.ruleset, e, text, names) if known
                else [str(b) for b in e.get("because") or []]),
            "seq": e.get("seq")})
    return rows


def watch_request_rows(game: Game) -> list[dict]:
    """The outsiders waiting for the GM's answer to watch `game` (Watcher rows not approved),
    oldest first, each with what the GM weighs: any account may be a living player's second
    one, so its name, when it joined, how many games it has played to the end (seats held in
    finished games) and the games it plays or is signed up for now (all public facts)."""
    live = (Game.Status.RUNNING, Game.Status.PAUSED)
    rows = []
    for watcher in Watcher.objects.filter(game=game, approved_at=None).select_related(
            "user__profile").order_by("since", "pk"):
        user = watcher.user
        seats = Seat.objects.filter(user=user)
        rows.append({
            "pk": watcher.pk, "user_id": user.pk, "name": display_name(user),
            "joined": user.date_joined, "asked": watcher.since,
            "played": seats.filter(game__status=Game.Status.FINISHED)
            .values("game").distinct().count(),
            "playing": list(Game.objects.filter(pk__in=seats.filter(game__status__in=live)
                                                .values("game")).order_by("pk")
                            .values_list("name", flat=True)),
            "signed_up": list(Game.objects.filter(pk__in=Signup.objects.filter(
                user=user, withdrawn_at=None).values("game")).exclude(
                status__in=(Game.Status.FINISHED, Game.Status.ABORTED, *live))
                .order_by("pk").values_list("name", flat=True)),
        })
    return rows


def watcher_rows(game: Game, names: dict[int, str]) -> list[dict]:
    """Who watches `game` (approved): a dead player by their seat, an outsider by name, and
    since when they read its secrets."""
    rows = []
    for watcher in Watcher.objects.filter(game=game).exclude(approved_at=None).select_related(
            "user__profile", "seat").order_by("approved_at", "pk"):
        seat = watcher.seat
        rows.append({"who": who(names, seat.number) if seat is not None
                     else display_name(watcher.user),
                     "dead_seat": seat is not None, "since": watcher.approved_at})
    return rows


def governed_game_or_404(request, pk) -> Game:
    """The game, if the requesting user runs it (`selectors.is_gm`); a 404 for everyone
    else: another game's GM, a staff user seated in it, a superuser who is not its GM."""
    game = get_object_or_404(Game, pk=pk)
    if not selectors.is_gm(request.user, game):
        raise Http404
    return game


# --- the console's commands: (game, gm, POST data) -> None when done, or a form problem ----

def _start(game, gm, post):
    form = StartForm(post, game=game)
    if not form.is_valid():
        return _("Choose a player for every seat.")
    services.start_game(game_id=game.pk, users=form.users(),
                        seed=form.cleaned_data["seed"] or None)
    return None


def _manifesto_digest(post) -> str:
    digest = post.get("digest", "")
    if not (isinstance(digest, str) and len(digest) == 64 and digest.isascii()
            and all(c in "0123456789abcdef" for c in digest)):
        raise services.GameError(_("That manifesto is no longer waiting for review (its "
                                   "author changed or withdrew it, or it was rejected); "
                                   "look again."))
    return digest


def _approve_manifesto(game, gm, post):
    services.approve_manifesto(game_id=game.pk, gm=gm, seat=_seat_index(post),
                               digest=_manifesto_digest(post))


def _reject_manifesto(game, gm, post):
    services.reject_manifesto(game_id=game.pk, gm=gm, seat=_seat_index(post),
                              digest=_manifesto_digest(post), reason=post.get("reason", ""))


def _extend(game, gm, post):
    services.extend_deadline(game_id=game.pk, gm=gm,
                             minutes=parse_int(post.get("minutes"), field="minutes",
                                               default=-1))


def _publish(game, gm, post):
    ann = get_object_or_404(Announcement, pk=parse_int(post.get("announcement"), field="announcement", default=0),
                            game=game)
    services.publish_announcement(announcement_id=ann.pk, story=post.get("story", ""), gm=gm)


def _substitute(game, gm, post):
    services.start_substitution(game_id=game.pk, gm=gm, seat_number=_seat_index(post),
                                reason=post.get("reason", ""))


def _cancel_substitution(game, gm, post):
    sub = get_object_or_404(game.substitutions, pk=parse_int(post.get("substitution"),
                                                                field="substitution",
                                                                default=0))
    services.cancel_substitution(substitution_id=sub.pk, gm=gm)


def _foul_out(game, gm, post):
    services.gm_step(game_id=game.pk, gm=gm, kind="foul_out",
                     params={"seat": _seat_index(post),
                             "reason": post.get("reason", "") or "§9.1"})


def _pause(game, gm, post):
    services.pause_game(game_id=game.pk, gm=gm)


def _resume(game, gm, post):
    services.resume_game(game_id=game.pk, gm=gm)


def _end_phase(game, gm, post):
    """The consequences dialog's confirm button posts the version it showed: a phase that
    moved on meanwhile (the sweeper, a co-GM) is not ended a second time."""
    seen = parse_int(post.get("version"), field="version", default=None)
    if seen is not None and seen != game.version:
        return _("The phase has changed since you looked; check what ending it now does.")
    # "wait" or "skip" when an inner phase is due (the service refuses anything else).
    services.end_phase_now(game_id=game.pk, gm=gm, inner=post.get("inner") or None)
    return None


def _open_signups(game, gm, post):
    services.open_signups(game_id=game.pk, gm=gm, note=post.get("note", ""))


def _draw(game, gm, post):
    services.draw_players(game_id=game.pk, gm=gm, seed=post.get("seed") or None)


def _start_signups(game, gm, post):
    services.start_from_signups(game_id=game.pk, gm=gm)


def _conversation_of(game, post):
    """One of this game's conversations with 神的使者, by the posted id (else a 404)."""
    pk = parse_int(post.get("conversation"), field="conversation", default=0)
    return get_object_or_404(Conversation, pk=pk, board_id=game.board_id or -1)


def _mark_handled(game, gm, post):
    forum.mark_read_by_staff(conversation=_conversation_of(game, post))


def _answer(game, gm, post):
    conversation = _conversation_of(game, post)
    try:
        forum.answer_as_messenger(conversation=conversation, staff=gm,
                                  body=post.get("body", ""))
    except forum.PostingRefused as refused:
        return refused.message
    return None


def _report_handled(game, gm, post):
    """A report (举报) on this game's boards read and dealt with: it leaves the console's
    list. Another game's report, or one already handled, is a 404 (nothing changes)."""
    pk = parse_int(post.get("report"), field="report", default=0)
    if pk not in {report.pk for report in selectors.gm_reports(game)}:
        raise Http404
    keeping.mark_handled(user=gm, report_ids=[pk])


def _watch_request(post) -> int:
    return parse_int(post.get("watcher"), field="watcher", minimum=0, default=0)


def _approve_watcher(game, gm, post):
    """An outsider's request to watch, approved (services.answer_watch_request refuses one
    of another game, one already answered, and whoever does not run the game)."""
    services.answer_watch_request(game_id=game.pk, gm=gm, watcher_id=_watch_request(post),
                                  approve=True)


def _refuse_watcher(game, gm, post):
    services.answer_watch_request(game_id=game.pk, gm=gm, watcher_id=_watch_request(post),
                                  approve=False)


def _abort(game, gm, post):
    services.abort_game(game_id=game.pk, gm=gm, reason=post.get("reason", ""))


COMMANDS = {
    "start": _start, "pause": _pause, "resume": _resume, "extend": _extend,
    "end_phase": _end_phase, "publish": _publish,
    "open_signups": _open_signups, "draw": _draw, "start_signups": _start_signups,
    "substitute": _substitute, "cancel_substitution": _cancel_substitution,
    "foul_out": _foul_out, "abort": _abort,
    "mark_handled": _mark_handled, "answer": _answer, "report_handled": _report_handled,
    "approve_manifesto": _approve_manifesto, "reject_manifesto": _reject_manifesto,
    "approve_watcher": _approve_watcher, "refuse_watcher": _refuse_watcher,
}


def _seat_index(post) -> int:
    """The engine's seat index from a form's 1-based "seat" field (refused if not a number)."""
    number = parse_int(post.get("seat"), field="seat", maximum=10_000, default=None)
    if number is None or number < 1:
        raise services.GameError(_("Give a seat number."))
    return number - 1


def _winrates_refused(reasons: list[str]) -> JsonResponse:
    return JsonResponse({"status": "invalid", "errors": reasons,
                         "text": _("No win rates for this setup: %(reasons)s")
                         % {"reasons": " ".join(reasons)}}, status=400)


def _winrates_answer(ruleset: str, found: dict) -> dict:
    """services.winrates.estimate's answer as the form's poll reads it (winrates_view)."""
    status = found["status"]
    if status == "ready":
        figures = found["figures"]
        return {"status": "ready", "games": figures["games"], "camps": [
            {"camp": _camp_name(ruleset, c), "share": r[0], "low": r[1], "high": r[2]}
            for c, r in figures["camps"].items() if r[0] > 0 or c != "unfinished"]}
    if status == "queued":
        return {"status": "pending", "stage": "queued", "waited": found["waited"],
                "text": _("Queued %(seconds)d s ago: waiting for a worker of the slow "
                          "queue.") % {"seconds": found["waited"]}}
    if status == "running":
        text = _("Simulating: %(done)d of %(games)d games") % found
        if found["eta"] is not None:
            text += _(", about %(seconds)d s left") % {"seconds": found["eta"]}
        return {"status": "pending", "stage": "running", "done": found["done"],
                "games": found["games"], "eta": found["eta"], "text": text + "…"}
    if status == "failed":
        return {"status": "failed", "error": found["error"],
                "text": _("The simulation failed (%(error)s). Change the setup or reload "
                          "the page to try again.") % {"error": found["error"]}}
    if status == "unavailable":
        return {"status": "unavailable",
                "text": _("The win rates cannot be worked out now (the cache or the task "
                          "queue is unavailable); the form asks again shortly.")}
    return {"status": "none"}
