"""The 天神 console: every GM power as an admin page or button, all through services.

GameAdmin is the Game model's admin and the console: the console page (`console`) and one
POST endpoint per command (`command`), each command a small function in COMMANDS. The Game
change form itself saves the Game row directly (Django's ModelAdmin.save_model), not
through a service.
"""

from __future__ import annotations

import json

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from config.inputs import InputError, check_param_keys, parse_int, parse_json

from .. import rulesets, selectors, services
from ..engine.base import GM
from ..models import Action, Announcement, Event, Game
from ..presenters import describe
from ..services import winrates
from . import rollback
from .forms import GameSettingsForm, RunningGameForm


def _camp_name(ruleset: str, camp: str) -> str:
    return {"civilian": _("civilians"), "killer": _("killers"), "wolf": _("wolves"),
            "draw": _("draw"), "unfinished": _("unfinished"), "police": _("police"),
            "bandit": _("bandits")}.get(camp, camp)


def _started(game: Game) -> bool:
    return game.status not in (Game.Status.DRAFT, Game.Status.SIGNUP)


class StartForm(forms.Form):
    def __init__(self, *args, game: Game, **kwargs):
        super().__init__(*args, **kwargs)
        users = get_user_model().objects.filter(is_active=True, profile__isnull=False).order_by(
            "profile__display_name")
        for i in range(game.seat_count):
            self.fields[f"seat_{i}"] = forms.ModelChoiceField(
                users, label=_("Seat %(n)d") % {"n": i + 1})
        self.fields["seed"] = forms.CharField(
            required=False, max_length=64,
            help_text=gettext_lazy("Leave empty for a fresh secret seed."))

    def users(self):
        return [self.cleaned_data[f"seat_{i}"] for i in range(len(self.fields) - 1)]


