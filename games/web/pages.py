"""The game's public pages: the list of games, a game's home page, the deal commitment."""

from __future__ import annotations

from django.core.cache import cache
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.safestring import SafeString, mark_safe

from config.build import BUILD

from .. import rules_pages, selectors
from ..models import Game, Seat, Signup
from ..presenters import (
    describe,
    plain_text,
    ruleset_name,
    seat_facts,
    tally_line,
)
from ..services import owes_words, watch_refusal
from . import clock
from .review import deal_table, review_shown

# The home page's two kept parts (see `home_parts`).
STATUS = "games/_home_status.html"
TABLES = "games/_home_tables.html"
PARTS_SECONDS = 3600


def game_list(request):
    games = Game.objects.exclude(status=Game.Status.DRAFT).select_related("board")
    page = Paginator(games, 30).get_page(request.GET.get("page"))
    rows = [(g, ruleset_name(g.ruleset), selectors.current_phase_name(g)) for g in page]
    return render(request, "games/list.html", {"page": page, "rows": rows})


def rules_url(ruleset: str) -> str:
    """The rules page of `ruleset`, or "" for a rule set without one (a test's toy)."""
    if ruleset not in rules_pages.rulesets():
        return ""
    return reverse("rules-detail", args=[ruleset])


def game_links(game: Game) -> dict:
    """What the game's pages link besides themselves: the rules page, the announcement
    thread and the vote thread (today's while a vote is open, else the latest)."""
    thread, today, announcements = selectors.game_threads(game)
    return {"rules_url": rules_url(game.ruleset), "vote_thread": thread, "vote_today": today,
            "announcement_thread": announcements}


def lobby_section_context(request) -> dict:
    """The home page's games: the visitor's own and the open ones."""
    mine = selectors.my_current_games(request.user)
    own = {row["game"].pk for row in mine}
    return {"my_games": mine,
            "open_games": [g for g in selectors.open_games() if g.pk not in own]}


def game_or_404(pk) -> Game:
    game = get_object_or_404(Game.objects.select_related("board", "current_phase"), pk=pk)
    if game.status == Game.Status.DRAFT:
        raise Http404
    return game


def game_home(request, pk):
    """The game's home page: its status card and tables (the same for everyone who sees the
    game through the same seat: kept under the game's version, `home_parts`) around the
    visitor's own card. A visit reads the game's key row with the visitor's seat and
    sign-up (one query, `selectors.home_row`); rendering the kept parts (a miss only) reads
    the game's whole row, the seats, the public events, the announcements and the vote and
    announcement threads. The game clock's notice (games/web/clock.py) and the seats' posts
    of the last 48 hours are written on every answer, outside the kept parts."""
    user = request.user
    game = selectors.home_row(pk, user)
    if game is None or game.status == Game.Status.DRAFT:
        raise Http404
    if not user.is_authenticated:  # no seat, no sign-up: the page of everyone without one
        return _home(request, game, None, None)
    return _home(request, game, game.viewer_seat, game.viewer_signup_role)


def parts_key(pk: int, version: int, seat: int | None, steps: int = 0) -> str:
    """The key of game `pk`'s kept parts at page version `version`, as seen through seat
    `seat` (None: no seat; a seat's parts also by the game's step count `steps`, since a
    secret step changes only its own seat's view and moves no public version), in the
    active language and timezone, by this build (a deploy that changes a template or a
    sentence starts afresh)."""
    return ":".join(str(part) for part in (
        "game-home", pk, version, "public" if seat is None else f"seat{seat}.{steps}",
        translation.get_language(), timezone.get_current_timezone_name(), BUILD))


def home_parts(game: Game, seat: int | None) -> tuple[str, str]:
    """(the status card, the tables) of `game` (its key row) as seen through seat `seat`
    (None: anyone without one: anonymous readers, signed-in outsiders, the GM), from the
    cache; on a miss rendered from the game's whole row read again and kept under THAT
    row's version, so a part is never kept under a version older than what it shows.

    What they depend on, and why the key is enough: the game's row, seats, public events,
    published announcements and vote and announcement threads, and its seated players'
    names, each changed only by a service that moves `page_version` in the same
    transaction (games.services.kernel.changed); whose eyes (`seat`: a seat's view, its
    link to its actions, are kept under that seat only; the number comes from the key row,
    read with the visitor, so the parts rendered are the seat's, whoever holds it now);
    the language and timezone (sentences, times). A cache that is down is a miss: the
    parts are rendered, nothing is kept (config/cache.py)."""
    found = cache.get(parts_key(game.pk, game.page_version, seat, game.steps))
    if found is None:
        full = selectors.game_for_home(game.pk)
        if full is None or full.status == Game.Status.DRAFT:
            raise Http404
        values = _shared_context(full, seat)
        found = (render_to_string(STATUS, values), render_to_string(TABLES, values))
        cache.set(parts_key(full.pk, full.page_version, seat, full.steps), found,
                  PARTS_SECONDS)
    return mark_safe(found[0]), mark_safe(found[1])  # noqa: S308 (our own templates' output)


