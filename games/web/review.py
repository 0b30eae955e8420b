"""The post-game review (复盘) and the event log as JSON.

Pages:
- `/games/<id>/review/`: after the end, everything the game hid: every seat's private part and
  the GM's secrets as the engine's GM view gives them, the deal commitment recomputed, and
  the whole timeline phase by phase (every event with who saw it and its `because` chain in
  the reader's language, and the steps of the replay log). Before the end it does not exist
  for players, outsiders and visitors (404, so it does not even confirm that there is
  something to hide); staff may preview it.
- `/games/<id>/review/seat/<n>/`: what one seat knew: its "my hand" panel (the rule set's
  panel template over `view(state, seat)`), the private entries of its view's log, phase by
  phase, and the steps it took. Same access rule.
- `/games/<id>/events.json`: the event log (games/web/events_export.py; its fields:
  docs/events-json.md), seats numbered from 1 as on the pages, each event with its sentence
  in the reader's language. After the end: every event, plus the setup and the steps, so
  anyone can replay the game with `games.engine.base.replay`. Before the end: only the
  events the requesting viewer may see (`selectors.events_visible_to`), no setup and no
  steps.

Long timelines are paginated by phases (PHASES_PER_PAGE phases a page); each phase is a
collapsible section.

Everything here reads; nothing writes. State is read only through the selectors' views
(`selectors.gm_view`, `selectors.seat_view`: the engine's `view`).
"""

from __future__ import annotations

import json

from django.core.paginator import Paginator
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import get_template
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from messaging.rendering import render_markdown

from .. import rulesets, selectors
from ..engine.base import GM, Choice
from ..models import Action, Event, Game, Seat
from ..presenters import (
    choice_label,
    describe,
    explanation,
    phase_names,
    review_facts,
    review_intro,
    review_secret,
    seat_facts,
    seat_name,
    told_privately,
)
from ..presenters.deal import deal_rows, headings
from ..presenters.gm_log import gm_log_text
from ..selectors import commitment_check, phase_titles, seat_holders
from .events_export import event_json, outcome_json

PHASES_PER_PAGE = 10
# A step's free text (a manifesto...) is shown whole in the review, but a runaway parameter
# should not blow up the page.
MAX_PARAM_CHARS = 2_000
# A step's own words, quoted after its label (the label names the step, not its text).
TEXT_PARAMS = ("manifesto", "story", "text", "speech", "last_words", "words", "reason")


# --- access ------------------------------------------------------------------------------

def reviewable_game(pk, user) -> Game:
    """The game if `user` may see its review, else Http404 (`review_shown`)."""
    game = get_object_or_404(Game.objects.select_related("current_phase", "board"), pk=pk)
    if not review_shown(game, user):
        raise Http404
    return game


def review_shown(game: Game, user) -> bool:
    """Whether `user` may see `game`'s review, and what it reveals (the deal on the
    commitment page too):

    1. A draft game does not exist for anyone but its GM.
    2. A game that is not over has no review, except as a preview for its GM (`is_gm`: never
       a staff user who holds or held a seat in it).
    """
    return game.is_over or selectors.is_gm(user, game)


def deal_table(game: Game, gm_view: dict | None, names: dict[int, str]) -> dict:
    """The deal as the review's table shows it (`deal`, `deal_headings`), for the review
    and the commitment page. Precondition: `review_shown`."""
    return {"deal": deal_rows(game.ruleset, gm_view, names),
            "deal_headings": headings(game.ruleset)}


# --- small readers -----------------------------------------------------------------------

def markdown(text: str) -> str:
    return mark_safe(render_markdown(text))  # noqa: S308 - sanitized by the forum's renderer


