"""Playing: the seat's conversation with 神的使者 with the action form, and the vote box
above a phase's vote thread. Thin: reads through games.selectors, writes through services."""

from __future__ import annotations

import json
import re

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import get_template
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from config.http import is_page_navigation  # issue 16 item 1 (ops branch)
from config.inputs import (
    InputError,
    check_param_keys,
    offered_picks,
    parse_choice,
    parse_int,
    parse_offered_choice,
)
from config.ratelimit import consume
from messaging import services as forum
from messaging.models import Message, Thread

from .. import rulesets, selectors, services
from ..engine.base import Choice
from ..models import Game, Vote
from ..presenters import (
    choice_label,
    field_label,
    phase_label,
    seat_name,
    tally_line,
    vote_heading,
)
from .pages import game_links, game_or_404

# Steps a seat may send in one phase before it must wait (issue 16 item 4): enough to change
# one's mind many times, not enough to fill the GM's and the seat's logs.
ACTION_RATE = "10/10m"


def _choices(game: Game, seat_number: int | None) -> list[Choice]:
    if seat_number is None or not game.state or game.status != Game.Status.RUNNING:
        return []
    return rulesets.engine(game.ruleset).legal_actions(game.state, seat_number)


def choice_value(choice: Choice) -> str:
    """The option's value in the form. Two choices differing only in their free texts (an
    attack with a manifesto or with a story) get different values ("texts")."""
    data: dict = {"kind": choice.kind, "params": choice.params}
    if choice.text_fields:
        data["texts"] = [f.name for f in choice.text_fields]
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


# Seat parameters a multi-part choice may offer as pickers of their own (issue 14 item 7):
# the night kill's victim and its death-pact bandit are two lists, not one list of every pair.
PICK_KEYS = ("target", "pact")


def grouped_options(ruleset: str, choices: list[Choice], names: dict[int, str]):
    """(options, pickers) of the act form.

    1. Choices of one kind that differ only in two or more seat parameters (PICK_KEYS) are
       one option naming those parameters under "picks", with a picker (a select) each.
    2. Every other choice is an option of its own, as before.
    A grouped option's step is completed from the pickers and must be one of `choices`
    (`_complete_picks`), so the pickers can only send what the rules offered.
    """
    groups: dict[tuple, list[Choice]] = {}
    for c in choices:
        fixed = {k: v for k, v in c.params.items() if k not in PICK_KEYS}
        key = (c.kind, json.dumps(fixed, sort_keys=True), tuple(f.name for f in c.text_fields))
        groups.setdefault(key, []).append(c)
    options, pickers = [], {}
    for group in groups.values():
        varying = [k for k in PICK_KEYS if all(k in c.params for c in group)
                   and len({c.params[k] for c in group}) > 1]
        if len(varying) < 2:
            options += [(choice_value(c), choice_label(ruleset, c, names)) for c in group]
            continue
        first = group[0]
        fixed = {k: v for k, v in first.params.items() if k not in varying}
        data: dict = {"kind": first.kind, "params": fixed, "picks": varying}
        if first.text_fields:
            data["texts"] = [f.name for f in first.text_fields]
        shell = Choice(first.kind, fixed, first.text_fields)
        options.append((json.dumps(data, sort_keys=True, ensure_ascii=False),
                        choice_label(ruleset, shell, names)))
        for k in varying:
            values = pickers.setdefault(k, {})
            for c in group:
                values.setdefault(c.params[k], seat_name_of(names, c.params[k]))
    picker_rows = [(k, field_label(k), sorted(v.items())) for k, v in pickers.items()]
    return options, picker_rows


def seat_name_of(names: dict[int, str], seat) -> str:
    """A picker's entry: "6 · 大黄" (the seat's number from 1, and its player)."""
    return f"{seat + 1} · {names.get(seat, '')}".rstrip(" ·") if isinstance(seat, int) \
        else str(seat)


def complete_picks(request, game: Game, seat_number: int, kind: str, params: dict,
                   picks: list[str]) -> None:
    """Fill the picked parameters from the `pick_<key>` selects and check that the step is
    one the rules offered (InputError otherwise: a readable refusal, nothing stored)."""
    for key in picks:
        if key not in PICK_KEYS:
            raise InputError(_("Choose one of the offered actions."), field="choice")
        value = parse_int(request.POST.get(f"pick_{key}"), field=f"pick_{key}", default=None)
        if value is None:
            raise InputError(_("Choose %(what)s.") % {"what": field_label(key)},
                             field=f"pick_{key}")
        params[key] = value
    if not any(c.kind == kind and c.params == params for c in _choices(game, seat_number)):
        raise InputError(_("This combination is not one of the offered actions; choose "
                           "again."), field="choice")


