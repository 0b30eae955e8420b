"""Game pages. Thin: they read through `services.view_for` and write through services."""

from __future__ import annotations

import json
import re

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import select_template
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from config.http import is_page_navigation  # issue 16 item 1 (ops branch)
from messaging import services as forum
from messaging.models import Message, Thread

from . import services
from .engine.base import Choice
from .models import Game, Vote
from .presenters import choice_label, describe, ruleset_name, seat_facts, seat_name


def game_list(request):
    games = Game.objects.exclude(status=Game.Status.DRAFT).select_related("board")
    page = Paginator(games, 30).get_page(request.GET.get("page"))
    rows = [(g, ruleset_name(g.ruleset), services.phase_label(g.phase_name, g.ruleset)
             if g.phase_name else "") for g in page]
    return render(request, "games/list.html", {"page": page, "rows": rows})


def _game(pk) -> Game:
    game = get_object_or_404(Game.objects.select_related("board", "current_phase"), pk=pk)
    if game.status == Game.Status.DRAFT:
        raise Http404
    return game


def game_home(request, pk):
    game = _game(pk)
    view, seat = services.view_for(game, request.user)
    names = services.seat_names(game)
    events = services.events_visible_to(game, request.user).filter(public=True).order_by("-id")
    timeline = [(e, describe(game.ruleset, e.as_engine_event(), names))
                for e in events[:100]]
    from . import community

    user = request.user
    signup = game.signups.filter(user=user, withdrawn_at=None).first() \
        if user.is_authenticated else None
    can_substitute = user.is_authenticated and seat is None and \
        community.waiting_substitutes(game).filter(user=user).exists() and \
        game.substitutions.filter(status="open").exists()
    return render(request, "games/home.html", {
        "signup": signup, "can_substitute": can_substitute,
        "checkin_open": seat is not None and seat.checked_in_at is None and game.is_live,
        "game": game, "seat": seat, "view": view,
        "phase_title": services.phase_label(game.phase_name, game.ruleset),
        "seats": game.seats.select_related("user__profile"),
        "public_view": _public_rows(game, view, names), "timeline": timeline,
        "announcements": game.announcements.exclude(published_at=None).order_by("-created")[:20],
    })


def _public_rows(game: Game, view: dict | None, names):
    """Per-seat public facts for the table on the game's home page."""
    return [{"number": number + 1, "name": name,
             "facts": seat_facts(game.ruleset, view, number) if view else ""}
            for number, name in sorted(names.items())]


def _choices(game: Game, seat_number: int | None) -> list[Choice]:
    if seat_number is None or not game.state or game.status != Game.Status.RUNNING:
        return []
    return services.ruleset_of(game).legal_actions(game.state, seat_number)


def choice_value(choice: Choice) -> str:
    return json.dumps({"kind": choice.kind, "params": choice.params}, sort_keys=True,
                      ensure_ascii=False)


@login_required
def act(request, pk):
    """The seat's conversation with 神的使者 in this game, with the action form."""
    game = _game(pk)
    seat = services.seat_of(game, request.user)
    if seat is None:
        raise Http404
    if request.method == "POST":
        return _submit(request, game, seat)
    view, _seat = services.view_for(game, request.user)
    names = services.seat_names(game)
    choices = _choices(game, seat.number)
    # Votes are cast in the box above the phase's vote thread; a phase without a vote thread
    # (a rule set whose voters each have their own short phase) offers them here instead.
    thread_votes = game.phase_name in services.ruleset_of(game).vote_phases
    options = [(choice_value(c), choice_label(game.ruleset, c, names)) for c in choices
               if c.kind not in services.VOTE_KINDS or c.kind == "proxy_vote"
               or not thread_votes]
    # A list parameter (a loss order) is offered with an editable field: the player may give
    # the list in any order they like; the rules check it.
    list_fields = {}
    for c in choices:
        for key, value in c.params.items():
            if isinstance(value, list):
                list_fields.setdefault(key, ", ".join(str(v) for v in value))
    text_fields = {}
    for c in choices:
        for f in c.text_fields:
            text_fields.setdefault(f.name, f)
    conversation = seat.conversation
    if conversation is not None and is_page_navigation(request):  # not a planted <img>
        forum.mark_read_by_owner(conversation=conversation)
    chat = Message.objects.filter(conversation=conversation).select_related(
        "sender__profile").order_by("-created_at") if conversation else Message.objects.none()
    page = Paginator(chat, 50).get_page(request.GET.get("page"))
    panel = select_template([f"games/panels/{game.ruleset}.html", "games/panels/default.html"])
    return render(request, "games/act.html", {
        "panel_template": panel, "names": names,
        "phase_title": services.phase_label(game.phase_name, game.ruleset),
        "game": game, "seat": seat, "view": view, "options": options,
        "text_fields": text_fields.values(), "page": page, "list_fields": list_fields.items(),
        "me": json.dumps(view.get("me", {}), ensure_ascii=False, indent=1) if view else "",
    })