def value_text(value, names: dict[int, str], key: str = "") -> str:
    """One fact of the engine's data, for people: seat numbers as names when the key says it
    is a seat, lists joined, anything nested as compact JSON."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int) and (key in ("seat", "target", "voter", "victim", "by")
                                   or key.endswith("_seat")):
        return seat_name(names, value)
    if isinstance(value, str):
        return value if len(value) <= MAX_PARAM_CHARS else value[:MAX_PARAM_CHARS] + " …"
    if isinstance(value, list) and all(isinstance(v, str | int) and not isinstance(v, bool)
                                       for v in value):
        if key.endswith("seats"):
            return ", ".join(seat_name(names, v) for v in value)
        return " → ".join(str(v) for v in value) if key.endswith("order") else ", ".join(
            str(v) for v in value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def facts(data, names: dict[int, str]) -> list[tuple[str, str]]:
    """(key, text) rows of a dict of engine data (a seat's private part, the GM's secrets)."""
    if not isinstance(data, dict):
        return [("", value_text(data, names))]
    return [(str(k), value_text(v, names, str(k))) for k, v in data.items()]


def seat_review_facts(game: Game, private, number: int, names) -> list[tuple[str, str]]:
    """A seat's private part as the rule set's presenter writes it for people; a rule set
    without one (a test's toy) gets the data's own keys."""
    rows = review_facts(game.ruleset, private, number, names)
    return rows if rows is not None else facts(private, names)


def secret_facts(game: Game, secret, names) -> list[tuple[str, str]]:
    rows = review_secret(game.ruleset, secret, names)
    return rows if rows is not None else facts(secret, names)


def audience_text(public: bool, seats: list[int], names: dict[int, str]) -> str:
    if public:
        return _("everyone")
    if not seats:
        return _("the GM only")
    return ", ".join(seat_name(names, s) for s in seats)


def event_row(game: Game, event: dict, names: dict[int, str], *, addressed: bool = False) -> dict:
    """An engine event (or a GM act) for the timeline: its sentence, who saw it and why it
    happened, each in the reader's language. The chain is listed apart unless the rule set's
    sentence already holds it (a GM note that is its chain).

    `addressed`: a timeline anyone reads (the review, the watch page). A private event's
    sentence speaks to its seats as 神的使者 told them ("你的身份：警。"), so it is headed with
    whom it was told to ("私下告知1号阿猫：") and reads right to every reader."""
    # A GM's own log entry is a sentence naming the GM and the act, never its key.
    text = gm_log_text(event, names, game.ruleset) or describe(game.ruleset, event, names)
    heading = told_privately(event, names) if addressed else ""
    if heading:
        text = f"**{heading}**\n\n{text}"
    vis = event.get("visibility") or {"public": False, "seats": []}
    return {"seq": event.get("seq"), "kind": event.get("kind", ""), "html": markdown(text),
            "public": bool(vis.get("public")), "gm_only": not vis.get("public") and not vis.get(
                "seats"), "audience": audience_text(bool(vis.get("public")),
                                                    list(vis.get("seats") or []), names),
            "because": explanation(game.ruleset, event, text, names)}


def step_row(action: Action, names: dict[int, str], ruleset: str = "") -> dict:
    """A step of the replay log: who took it, and what, as the action form labelled it (the
    rule set's presenter, in the reader's language); `kind` and `params` stay for the data."""
    if action.actor.isdigit():
        who = seat_name(names, int(action.actor))
    elif action.actor == GM:
        who = _("the GM")
    else:
        who = _("the clock")
    params = [(k, value_text(v, names, k)) for k, v in action.params.items()]
    label = ""
    if ruleset and action.actor.isdigit():
        label = choice_label(ruleset, Choice(action.kind, dict(action.params)), names)
    texts = [v for k, v in action.params.items() if k in TEXT_PARAMS and isinstance(v, str)]
    return {"seq": action.seq, "who": who, "kind": action.kind, "params": params,
            "label": label, "texts": [t[:MAX_PARAM_CHARS] for t in texts],
            "at": action.received_at or action.created}


# --- pages -------------------------------------------------------------------------------

def review(request, pk):
    """The whole game, revealed (see the module docstring for who may see it)."""
    game = reviewable_game(pk, request.user)
    names = selectors.seat_names(game)
    gm_view = selectors.gm_view(game)
    holders = seat_holders(game)
    seats = []
    for seat in game.seats.order_by("number"):
        private = (gm_view or {}).get("private") or []
        seats.append({
            "seat": seat, "number": seat.number + 1, "holders": holders.get(seat.number, []),
            "alive": seat.alive,
            "facts": seat_review_facts(game, private[seat.number], seat.number, names)
            if seat.number < len(private) else [],
            "public": seat_facts(game.ruleset, gm_view, seat.number) if gm_view else "",
        })
    phases = list(game.phases.order_by("seq"))
    page = Paginator(phases, PHASES_PER_PAGE).get_page(request.GET.get("page"))
    shown = list(page.object_list)
    events = Event.objects.filter(game=game, phase__in=shown).order_by("id")
    steps = Action.objects.filter(game=game, phase__in=shown).order_by("seq")
    titles = dict(zip([p.pk for p in phases], phase_names(game.ruleset, phases), strict=True))
    by_phase: dict[int | None, dict] = {
        p.pk: {"phase": p, "title": titles[p.pk], "events": [], "steps": []} for p in shown}
    if page.number == 1:  # what happened outside any phase (e.g. before the start)
        loose = {"phase": None, "title": _("Outside the phases"), "events": [], "steps": []}
        for e in Event.objects.filter(game=game, phase__isnull=True).order_by("id"):
            loose["events"].append(event_row(game, e.as_engine_event(), names,
                                             addressed=True))
        for a in Action.objects.filter(game=game, phase__isnull=True).order_by("seq"):
            loose["steps"].append(step_row(a, names, game.ruleset))
        if loose["events"] or loose["steps"]:
            by_phase[None] = loose
    for e in events:
        by_phase[e.phase_id]["events"].append(event_row(game, e.as_engine_event(), names,
                                                        addressed=True))
    for a in steps:
        by_phase[a.phase_id]["steps"].append(step_row(a, names, game.ruleset))
    sections = ([by_phase[None]] if None in by_phase else []) + [by_phase[p.pk] for p in shown]
    return render(request, "games/review.html", {
        "game": game, "preview": not game.is_over, "seats": seats,
        "intro": review_intro(game.ruleset),
        "secret": secret_facts(game, (gm_view or {}).get("secret", {}), names),
        "outcome": selectors.outcome_line(game, names, gm_view) if game.is_over else "",
        "commitment": commitment_check(game), "sections": sections, "page": page,
        **deal_table(game, gm_view, names),
        "event_count": Event.objects.filter(game=game).count(),
    })


def review_seat(request, pk, number: int):
    """What one seat knew: its panel, the private entries of its log, its own steps."""
    game = reviewable_game(pk, request.user)
    seat = get_object_or_404(Seat.objects.select_related("user__profile"), game=game,
                             number=number - 1)
    names = selectors.seat_names(game)
    view = selectors.seat_view(game, seat.number)
    titles = phase_titles(game)
    phase_of_seq = dict(Event.objects.filter(game=game, seq__isnull=False)
                        .values_list("seq", "phase_id"))
    told: list[dict] = []
    public_count = 0
    for entry in (view or {}).get("log", []):
        if entry.get("visibility", {}).get("public"):
            public_count += 1
            continue
        title = titles.get(phase_of_seq.get(entry.get("seq")), "")
        if not told or told[-1]["title"] != title:
            told.append({"title": title, "events": []})
        told[-1]["events"].append(event_row(game, entry, names))
    steps = [dict(step_row(a, names, game.ruleset), phase=titles.get(a.phase_id, ""))
             for a in Action.objects.filter(game=game, seat=seat).order_by("seq")]
    panel = get_template(rulesets.get(game.ruleset).panel)
    return render(request, "games/review_seat.html", {
        "game": game, "preview": not game.is_over, "seat": seat, "view": view,
        "names": names, "panel_template": panel, "told": told, "public_count": public_count,
        "phase_title": selectors.current_phase_name(game),
        "steps": steps, "holders": seat_holders(game).get(seat.number, []),
        "me": json.dumps((view or {}).get("me", {}), ensure_ascii=False, indent=1),
    })


def events_json(request, pk):
    """The event log as JSON: everything after the end; before it, what the viewer may see.

    After the end (or for the game's GM) the export also holds the setup (seats, config, seed) and
    the steps, which `games.engine.base.replay` turns back into the final state.
    """
    game = get_object_or_404(Game, pk=pk)
    gm = selectors.is_gm(request.user, game)
    if game.status == Game.Status.DRAFT and not gm:
        raise Http404
    full = game.is_over or gm
    phases = list(game.phases.order_by("seq"))
    phase_seq = {p.pk: p.seq for p in phases}
    events = selectors.events_visible_to(game, request.user).order_by("id")
    names = selectors.seat_names(game)
    out = {
        "game": {"id": game.pk, "name": game.name, "ruleset": game.ruleset,
                 "status": game.status, "seats": game.seat_count,
                 "commitment": game.commitment or None,
                 "started_at": game.started_at.isoformat() if game.started_at else None,
                 "finished_at": game.finished_at.isoformat() if game.finished_at else None,
                 "outcome": outcome_json(game, names) if game.is_over and game.outcome
                 else None},
        "complete": full,
        "players": [{"seat": n + 1, "name": name} for n, name in sorted(names.items())],
        "phases": [{"seq": p.seq, "name": p.name, "number": p.number,
                    "started_at": p.started_at.isoformat(),
                    "deadline": p.deadline.isoformat() if p.deadline else None,
                    "ended_at": p.ended_at.isoformat() if p.ended_at else None,
                    "end_reason": p.end_reason} for p in phases],
        "events": [event_json(game.ruleset, e, phase_seq, names, place)
                   for place, e in enumerate(events, start=1)],
    }
    if full:
        out["setup"] = {"ruleset": game.ruleset, "seats": game.seat_count,
                        "config": game.config, "seed": game.seed, "salt": game.salt or None}
        out["steps"] = [a.as_step() for a in game.actions.order_by("seq")]
    response = JsonResponse(out, json_dumps_params={"ensure_ascii": False, "indent": 1})
    # What the log holds depends on who asks: never cache it for anyone else.
    response["Cache-Control"] = "private, no-store"
    return response