def split_list(value: str) -> list[str]:
    """A list typed in a text box: items separated by commas (any width), 、 or spaces."""
    return [v.strip() for v in re.split(r"[,，、\s]+", value) if v.strip()]


def fill_list(offered: list, typed: list[str]) -> list:
    """The list parameter of a chosen option with the order the player typed, if any.

    An empty box keeps the option exactly as its label shows it. A typed order applies, but
    the option decides the last item (a loss order's core card: the option picked names it),
    so the typed list loses one copy of it and gets it appended. A typed list that is not the
    option's items in some order reaches the rules unchanged, which refuse it with a reason.
    """
    if not typed or not offered:
        return typed or offered
    last = offered[-1]
    rest = list(typed)
    if last in rest:
        rest.remove(last)
    return rest + [last]


@login_required
def act(request, pk):
    """The seat's conversation with 神的使者 in this game, with the action form."""
    game = game_or_404(pk)
    seat = selectors.seat_of(game, request.user)
    if seat is None:
        raise Http404
    status = 200
    if request.method == "POST":
        try:
            return _submit(request, game, seat)
        except InputError as refused:  # the form again, with the sentence; nothing stored
            messages.error(request, refused.message)
            status = 400
    view, _seat = selectors.view_for(game, request.user)
    names = selectors.seat_names(game)
    choices = _choices(game, seat.number)
    # Votes are cast in the box above the phase's vote thread; a phase without a vote thread
    # (a rule set whose voters each have their own short phase) offers them here instead.
    thread_votes = game.phase_name in rulesets.engine(game.ruleset).vote_phases
    options, pickers = grouped_options(game.ruleset, [
        c for c in choices if c.kind not in services.VOTE_KINDS or c.kind == "proxy_vote"
        or not thread_votes], names)
    # A list parameter (a loss order) gets an optional box, empty (the option's own order
    # stands) with the current order as its placeholder: the player may type another order;
    # the option picked still decides the last item (fill_list).
    list_fields = {}
    for c in choices:
        for key, value in c.params.items():
            if isinstance(value, list):
                list_fields.setdefault(key, (field_label(key), ", ".join(str(v) for v in value)))
    text_fields = {}
    for c in choices:
        for f in c.text_fields:
            text_fields.setdefault(f.name, (f, field_label(f.name)))
    conversation = seat.conversation
    if conversation is not None and is_page_navigation(request):  # not a planted <img>
        forum.mark_read_by_owner(conversation=conversation)
    chat = Message.objects.filter(conversation=conversation).select_related(
        "sender__profile").order_by("-created_at", "-id") if conversation else Message.objects.none()
    page = Paginator(chat, 50).get_page(request.GET.get("page"))
    panel = get_template(rulesets.get(game.ruleset).panel)
    return render(request, "games/act.html", {
        "panel_template": panel, "names": names,
        "phase_title": phase_label(game.phase_name, game.ruleset),
        "game": game, "seat": seat, "view": view, "options": options, "pickers": pickers,
        "text_fields": text_fields.values(), "page": page, "list_fields": [(k, lab, v) for k, (lab, v) in list_fields.items()],
        "me": json.dumps(view.get("me", {}), ensure_ascii=False, indent=1) if view else "",
        **game_links(game),
    }, status=status)


def _submit(request, game: Game, seat):
    """The action form: the step (`choice`, read by config.inputs.parse_offered_choice), `text_*` and
    `list_*` fields adding params (never a reserved key), the phase it was shown for."""
    raw = request.POST.get("choice", "")
    if request.POST.get("free_text", "").strip() and not raw:
        return _free_text(request, game, seat)
    # InputError: the caller shows the form again (400)
    kind, params, texts = parse_offered_choice(raw)
    check_param_keys([key[5:] for key in request.POST if key.startswith(("text_", "list_"))],
                     field="choice")
    picks = offered_picks(raw)
    if picks:
        complete_picks(request, game, seat.number, kind, params, picks)
    expected = parse_int(request.POST.get("phase"), field="phase", minimum=0, default=None)
    for key, value in request.POST.items():
        name = key[5:]
        # Only the texts the picked option asks for: a manifesto typed for another option
        # must not travel with this one.
        if key.startswith("text_") and value.strip() and (texts is None or name in texts):
            params[name] = value
        elif key.startswith("list_") and isinstance(params.get(name), list):
            params[name] = fill_list(params[name], split_list(value))
    try:
        consume(scope=f"games.act:{game.pk}:{seat.number}:{game.current_phase_id}",
                who=f"seat:{seat.pk}", rate=ACTION_RATE,
                message=_("Too many actions in this phase. Please wait a moment."))
        services.submit_action(game_id=game.pk, user=request.user, kind=kind, params=params,
                               expected_phase=expected, now=received_at(request, expected))
    except services.GameError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Received. 神的使者 has confirmed it below."))
    return redirect("game-act", pk=game.pk)