def _home(request, game: Game, seat: int | None, role: str | None):
    """The page for a visitor with seat number `seat` and sign-up role `role` (None: none),
    `game` being their key row."""
    user = request.user
    status, tables = home_parts(game, seat)
    # The sign-up itself is not read: the page shows only its role.
    signup = Signup(game=game, user=user, role=role) if role is not None else None
    seated = seat is not None
    can_substitute = not seated and role == Signup.Role.SUBSTITUTE and \
        selectors.waiting_substitutes(game).filter(user=user).exists() and \
        game.substitutions.filter(status="open").exists()
    # The watch page (观战) is offered to the dead and, where the GM lets outsiders watch,
    # to outsiders not signed up, while the game runs and its GM lets watchers in
    # (games.services.watching decides; its page says why not, or asks the GM).
    # A dead seat that still owes last words is offered it too: the page tells it why not
    # yet (its words first); anyone else only when the page would let them in.
    offer_watch = game.is_live and bool(game.watch_delay) and not game.viewer_runs and (
        (seated and game.viewer_alive is False)
        or (not seated and role is None and game.outsiders != Game.Outsiders.OFF)) and (
        watch_refusal(game, user) is None  # asked only of those it may concern
        or seated and owes_words(game, Seat(game=game, number=seat)))
    # The graveyard (墓地) is linked for its GMs and for all after the end; a watcher finds
    # it on the watch page (the link's page checks again).
    graveyard_link = game.graveyard_id is not None and (game.is_over or game.viewer_runs)
    return render(request, "games/home.html", {
        "game": game, "parts": (status, tables), "seat": seated, "signup": signup,
        "can_substitute": can_substitute, "offer_watch": offer_watch,
        "graveyard_link": graveyard_link,
        "checkin_open": seated and game.viewer_checked_in_at is None and game.is_live,
        # The clock's notice follows the clock, not the game's version.
        "clock_notice": SafeString(clock.notice_html(game, runs=game.viewer_runs)),
        # Each seat's posts in the last 48 hours follow the clock and the board, not the
        # game's version: written on every answer, like the clock's notice.
        "seat_posts": SafeString(seat_posts_html(game, runs=game.viewer_runs)),
    })


def seat_posts_html(game: Game, *, runs: bool) -> str:
    """The card of each living seat's posts on the game's board in the last 48 hours
    (selectors.seat_post_counts, one query), for a game in play; "" otherwise. Everyone
    sees the counts; the game's GM and co-GMs (`runs`) also see the §9.1.6 minimum and
    which seats are below it."""
    if not game.is_live:
        return ""
    seats, minimum, full = selectors.seat_post_counts(game.pk)
    if not seats:
        return ""
    return render_to_string("games/_seat_posts_48h.html", {
        "seats": seats, "minimum": minimum, "full": full, "runs": runs, "game": game})


def _shared_context(game: Game, number: int | None) -> dict:
    """What the status card and the tables show to the visitor with seat `number` (None:
    none): seat `number`'s view, else a spectator's (the GM's once the game is over)."""
    seats = list(game.seats.select_related("user__profile"))
    view = selectors.seat_view(game, number)
    names = selectors.seat_names(game, seats)
    # Public events only, for every viewer (a seat's and the GM's own events are on their
    # own pages), newest first.
    events = selectors.public_event_rows(game)
    timeline = [(e, plain_text(describe(game.ruleset, e.as_engine_event(), names)))
                for e in events[::-1][:100]]
    return {
        "game": game, "seat": number is not None,
        "phase_title": selectors.current_phase_name(game),
        "ruleset_title": ruleset_name(game.ruleset),
        "outcome": selectors.outcome_line(game, names, view) if game.is_over else "",
        "public_view": _public_rows(game, view, names, seats), "timeline": timeline,
        "announcements": game.announcements.exclude(published_at=None).order_by("-created", "-id")[:20],
        "tallies": _recent_tallies(game, events, names),
        **game_links(game),
    }


def _recent_tallies(game: Game, events, names) -> list[tuple]:
    """The last votes' public tallies, newest first: (tally, its lines). The same for every
    viewer (public events only)."""
    tallies = selectors.game_vote_tallies(game, rows=events, names=names)[-3:][::-1]
    return [(t, [tally_line(r) for r in t.rows]) for t in tallies]


def _public_rows(game: Game, view: dict | None, names, seats):
    """Per-seat public facts for the table on the game's home page; `alive` is None for a
    number without a seat row (the table once looked each row up among all seats)."""
    alive = {s.number: s.alive for s in seats}
    return [{"number": number + 1, "name": name, "alive": alive.get(number),
             "facts": seat_facts(game.ruleset, view, number) if view else ""}
            for number, name in sorted(names.items())]


def commitment(request, pk):
    """The deal commitment (published at the start); and, exactly when the review is shown
    (`review.review_shown`: after the end, or to the game's GM as a preview), the deal: the
    exact committed text with its salt and the hash recomputed, the same deal as the
    review's table, and how to check the hash."""
    game = game_or_404(pk)
    context = {"game": game, "commitment": {"text": None}}
    if review_shown(game, request.user):
        gm_view = selectors.gm_view(game)
        context.update(commitment=selectors.commitment_check(game),
                       **deal_table(game, gm_view, selectors.seat_names(game)))
    return render(request, "games/commitment.html", context)