class StepForm(forms.Form):
    kind = forms.CharField(max_length=40)
    params = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), initial="{}",
                             help_text=gettext_lazy('JSON, e.g. {"seat": 2, "card": "SNIPER"}'))

    def clean_params(self):
        try:
            value = parse_json(self.cleaned_data["params"] or "{}", field="params")
            if not isinstance(value, dict):
                raise forms.ValidationError(_("Give a JSON object."))
            check_param_keys(value, field="params")
        except InputError as refused:
            raise forms.ValidationError(refused.message) from None
        return value


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ["name", "ruleset", "status", "phase_display", "deadline", "seat_count",
                    "gm", "created"]
    list_filter = ["status", "ruleset"]
    search_fields = ["name"]
    raw_id_fields = ["board", "gm"]
    readonly_fields = ["status", "phase_name", "phase_number", "deadline", "commitment",
                       "started_at", "finished_at", "console_link"]
    fields = ["name", "ruleset", "seat_count", "gm", "config", "durations",
              "change_cutoff_minutes", "early_end", "hold_announcements", "board",
              "console_link", "status", "phase_name", "phase_number", "deadline",
              "commitment", "started_at", "finished_at"]

    @admin.display(description=gettext_lazy("phase"))
    def phase_display(self, game):
        return f"{game.phase_name} {game.phase_number}" if game.phase_name else "—"

    @admin.display(description=gettext_lazy("console"))
    def console_link(self, game):
        if not game.pk:
            return "—"
        return format_html('<a href="{}">{}</a>', reverse("admin:games_game_console",
                                                          args=[game.pk]), _("Open the console"))

    class Media:
        js = ["admin/games/game_form.js"]

    # -- the add/change form: typed settings (games/admin/forms.py), saved by services --
    SETUP_FIELDS = ["name", "ruleset", "seat_count", "gm", "early_end", "hold_announcements",
                    "change_cutoff_minutes"]

    def get_fields(self, request, obj=None):
        if obj is None:
            return None  # the settings form's own fields, in its order
        if _started(obj):
            return list(services.RUNNING_SETTINGS) + [
                "ruleset", "seat_count", "config", "durations", "change_cutoff_minutes",
                "seat_list", "board", "console_link", "status", "phase_name", "phase_number", "deadline",
                "commitment", "started_at", "finished_at"]
        return None

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        if _started(obj):
            return ["ruleset", "seat_count", "config", "durations", "change_cutoff_minutes",
                    "seat_list", "board", *self.readonly_fields]
        return list(self.readonly_fields)

    def get_fieldsets(self, request, obj=None):
        if obj is not None and _started(obj):
            return [(None, {"fields": self.get_fields(request, obj)})]
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
                if base is GameSettingsForm:
                    kw.setdefault("user", user)
                super().__init__(*args, **kw)

        Form.__name__ = base.__name__
        return Form

    @admin.display(description=gettext_lazy("seats"))
    def seat_list(self, game):
        """A started game's seats, read-only (a seat changes hands by a substitution)."""
        names = selectors.seat_names(game)
        return format_html_join(", ", "{}. {}", ((n + 1, name) for n, name in
                                                 sorted(names.items()))) or "—"

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
            path("<int:pk>/console/", self.admin_site.admin_view(self.console),
                 name="games_game_console"),
            path("<int:pk>/console/<str:command>/", self.admin_site.admin_view(self.command),
                 name="games_game_command"),
            *rollback.urls(self.admin_site),
        ]
        return urls + super().get_urls()

    def winrates_view(self, request):
        """JSON for the form's poll (staff only, GET): the setup's win rates per camp, or
        "pending" while the task computes them, or "none" for a rule set without camps."""
        if not request.user.is_staff:
            return JsonResponse({"status": "forbidden"}, status=403)
        game_id = request.GET.get("game", "")
        if game_id.isascii() and game_id.isdigit() and len(game_id) < 12:  # a saved game
            game = get_object_or_404(Game, pk=int(game_id))
            setup = {"ruleset": game.ruleset, "seat_count": game.seat_count,
                     "config": game.config}
        else:
            form = GameSettingsForm(data={**request.GET.dict(), "name": "-",
                                          "gm": request.user.pk})
            if not form.is_valid():
                return JsonResponse({"status": "invalid"}, status=400)
            setup = form.settings_kwargs
        figures = winrates.request(ruleset=setup["ruleset"], seats=setup["seat_count"],
                                   config=setup["config"])
        if not winrates.supported(setup["ruleset"]):
            return JsonResponse({"status": "none"})
        if figures is None:
            return JsonResponse({"status": "pending", "text": _("Calculating…")})
        names = {camp: _camp_name(setup["ruleset"], camp) for camp in figures["camps"]}
        return JsonResponse({"status": "ready", "games": figures["games"], "camps": [
            {"camp": names[c], "share": r[0], "low": r[1], "high": r[2]}
            for c, r in figures["camps"].items() if r[0] > 0 or c != "unfinished"]})

    # -- the console page --
    def console(self, request, pk):
        game = governed_game_or_404(request, pk)
        names = selectors.seat_names(game)
        engine = rulesets.engine(game.ruleset) if game.ruleset in rulesets.names() else None
        gm_view = engine.view(game.state, GM) if engine and game.state else None
        awaiting = sorted(engine.phase(game.state).awaiting) if gm_view else []
        pending = Action.objects.filter(game=game, phase=game.current_phase).exclude(
            actor="clock").order_by("seq") if game.current_phase_id else []
        preview = [(e, describe(game.ruleset, e, names)) for e in selectors.preview_end_phase(game)]
        context = {
            **self.admin_site.each_context(request), "title": _("Console: %(name)s") % {
                "name": game.name}, "game": game, "opts": self.model._meta,
            "names": names, "awaiting": [(n + 1, names.get(n)) for n in awaiting],
            "acted": [(n + 1, name) for n, name in sorted(names.items()) if n not in awaiting],
            "pending": pending, "preview": preview,
            "gm_view": json.dumps(gm_view, ensure_ascii=False, indent=1) if gm_view else "",
            "drafts": game.announcements.filter(published_at=None),
            "start_form": StartForm(game=game) if game.status in ("draft", "signup") else None,
            "step_form": StepForm(),
            "gm_choices": engine.legal_actions(game.state, GM) if gm_view else [],
            "events": Event.objects.filter(game=game).order_by("-id")[:200],
            "signups": game.signups.filter(withdrawn_at=None).select_related("user__profile"),
            "substitutions": game.substitutions.select_related("seat", "outgoing__profile",
                                                               "incoming__profile")[:50],
            "warnings": selectors.open_warnings(game),
            "leaves": game.leaves.select_related("seat", "user__profile")[:50],
            "can_foul_out": any(c.kind == "foul_out" for c in (
                engine.legal_actions(game.state, GM) if gm_view else [])),
        }
        return TemplateResponse(request, "admin/games/console.html", context)

    def command(self, request, pk, command):
        """One console button (POST): run its command; say what came of it."""
        game = governed_game_or_404(request, pk)
        back = redirect("admin:games_game_console", pk=game.pk)
        if request.method != "POST":
            return back
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


def _extend(game, gm, post):
    services.extend_deadline(game_id=game.pk, gm=gm,
                             minutes=parse_int(post.get("minutes"), field="minutes",
                                               default=-1))


def _step(game, gm, post):
    form = StepForm(post)
    if not form.is_valid():
        return "; ".join(str(e) for errs in form.errors.values() for e in errs)
    services.gm_step(game_id=game.pk, gm=gm, kind=form.cleaned_data["kind"],
                     params=form.cleaned_data["params"])
    return None


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
    services.end_phase_now(game_id=game.pk, gm=gm)


def _open_signups(game, gm, post):
    services.open_signups(game_id=game.pk, gm=gm, note=post.get("note", ""))


def _draw(game, gm, post):
    services.draw_players(game_id=game.pk, gm=gm, seed=post.get("seed") or None)


def _start_signups(game, gm, post):
    services.start_from_signups(game_id=game.pk, gm=gm)


def _abort(game, gm, post):
    services.abort_game(game_id=game.pk, gm=gm, reason=post.get("reason", ""))


COMMANDS = {
    "start": _start, "pause": _pause, "resume": _resume, "extend": _extend,
    "end_phase": _end_phase, "step": _step, "publish": _publish,
    "open_signups": _open_signups, "draw": _draw, "start_signups": _start_signups,
    "substitute": _substitute, "cancel_substitution": _cancel_substitution,
    "foul_out": _foul_out, "abort": _abort,
}


def _seat_index(post) -> int:
    """The engine's seat index from a form's 1-based "seat" field (refused if not a number)."""
    number = parse_int(post.get("seat"), field="seat", maximum=10_000, default=None)
    if number is None or number < 1:
        raise services.GameError(_("Give a seat number."))
    return number - 1