def _free_text(request, game: Game, seat):
    try:
        forum.send_to_messenger(conversation=seat.conversation, author=request.user,
                                body=request.POST["free_text"])
    except forum.PostingRefused as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Your message was sent to 神的使者."))
    return redirect("game-act", pk=game.pk)


@require_POST
@login_required
def vote(request, pk):
    """A vote from the vote thread's form; back to the thread with a readable result (or a
    small JSON answer). Reads only what it needs before the service locks the game and reads
    it whole: not the state (issue 17 item 5)."""
    game = Game.objects.only("pk", "status", "current_phase_id").filter(pk=pk).first()
    if game is None or game.status == Game.Status.DRAFT:  # as game_or_404
        raise Http404
    wants_json = "application/json" in request.headers.get("Accept", "")
    try:
        thread_id = parse_int(request.POST.get("thread"), field="thread", minimum=1,
                              default=None)
        kind = parse_choice(request.POST.get("kind"), field="kind",
                            choices=services.VOTE_KINDS, default="vote")
        target = parse_int(request.POST.get("target"), field="target", default=None)
        expected = parse_int(request.POST.get("phase"), field="phase", minimum=0, default=None)
    except InputError as refused:
        if wants_json:
            return JsonResponse({"ok": False, "message": str(refused.message)}, status=400)
        raise  # config.middleware.RefusalMiddleware: the 400 page with the sentence
    back = redirect("messaging-thread", pk=thread_id) if thread_id is not None \
        else redirect("game-home", pk=game.pk)
    if target is None:
        return _vote_result(request, back, wants_json, False, _("Choose whom to vote for."))
    try:
        seat = selectors.seat_of(game, request.user)
        consume(scope=f"games.vote:{game.pk}:{game.current_phase_id}",
                who=f"seat:{seat.pk}" if seat else f"user:{request.user.pk}", rate=ACTION_RATE,
                message=_("Too many actions in this phase. Please wait a moment."))
        services.submit_action(game_id=game.pk, user=request.user, kind=kind,
                               params={"target": target}, expected_phase=expected,
                               now=received_at(request, expected))
    except services.GameError as exc:
        return _vote_result(request, back, wants_json, False, exc.message)
    return _vote_result(request, back, wants_json, True, _("Your vote was counted."))


def received_at(request, expected_phase: int | None):
    """When the request reached the application (config.middleware.ReceivedAtMiddleware),
    so a busy server does not turn a step sent before the deadline into a late one. Only for
    a request that names its phase: the service refuses it if that phase has ended since,
    so a step sent in one phase can never land in the next (without one: the service's
    clock, as before)."""
    return getattr(request, "received_at", None) if expected_phase is not None else None


def _vote_result(request, back, wants_json: bool, ok: bool, message):
    """A redirect with a flash message for browsers; JSON for scripts (Accept: JSON)."""
    if wants_json:
        return JsonResponse({"ok": ok, "message": str(message)}, status=200 if ok else 409)
    (messages.success if ok else messages.error)(request, message)
    return back


def vote_panel_context(request, thread: Thread) -> dict | None:
    """What the vote box above a vote thread shows (None: not a game's vote thread)."""
    game = getattr(thread.board, "game", None)
    if game is None or not thread.key.startswith("vote-"):
        return None
    phase_seq = int(thread.key.split("-", 1)[1])
    phase = game.phases.filter(seq=phase_seq).first()
    names = selectors.seat_names(game)
    view, seat = selectors.view_for(game, request.user)
    is_current = game.current_phase_id == getattr(phase, "pk", None) and \
        game.status == Game.Status.RUNNING
    options = []
    if is_current and seat is not None:
        options = [(c.kind, c.params.get("target"), choice_label(game.ruleset, c, names))
                   for c in _choices(game, seat.number) if c.kind in ("vote", "runoff_vote")]
    votes = Vote.objects.filter(phase=phase, proxy=False).select_related(
        "voter", "target").order_by("created", "id") if phase else []
    history = [(v.created, seat_name(names, v.voter.number),
                seat_name(names, v.target.number) if v.target else "—") for v in votes]
    # The tally from the engine's public events (proxies, voided votes, CURSE/BLESS as the
    # rules publish them, the result), the same for every viewer.
    tally = selectors.phase_vote_tally(game, phase) if phase else None
    return {"game": game, "phase": phase, "is_current": is_current, "options": options,
            "phase_title": vote_heading(game.ruleset, phase) if phase else "",
            "history": history, "tally": tally,
            "tally_lines": [tally_line(r) for r in tally.rows] if tally else [],
            "seat": seat, "thread": thread}