def _submit(request, game: Game, seat):
    raw = request.POST.get("choice", "")
    if request.POST.get("free_text", "").strip() and not raw:
        return _free_text(request, game, seat)
    try:
        chosen = json.loads(raw)
        kind, params = chosen["kind"], chosen["params"]
        if not isinstance(kind, str) or not isinstance(params, dict):
            raise ValueError
    except (ValueError, KeyError, TypeError):
        messages.error(request, _("Choose one of the offered actions."))
        return redirect("game-act", pk=game.pk)
    for key, value in request.POST.items():
        if key.startswith("text_") and value.strip():
            params[key[5:]] = value
        elif key.startswith("list_") and key[5:] in params and isinstance(params[key[5:]], list) \
                and value.strip():
            params[key[5:]] = [v.strip() for v in re.split(r"[,，、\s]+", value) if v.strip()]
    expected = request.POST.get("phase")
    try:
        services.submit_action(game_id=game.pk, user=request.user, kind=kind, params=params,
                               expected_phase=int(expected) if expected and expected.isdigit()
                               else None)
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
    """A vote from the vote thread's form; back to the thread with a readable result."""
    game = _game(pk)
    thread_id = request.POST.get("thread")
    back = redirect("messaging-thread", pk=thread_id) if (thread_id or "").isdigit() \
        else redirect("game-home", pk=game.pk)
    wants_json = "application/json" in request.headers.get("Accept", "")
    target = request.POST.get("target", "")
    kind = request.POST.get("kind", "vote")
    if kind not in services.VOTE_KINDS or not target.lstrip("-").isdigit():
        return _vote_result(request, back, wants_json, False, _("Choose whom to vote for."))
    expected = request.POST.get("phase", "")
    try:
        services.submit_action(game_id=game.pk, user=request.user, kind=kind,
                               params={"target": int(target)},
                               expected_phase=int(expected) if expected.isdigit() else None)
    except services.GameError as exc:
        return _vote_result(request, back, wants_json, False, exc.message)
    return _vote_result(request, back, wants_json, True, _("Your vote was counted."))


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
    names = services.seat_names(game)
    view, seat = services.view_for(game, request.user)
    is_current = game.current_phase_id == getattr(phase, "pk", None) and \
        game.status == Game.Status.RUNNING
    options = []
    if is_current and seat is not None:
        options = [(c.kind, c.params.get("target"), choice_label(game.ruleset, c, names))
                   for c in _choices(game, seat.number) if c.kind in ("vote", "runoff_vote")]
    votes = Vote.objects.filter(phase=phase, proxy=False).select_related(
        "voter", "target").order_by("created") if phase else []
    history = [(v.created, seat_name(names, v.voter.number),
                seat_name(names, v.target.number) if v.target else "—") for v in votes]
    tally: dict[str, int] = {}
    for _when, _voter, target in history:
        tally[target] = tally.get(target, 0) + 1
    return {"game": game, "phase": phase, "is_current": is_current, "options": options,
            "history": history, "tally": sorted(tally.items(), key=lambda kv: -kv[1]),
            "seat": seat, "thread": thread}


def commitment(request, pk):
    """The deal commitment, and after the end the revealed deal to check it against."""
    game = _game(pk)
    text = services.ruleset_of(game).commitment_text(game.state) if (
        game.is_over and game.state) else None
    recomputed = services.commitment_of(text, game.salt) if text is not None else None
    return render(request, "games/commitment.html", {
        "game": game, "deal_text": text, "recomputed": recomputed,
        "matches": recomputed == game.commitment if recomputed else None})



@require_POST
@login_required
def community_action(request, pk, what):
    """Sign up / withdraw / check in / accept a substitution / ask for leave, from the game
    page. Refusals come back as a readable message; nothing is stored."""
    from . import community

    game = _game(pk)
    user = request.user
    try:
        if what == "signup":
            community.sign_up(game_id=game.pk, user=user,
                              role=request.POST.get("role", "player"))
            done = _("You are signed up.")
        elif what == "withdraw":
            community.withdraw_signup(game_id=game.pk, user=user)
            done = _("Your sign-up was withdrawn.")
        elif what == "checkin":
            community.check_in(game_id=game.pk, user=user)
            done = _("You have checked in.")
        elif what == "substitute":
            community.accept_substitution(game_id=game.pk, user=user)
            done = _("You have taken over the seat. Read your conversation with 神的使者.")
        elif what == "leave":
            community.request_leave(game_id=game.pk, user=user,
                                    message=request.POST.get("message", ""))
            done = _("Your leave request was sent to the GM.")
        else:
            raise Http404
    except services.GameError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, done)
    return redirect("game-home", pk=game.pk)
