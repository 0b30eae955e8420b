"""The archive of finished games (list, filters, result lines) and a seat's posts page."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from messaging.models import Post
from messaging.rules import readable_posts

from ..models import Game, Seat, Substitution
from ..presenters import outcome_text, phase_names

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User
    from django.contrib.auth.models import AnonymousUser


def finished_games() -> QuerySet[Game]:
    """Finished games, newest end first (the archive's list; aborted games have no result)."""
    return (Game.objects.filter(status=Game.Status.FINISHED)
            .order_by("-finished_at", "-id").defer("state", "config"))


def outcome_results() -> list[str]:
    """The result codes finished games have ended with (the archive's outcome filter)."""
    rows = finished_games().order_by().values_list("outcome__result", flat=True).distinct()
    return sorted({r for r in rows if isinstance(r, str) and r})


def filter_archive(games: QuerySet[Game], *, ruleset: str | None = None,
                   player_id: int | None = None, result: str | None = None,
                   since: dt.date | None = None, until: dt.date | None = None) -> QuerySet[Game]:
    """`games` narrowed by rule set, a player (who held a seat at the end or before a
    handover), the result code and the day the game ended (inclusive, in the active zone)."""
    if ruleset:
        games = games.filter(ruleset=ruleset)
    if player_id is not None:
        handed = Substitution.objects.filter(
            status=Substitution.Status.ACCEPTED, outgoing_id=player_id).values("game_id")
        games = games.filter(Q(seats__user_id=player_id) | Q(pk__in=handed)).distinct()
    if result:
        games = games.filter(outcome__result=result)
    zone = timezone.get_current_timezone()
    if since is not None:
        games = games.filter(finished_at__gte=dt.datetime.combine(since, dt.time.min, zone))
    if until is not None:
        games = games.filter(finished_at__lt=dt.datetime.combine(
            until + dt.timedelta(days=1), dt.time.min, zone))
    return games


def outcome_line(game: Game, names: dict[int, str] | None = None,
                 view: dict | None = None) -> str:
    """A finished game's result in the reader's language (presenters.outcome_text). Without
    `names` the winners are named by seat number, without `view` a rule set may say less (the
    archive lists many games: no query, and no state read, per game)."""
    if not game.outcome:
        return ""
    return outcome_text(game.ruleset, game.outcome, names or {}, view)


def seat_holdings(game: Game, seat: Seat) -> list[dict]:
    """Who held `seat`, first to last: {"user_id", "since", "until"} (None = open end),
    from its accepted handovers (Substitution.closed_at is the moment of the handover)."""
    holdings: list[dict] = []
    handovers = (Substitution.objects.filter(seat=seat, status=Substitution.Status.ACCEPTED)
                 .order_by("closed_at", "id").values("outgoing_id", "incoming_id", "closed_at"))
    for sub in handovers:
        if not holdings and sub["outgoing_id"]:
            holdings.append({"user_id": sub["outgoing_id"], "since": None, "until": None})
        if holdings:
            holdings[-1]["until"] = sub["closed_at"]
        if sub["incoming_id"]:
            holdings.append({"user_id": sub["incoming_id"], "since": sub["closed_at"],
                             "until": None})
    if not holdings and seat.user_id:
        holdings.append({"user_id": seat.user_id, "since": None, "until": None})
    return holdings


def _held_at(holdings: list[dict], post: Post) -> bool:
    return any(h["user_id"] == post.author_id
               and (h["since"] is None or post.created_at >= h["since"])
               and (h["until"] is None or post.created_at < h["until"]) for h in holdings)


def seat_posts(game: Game, seat: Seat, viewer: User | AnonymousUser | None) -> dict:
    """Every post written from `seat` on the game's board that `viewer` may read
    (messaging.rules.readable_posts), grouped by the phase it was written in (Phase start
    and end times), oldest first. A post counts for the seat when its author held the seat
    at the time (seat_holdings); a later holder's posts carry `by_substitute`.
    Four queries whatever the number of posts, phases or handovers.
    """
    holdings = seat_holdings(game, seat)
    first = holdings[0]["user_id"] if holdings else None
    posts = readable_posts(viewer, Post.objects.filter(
        thread__board_id=game.board_id, author_id__in={h["user_id"] for h in holdings}))
    posts = posts.select_related("thread", "author__profile").order_by("created_at", "id")
    phases = list(game.phases.order_by("seq"))
    groups: list[dict] = []
    before = {"title": _("Before the game"), "posts": []}
    after = {"title": _("After the game"), "posts": []}
    by_phase = {p.pk: {"title": title, "phase": p, "posts": []}
                for p, title in zip(phases, phase_names(game.ruleset, phases), strict=True)}
    count = 0
    for post in posts:
        if not _held_at(holdings, post):
            continue
        count += 1
        post.by_substitute = post.author_id != first
        phase = next((p for p in reversed(phases) if p.started_at <= post.created_at), None)
        if phase is None:
            before["posts"].append(post)
        elif phase.ended_at is not None and post.created_at >= phase.ended_at \
                and phase is phases[-1]:
            after["posts"].append(post)
        else:
            by_phase[phase.pk]["posts"].append(post)
    groups = [before, *by_phase.values(), after]
    return {"groups": [g for g in groups if g["posts"]], "count": count,
            "holders": [h["user_id"] for h in holdings]}
