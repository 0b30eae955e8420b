"""The 天神's undo in the admin: what can be rolled back, a confirm page that says exactly
what will be undone, and the POST that does it (games/services/rollback.py).

GET  /admin/games/game/<pk>/rollback/                     the choices
GET  /admin/games/game/<pk>/rollback/?kind=phase_end      the confirm page of a phase end
GET  /admin/games/game/<pk>/rollback/?kind=step&seat=3    ... of seat 3's last step (1-based)
POST the same URL with the confirm form                   roll back (or a readable refusal)

Only the game's GM (`selectors.is_gm`) sees any of it; anyone else gets a 404, like the
console. The form carries the game's version, the step the page named and the step count,
so a page shown before the game moved on is refused, never carried out.
"""

from __future__ import annotations

import datetime as dt

from django import forms
from django.contrib import messages
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from config.inputs import validate_date_range
from messaging.models import Thread

from .. import selectors, services
from ..models import Game, OutboxEmail
from ..presenters import describe, who
from .text import rendered

DATETIME_LOCAL = "%Y-%m-%dT%H:%M"


class RollbackForm(forms.Form):
    """The confirm form: what the page showed (hidden) and the new deadline (typed)."""

    kind = forms.ChoiceField(choices=[("phase_end", "phase_end"), ("step", "step")],
                             widget=forms.HiddenInput)
    seat = forms.IntegerField(required=False, min_value=1, max_value=1000,
                              widget=forms.HiddenInput)
    version = forms.IntegerField(min_value=0, max_value=2**31, widget=forms.HiddenInput)
    target = forms.IntegerField(min_value=0, max_value=2**31, widget=forms.HiddenInput)
    steps = forms.IntegerField(min_value=0, max_value=2**31, widget=forms.HiddenInput)
    deadline = forms.DateTimeField(
        label=gettext_lazy("New deadline"), input_formats=[DATETIME_LOCAL, "%Y-%m-%d %H:%M"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format=DATETIME_LOCAL),
        validators=[validate_date_range],
        help_text=gettext_lazy("In your time zone; it must be in the future."))

    def clean_deadline(self):
        value = self.cleaned_data["deadline"]
        if value <= timezone.now():
            raise forms.ValidationError(_("The new deadline must be in the future."))
        return value

    def clean(self):
        data = super().clean()
        if data.get("kind") == "step" and data.get("seat") is None:
            raise forms.ValidationError(_("Choose the seat whose step is undone."))
        return data


def _game_or_404(request, pk) -> Game:
    game = get_object_or_404(Game, pk=pk)
    if not selectors.is_gm(request.user, game):
        raise Http404
    return game


def _default_deadline(game: Game, plan) -> dt.datetime:
    """The phase's own length from now, or the current deadline if it is later (a step)."""
    now = timezone.now()
    fresh = now + dt.timedelta(minutes=game.minutes_for(plan.phase.name))
    if plan.kind == "step" and game.deadline and game.deadline > now:
        return game.deadline
    return fresh


def _describe_plan(game: Game, plan) -> dict:
    """Every line the confirm page shows, in the viewer's language."""
    names = selectors.seat_names(game)

    def step_text(a) -> str:
        if a.actor == "clock":
            return _("the end of %(phase)s") % {"phase": _phase_title(game, a.phase)}
        by = _("the GM") if a.actor == "gm" else who(names, int(a.actor))
        what = describe(game.ruleset, {"kind": a.kind, "data": a.params,
                                       "visibility": {"public": False, "seats": []}}, names)
        return format_html("{}: {}", by, rendered(what))

    summary = plan.summary(names)
    return {
        "steps": [(a.seq, step_text(a)) for a in plan.removed],
        "events": [format_html("{}{}", rendered(describe(game.ruleset, e.as_engine_event(),
                                                         names)),
                               "" if e.public else " (" + _("private") + ")")
                   for e in plan.events_removed],
        "announcements": plan.announcements,
        "votes": [(who(names, v.voter.number),
                   who(names, v.target.number) if v.target else _("abstained"))
                  for v in plan.votes],
        "dropped": [_phase_title(game, p) for p in plan.dropped_phases],
        "phase": _phase_title(game, plan.phase),
        "threads": list(Thread.objects.filter(
            board_id=game.board_id, key__in=[f"vote-{p.seq}" for p in plan.dropped_phases])
            .values_list("title", flat=True)) if game.board_id else [],
        "emails": _emails_of(plan),
        **summary,
        # the seats as a sentence names them ("3号阿狗"), not the summary's (number, name)
        "messages": [(who(names, n - 1), count) for n, _name, count in summary["messages"]],
        "revived": [who(names, n - 1) for n, _name in summary["revived"]],
        "fallen": [who(names, n - 1) for n, _name in summary["fallen"]],
    }


