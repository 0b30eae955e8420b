"""The archive of finished games, the games section of a player's public
profile (web.profiles shows it), and a seat's
posts on the game's board by phase (item 1, ISO for a seat).

Both read finished games only for camps and results; of a running game the profile says
only that the user plays in it.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import render
from django.utils.translation import gettext as _

from config.inputs import parse_choice, parse_date, parse_int, parse_page

from .. import rulesets, selectors
from ..presenters import ruleset_name
from ..presenters.labels import result_label
from .pages import game_or_404

PER_PAGE = 30


def profile_section(request, user) -> tuple[str, dict]:
    """The games a user played and hosted (selectors.player_record: constant queries)."""
    return "games/archive_profile.html", dict(selectors.player_record(user), person=user)


def _filters(request, results: list[str]) -> dict:
    """The archive's filters from the query string; an unreadable value is an InputError
    (a 400 page with the reason, config.middleware)."""
    get = request.GET
    player_id = parse_int(get.get("player"), field=_("player"), minimum=1, default=None)
    return {
        "ruleset": parse_choice(get.get("ruleset"), field=_("rule set"),
                                choices=rulesets.names(), default=None),
        "player_id": player_id,
        "result": parse_choice(get.get("outcome"), field=_("outcome"),
                               choices=results, default=None),
        # Out of range is refused here (config.inputs): the end date's next midnight is
        # computed from `until`, and both are made aware in the reader's zone.
        "since": parse_date(get.get("from"), field=_("the earliest end date"), default=None),
        "until": parse_date(get.get("to"), field=_("the latest end date"), default=None),
    }


def archive(request):
    """Finished games, newest first, filtered by rule set, player, outcome and end date."""
    results = selectors.outcome_results()
    filters = _filters(request, results)
    games = selectors.filter_archive(selectors.finished_games(), **filters)
    page = Paginator(games.select_related("gm__profile"), PER_PAGE).get_page(
        parse_page(request.GET.get("page")))
    player = None
    if filters["player_id"] is not None:
        player = get_user_model().objects.select_related("profile").filter(
            pk=filters["player_id"]).first()
    rows = [(g, ruleset_name(g.ruleset), selectors.outcome_line(g)) for g in page]
    return render(request, "games/archive.html", {
        "page": page, "rows": rows, "filters": filters, "player": player,
        "rulesets": [(name, ruleset_name(name)) for name in rulesets.names()],
        "results": [(r, result_label(r)) for r in results], "has_filters": any(
            v is not None for v in filters.values())})


def seat_posts(request, pk: int, number: int):
    """All posts of seat `number` (1-based, as the seat table shows it) on the game's board,
    by phase; a substitute's posts under the seat, marked as theirs. Readable as the board
    is: a player never sees a GM-only thread's posts here."""
    game = game_or_404(pk)
    seat = game.seats.filter(number=number - 1).first() if 1 <= number <= 1000 else None
    if seat is None or game.board_id is None:
        raise Http404
    found = selectors.seat_posts(game, seat, request.user)
    holders = get_user_model().objects.filter(pk__in=found["holders"]).select_related("profile")
    by_id = {u.pk: u for u in holders}
    return render(request, "games/seat_posts.html", {
        "game": game, "seat_number": number, "groups": found["groups"],
        "count": found["count"],
        "holders": [by_id[i] for i in found["holders"] if i in by_id]})
