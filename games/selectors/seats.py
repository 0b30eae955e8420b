"""Seats and who runs a game: seat names, a user's seat, the GM authority check (`is_gm`), the
boards a user governs, who ever sat at a game's table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Concat
from django.utils.translation import gettext as _

from accounts.models import display_name
from messaging.models import Board

from ..models import Game, Seat, Substitution
from .secrets import approved_watchers

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User
    from django.contrib.auth.models import AnonymousUser


def seat_names(game: Game, seats=None) -> dict[int, str]:
    """{seat number: the name shown for it}: the name its holder had when the game started
    (or when they took the seat over), so a rename during the game changes nothing the
    living read in it; the holder's current name for a seat that has none stored. `seats`
    (with their users and profiles joined) when the caller read them already."""
    if seats is None:
        seats = game.seats.select_related("user__profile")
    return {s.number: s.name or (display_name(s.user) if s.user
                                 else _("seat %(n)d") % {"n": s.number + 1})
            for s in seats}


def names_on_board(board) -> dict[int, str]:
    """{user id: the seat's name from the game's start} for the players of the running or
    paused game whose board is `board` (messaging.rules.declare_board_names: their posts
    there carry the name the seat list shows); empty for any other board. No query for a
    board read with its game joined (the thread page's) that is not a running game's."""
    game = getattr(board, "game", None)
    if game is None or game.status not in (Game.Status.RUNNING, Game.Status.PAUSED):
        return {}
    return dict(game.seats.exclude(user=None).exclude(name="").values_list("user_id", "name"))


def seat_of(game: Game, user: User | AnonymousUser | None, *,
            related: tuple[str, ...] = (), seats=None) -> Seat | None:
    """`user`'s seat in `game` (None: none), with the `related` rows joined in; found among
    `seats` (all of the game's) when the caller read them already."""
    if user is None or not user.is_authenticated:
        return None
    if seats is not None:
        return next((s for s in seats if s.user_id == user.pk), None)
    return game.seats.filter(user=user).select_related(*related).first()


def game_records_of(user: User) -> list[str]:
    """Why the games need `user`'s row (web.admin.records_of): the seats it holds or held and the
    games it hosts or hosted. Seat.user is SET_NULL, so deleting the user would leave a game's
    record without its player."""
    reasons = []
    if Seat.objects.filter(user=user).exists() or Substitution.objects.filter(
            Q(outgoing=user) | Q(incoming=user), status=Substitution.Status.ACCEPTED).exists():
        reasons.append(_("held a seat in a game"))
    if Game.objects.filter(Q(gm=user) | Q(co_gms=user)).exists():
        reasons.append(_("hosts or hosted a game (GM or co-GM)"))
    return reasons


def ever_seated_ids(game: Game) -> set[int]:
    """The users who hold or ever held a seat of `game` (substitutions included)."""
    ids = set(game.seats.exclude(user=None).values_list("user_id", flat=True))
    for out_id, in_id in Substitution.objects.filter(
            game=game, status=Substitution.Status.ACCEPTED).values_list("outgoing_id",
                                                                        "incoming_id"):
        ids.update(i for i in (out_id, in_id) if i is not None)
    return ids


def is_gm(user: User | AnonymousUser | None, game: Game) -> bool:
    """The one authority check: `user` runs `game`.

    1. an active staff account (staff status means "may host games");
    2. named as the game's GM or one of its co-GMs (superusers too: they may reassign the
       GM, they are not GM of every game);
    3. and never a seat holder of it: whoever holds or ever held a seat has no GM power or
       GM view of that game.
    """
    if user is None or not user.is_authenticated or not user.is_active or not user.is_staff:
        return False
    if game.gm_id != user.pk and not game.co_gms.filter(pk=user.pk).exists():
        return False
    return user.pk not in ever_seated_ids(game)


def games_played_by(user: User | AnonymousUser | None) -> set[int]:
    """The ids of the games in which `user` holds or ever held a seat (as `ever_seated_ids`
    counts: their seats now, and accepted substitutions either way)."""
    if user is None or not user.is_authenticated:
        return set()
    ids = set(Seat.objects.filter(user=user).values_list("game_id", flat=True))
    ids |= set(Substitution.objects.filter(status=Substitution.Status.ACCEPTED).filter(
        Q(outgoing=user) | Q(incoming=user)).values_list("game_id", flat=True))
    return ids


def games_run_by(user: User | AnonymousUser | None) -> list[Game]:
    """The games `user` runs (see `is_gm`), oldest first."""
    if user is None or not user.is_authenticated or not user.is_active or not user.is_staff:
        return []
    named = (Game.objects.filter(Q(gm=user) | Q(co_gms=user)).distinct()
             .select_related("board").order_by("id"))
    return [g for g in named if user.pk not in ever_seated_ids(g)]


def gm_board_slug(game: Game) -> str:
    """The slug of the game's GM board (see services.ghosts.gm_board)."""
    return f"gm-{game.board.slug}"[:60] if game.board_id else ""


def board_authority(user) -> tuple[set[int], set[int]]:
    """(boards `user` governs as GM, boards that belong to any game): a game's board, its
    GM board and its graveyard, in one query. messaging.rules asks this (registered in GamesConfig.ready)."""
    uid = user.pk if user is not None and user.is_authenticated else None
    staff = bool(uid and user.is_active and user.is_staff)
    seated = (Q(seats__user_id=uid) | Q(substitutions__status=Substitution.Status.ACCEPTED,
                                        substitutions__outgoing_id=uid))
    rows = (Game.objects.exclude(board=None).annotate(
        gm_board_id=Subquery(Board.objects.filter(
            slug=Concat(Value("gm-"), OuterRef("board__slug"))).values("id")[:1]),
        named=Exists(Game.co_gms.through.objects.filter(game_id=OuterRef("pk"), user_id=uid)),
        played=Exists(Game.objects.filter(seated, pk=OuterRef("pk"))))
        .values_list("board_id", "gm_board_id", "graveyard_id", "gm_id", "named", "played"))
    governed: set[int] = set()
    owned: set[int] = set()
    for board_id, gm_board_id, graveyard_id, gm_id, named, played in rows:
        ids = {board_id} | {b for b in (gm_board_id, graveyard_id) if b}
        owned |= ids
        if staff and (gm_id == uid or named) and not played:
            governed |= ids
    return governed, owned


def draft_boards_hidden_from(user) -> QuerySet:
    """The boards of draft games that `user` does not run (messaging.rules hides them:
    registered in GamesConfig.ready): a draft game's board, threads and posting exist only for
    its GM and co-GMs until its sign-ups open. A draft game has no seats, so no one is excluded
    from running it by having played."""
    drafts = Game.objects.filter(status=Game.Status.DRAFT).exclude(board=None)
    if user is not None and user.is_authenticated and user.is_active and user.is_staff:
        drafts = drafts.exclude(gm_id=user.pk).exclude(co_gms=user.pk)
    return drafts.values("board_id")


def ever_held_seat(user: User | AnonymousUser | None, game: Game) -> bool:
    """Whether `user` holds a seat of `game` now or held one before (a replaced player)."""
    if user is None or not user.is_authenticated:
        return False
    return game.seats.filter(user=user).exists() or Substitution.objects.filter(
        game=game).filter(Q(outgoing=user) | Q(incoming=user)).exists()


def player_ids(game: Game) -> set[int]:
    """Ids of every user who holds or held a seat in `game` (present holders, everyone a
    replacement was opened for, everyone who took a seat over)."""
    ids = set(game.seats.exclude(user=None).values_list("user_id", flat=True))
    for pair in Substitution.objects.filter(game=game).values_list("outgoing_id",
                                                                   "incoming_id"):
        ids.update(i for i in pair if i is not None)
    return ids


def table_mates(user) -> QuerySet:
    """The users who hold or held a seat (as `ever_seated_ids` counts) in a running or
    paused game in which `user` holds or held one, its watchers, and the players of the
    running games `user` watches, `user` left out, as a query of user ids
    (messaging.rules asks this, as a subquery: registered in GamesConfig.ready). A general
    conversation of one of them is not `user`'s to answer as 神的使者."""
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    if user is None or not user.is_authenticated:
        return users.none().values("pk")
    accepted = Substitution.objects.filter(status=Substitution.Status.ACCEPTED)
    live = Game.objects.filter(
        Exists(Seat.objects.filter(game=OuterRef("pk"), user=user.pk))
        | Exists(accepted.filter(Q(outgoing=user.pk) | Q(incoming=user.pk),
                                 game=OuterRef("pk"))),
        status__in=(Game.Status.RUNNING, Game.Status.PAUSED)).values("pk")
    # Secrets cannot flow back (games.selectors.secrets): the watchers of those games and,
    # for a watcher, the players of the games it watches are table mates too, so neither
    # reads nor answers the other's general conversation in 神的使者's name.
    running = (Game.Status.RUNNING, Game.Status.PAUSED)
    watched = approved_watchers().filter(user=user.pk, game__status__in=running) \
        .values("game_id")
    return users.filter(
        Exists(Seat.objects.filter(user=OuterRef("pk"), game__in=live))
        | Exists(accepted.filter(Q(outgoing=OuterRef("pk")) | Q(incoming=OuterRef("pk")),
                                 game__in=live))
        | Exists(approved_watchers().filter(user=OuterRef("pk"), game__in=live))
        | Exists(Seat.objects.filter(user=OuterRef("pk"), game__in=watched))
    ).exclude(pk=user.pk).values("pk")
