"""The watch page (观战), `/games/<id>/watch/`: a running game's hidden play, some phases
behind, for its watchers (games.services.watching says who may watch; games.selectors.watch
what they see).

- GET, for a watcher: every seat's hand at the end of the last phase shown whole, and the
  timeline up to that end: every event some seat saw (private results, team messages, each
  with who saw it and why it happened) and every step the seats and the clock took. Never
  the GM's secret part, a GM-only event or the GM's own steps, and nothing of a later phase.
  The page follows the game (data-live-game): when a phase ends, the next one it may show
  comes without a reload.
- GET, for someone who may watch but does not yet: what watching means for them (until
  the end they write nothing the living read, anywhere on the site; an outsider never
  signs up for the game afterwards; a dead player of a rule set whose dead reply on the
  board gives that up), and the button that starts it (POST), or, for an outsider of a
  game "by request", asks the GM; while the request waits, the page says so.
- Anyone else signed in: the sentence that says why not (403). Not signed in: the sign-in
  page. A draft game does not exist (404).

`/games/<id>/graveyard/` leads to the game's graveyard board (墓地) for whoever may read it
(its approved watchers and its GMs; everyone after the end), else 404.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from config.ratelimit import RateLimited, consume, too_many_requests
from messaging import rules as forum_rules

from .. import selectors, services
from ..engine.base import GM
from ..models import Event, Game
from ..presenters import phase_names, seat_facts
from ..selectors import seat_holders
from .review import PHASES_PER_PAGE, event_row, seat_review_facts, step_row


@require_http_methods(["GET", "HEAD", "POST"])
def watch(request, pk):
    game = get_object_or_404(Game.objects.select_related("current_phase", "board"), pk=pk)
    if game.status == Game.Status.DRAFT:
        raise Http404
    user = request.user
    if not user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if request.method == "POST":
        return _start(request, game)
    refusal = services.watch_refusal(game, user)
    if refusal:
        return render(request, "games/watch.html", {"game": game, "refusal": refusal},
                      status=403)
    if services.waits_to_watch(game, user):
        return render(request, "games/watch.html", {"game": game, "waiting": True})
    if not services.watches(game, user):
        outsider = selectors.seat_of(game, user) is None
        return render(request, "games/watch.html", {
            "game": game, "confirm": True,
            "gives_up": services.gives_up_dead_talk(game, user),
            "outsider": outsider,
            "asks": outsider and game.outsiders == Game.Outsiders.REQUEST})
    return render(request, "games/watch.html", _watched_context(request, game))


def _start(request, game: Game):
    """The button of the confirmation: the user watches from now on."""
    try:
        consume(scope=f"games.watch:{game.pk}", who=f"user:{request.user.pk}", rate="6/h",
                message=_("Too many requests of this kind. Please wait a while and try "
                          "again."))
    except RateLimited as refused:
        return too_many_requests(request, refused)
    try:
        services.watch(game_id=game.pk, user=request.user)
    except services.GameError as exc:
        messages.error(request, exc.message)
    return redirect("game-watch", game.pk)


def _watched_context(request, game: Game) -> dict:
    shown = selectors.watched(game)
    context = {"game": game, "watched": shown, "version": game.page_version}
    if shown is None:
        return context
    view, names = shown.view, selectors.seat_names(game)
    holders = seat_holders(game)
    private = view.get("private") or []
    context["seats"] = [{
        "number": n + 1, "seat": n, "holders": holders.get(n, []),
        "facts": seat_review_facts(game, private[n], n, names) if n < len(private) else [],
        "public": seat_facts(game.ruleset, view, n),
    } for n in range(game.seat_count)]
    # The phases shown whole, and the one after: the events that opened it are how the
    # last one shown ended (the audience view's log holds them, and nothing else of it).
    phases = list(game.phases.filter(seq__lte=shown.phase.seq + 1).order_by("seq"))
    titles = dict(zip([p.pk for p in phases], phase_names(game.ruleset, phases), strict=True))
    context["phase_title"] = titles[shown.phase.pk]
    page = Paginator(phases, PHASES_PER_PAGE).get_page(request.GET.get("page"))
    on_page = {p.pk for p in page.object_list}
    sections = {p.pk: {"phase": p, "title": titles[p.pk], "events": [], "steps": []}
                for p in page.object_list}
    if page.number == 1:
        sections[None] = {"phase": None, "title": _("Outside the phases"), "events": [],
                          "steps": []}
    log = view.get("log") or []
    phase_of_seq = dict(Event.objects.filter(
        game=game, seq__in=[entry.get("seq") for entry in log]).values_list("seq", "phase_id"))
    for entry in log:  # the AUDIENCE view's log: only what some seat saw
        phase_id = phase_of_seq.get(entry.get("seq"))
        if phase_id in sections:
            sections[phase_id]["events"].append(event_row(game, entry, names,
                                                          addressed=True))
    for action in shown.steps:
        if action.actor == GM:  # the GM's own steps show through their events
            continue
        if action.phase_id in on_page:
            sections[action.phase_id]["steps"].append(step_row(action, names, game.ruleset))
    loose = sections.pop(None, None)
    context["sections"] = ([loose] if loose and (loose["events"] or loose["steps"]) else []) \
        + [sections[p.pk] for p in page.object_list
           if p.seq <= shown.phase.seq or sections[p.pk]["events"]]
    context["page"] = page
    return context


def graveyard(request, pk):
    """The game's graveyard board, for whoever may read it (messaging.rules), else 404."""
    game = get_object_or_404(Game.objects.select_related("graveyard"), pk=pk)
    board = game.graveyard
    if board is None or game.status == Game.Status.DRAFT \
            or not forum_rules.can_read_board(request.user, board):
        raise Http404
    return redirect("messaging-board", board.slug)