def _emails_of(plan) -> dict:
    """How many emails about what is withdrawn were sent (each address is sent a
    "withdrawn" email) and how many wait in the outbox (they are cancelled)."""
    about = [f"announcement:{a.pk}" for a in plan.announcements]
    about += [f"message:{link.message_id}" for link in plan.messages]
    rows = OutboxEmail.objects.filter(about__in=about, failed_at=None) if about else \
        OutboxEmail.objects.none()
    return {"sent": rows.exclude(sent_at=None).count(), "waiting": rows.filter(
        sent_at=None).count()}


def _phase_title(game: Game, phase) -> str:
    return selectors.phase_title(game, phase)


def rollback_view(request, pk, admin_site=None):
    """The choices (GET without kind), the confirm page (GET with kind) and the POST."""
    game = _game_or_404(request, pk)
    source = request.POST if request.method == "POST" else request.GET
    kind = source.get("kind", "")
    seat_text = source.get("seat", "")
    seat = int(seat_text) if seat_text.isascii() and seat_text.isdigit() and \
        len(seat_text) < 5 else None
    context = {**(admin_site.each_context(request) if admin_site else {}),
               "game": game, "opts": Game._meta,
               "title": _("Undo: %(name)s") % {"name": game.name}}
    if request.method != "POST" and kind not in ("phase_end", "step"):
        return _choices(request, game, context)
    plan = selectors.rollback_plan(game, kind, seat - 1 if seat else None) \
        if kind in ("phase_end", "step") else _("Unknown kind of rollback.")
    status, error, form = 200, "", None
    if request.method == "POST":
        form = RollbackForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                services.rollback(
                    game_id=game.pk, gm=request.user, kind=data["kind"],
                    seat_number=data["seat"] - 1 if data["seat"] else None,
                    deadline=data["deadline"], expected_version=data["version"],
                    expected_target=data["target"], expected_steps=data["steps"])
            except services.GameError as refused:
                error = refused.message
                status = {"forbidden": 403, "stale": 409}.get(refused.code, 400)
                form = None  # a fresh form below, from the game as it is now
            else:
                messages.success(request, _("Rolled back. The phase is open until the new "
                                            "deadline."))
                return redirect("admin:games_game_console", pk=game.pk)
        else:
            status = 400
    if isinstance(plan, str):
        context.update({"refusal": plan, "error": error if error != plan else ""})
        return TemplateResponse(request, "admin/games/game/rollback.html", context,
                                status=status if status != 200 else 400)
    if form is None:
        posted = request.POST.get("deadline", "") if request.method == "POST" else ""
        form = RollbackForm(initial={
            "kind": kind, "seat": seat, "version": game.version, "target": plan.target,
            "steps": game.steps,
            "deadline": posted or timezone.localtime(_default_deadline(game, plan))})
    context.update({"plan": plan, "form": form, "what": _describe_plan(game, plan),
                    "kind": kind, "seat_label": seat, "error": error})
    return TemplateResponse(request, "admin/games/game/rollback.html", context, status=status)


def _choices(request, game: Game, context: dict):
    options = selectors.undoable(game)
    names = selectors.seat_names(game)
    end = options["phase_end"]
    context.update({
        "choices": True,
        "phase_end": None if isinstance(end, str) else _phase_title(game, end.removed[0].phase),
        "phase_end_refusal": end if isinstance(end, str) else "",
        "seat_steps": [(n + 1, who(names, n), plan if isinstance(plan, str) else "")
                       for n, plan in options["steps"]],
        "history": [(r, _phase_title(game, r.phase), len(r.steps)) for r in game.rollbacks
                    .select_related("gm__profile", "phase").order_by("-id")[:20]],
    })
    return TemplateResponse(request, "admin/games/game/rollback.html", context)


def urls(admin_site) -> list:
    """The undo page's URL, for GameAdmin.get_urls (games/admin/console.py)."""
    from django.urls import path

    def view(request, pk):
        return rollback_view(request, pk, admin_site=admin_site)

    return [path("<id:pk>/rollback/", admin_site.admin_view(view),
                 name="games_game_rollback")]
