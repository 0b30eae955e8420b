"""Links between the pages: a board's link to its game, a user's current games, the lobby, a
game's vote and announcement threads."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.urls import reverse
from django.utils.translation import gettext as _

from messaging.models import Board, Thread

from ..models import Game, Seat, Signup
from .secrets import approved_watchers

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User
    from django.contrib.auth.models import AnonymousUser


def board_game_links(board_ids: list[int]) -> dict[int, list[tuple[str, str]]]:
    """The lobby's link from each game's board to the game's page (games past the draft:
    during sign-ups the page is where players sign up). Registered in GamesConfig.ready."""
    links: dict[int, list[tuple[str, str]]] = {}
    for game in Game.objects.filter(board_id__in=board_ids).exclude(status=Game.Status.DRAFT):
        label = (_("Game page: sign up here") if game.status == Game.Status.SIGNUP
                 else _("Game page"))
        links.setdefault(game.board_id, []).append(
            (label, reverse("game-home", args=[game.pk])))
    return links


LOBBY_GAMES = 10


def my_current_games(user: User | AnonymousUser | None) -> list[dict]:
    """The games `user` is in now: a seat in a running or paused game (with the seat, for
    its action page), or a sign-up to a game still taking them. Oldest first."""
    if user is None or not user.is_authenticated:
        return []
    live = (Game.Status.RUNNING, Game.Status.PAUSED)
    rows = [{"game": s.game, "seat": s} for s in Seat.objects.filter(
        user=user, game__status__in=live).select_related("game").order_by("game_id")]
    rows += [{"game": s.game, "seat": None, "signup": s} for s in Signup.objects.filter(
        user=user, withdrawn_at=None, game__status=Game.Status.SIGNUP)
        .select_related("game").order_by("game_id")]
    return rows


def reader_boards(user: User | AnonymousUser | None) -> QuerySet | None:
    """The ids of the boards of the games `user` takes part in, for the home page's 最新主题
    to put first (messaging.hooks.reader_boards, declared in GamesConfig.ready): a game they
    hold a seat in (running or over), signed up for (not withdrawn), run (GM or co-GM) or
    watch (approved); its board and its graveyard (which the forum still hides from whoever
    may not read it). A query of one column, to be used as a subquery; None for a visitor."""
    if user is None or not user.is_authenticated:
        return None
    uid = user.pk
    theirs = Game.objects.exclude(status=Game.Status.DRAFT).filter(
        Q(gm_id=uid)
        | Exists(Seat.objects.filter(game=OuterRef("pk"), user_id=uid))
        | Exists(Signup.objects.filter(game=OuterRef("pk"), user_id=uid, withdrawn_at=None))
        | Exists(Game.co_gms.through.objects.filter(game_id=OuterRef("pk"), user_id=uid))
        | Exists(approved_watchers().filter(game=OuterRef("pk"), user_id=uid)))
    return Board.objects.filter(Q(pk__in=theirs.values("board_id"))
                                | Q(pk__in=theirs.values("graveyard_id"))).values("pk")


def open_games(limit: int = LOBBY_GAMES) -> list[Game]:
    """Games taking sign-ups or being played, newest first (the home page's list)."""
    return list(Game.objects.filter(status__in=(
        Game.Status.SIGNUP, Game.Status.RUNNING, Game.Status.PAUSED)).order_by("-id")[:limit])


def vote_thread(game: Game) -> tuple[Thread | None, bool]:
    """The game's vote thread to link: (the current phase's, True) while a vote (or runoff)
    is open, else (the latest one, False); (None, False) before the first vote."""
    if game.board_id is None:
        return None, False
    threads = Thread.objects.filter(board_id=game.board_id, key__startswith="vote-")
    if game.current_phase_id and game.is_live:
        today = threads.filter(key=f"vote-{game.current_phase.seq}").first()
        if today is not None:
            return today, True
    latest = max(threads, key=lambda t: int(t.key.split("-")[1]), default=None)
    return latest, False


def game_threads(game: Game) -> tuple[Thread | None, bool, Thread | None]:
    """`vote_thread(game)` and `announcement_thread(game)` in one query: (the vote thread to
    link, whether it is today's, the announcement thread)."""
    if game.board_id is None:
        return None, False, None
    threads = list(Thread.objects.filter(Q(key__startswith="vote-") | Q(key="announcements"),
                                         board_id=game.board_id).only("pk", "key", "title"))
    announcements = next((t for t in threads if t.key == "announcements"), None)
    votes = [t for t in threads if t.key.startswith("vote-")]
    if game.current_phase_id and game.is_live:
        today = next((t for t in votes if t.key == f"vote-{game.current_phase.seq}"), None)
        if today is not None:
            return today, True, announcements
    latest = max(votes, key=lambda t: int(t.key.split("-")[1]), default=None)
    return latest, False, announcements


def announcement_thread(game: Game) -> Thread | None:
    if game.board_id is None:
        return None
    return Thread.objects.filter(board_id=game.board_id, key="announcements").first()
