"""The community around a game: substitutes waiting, posts in the last 48 hours (§9.1.6), activity
warnings, a seat's last activity."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db.models import Count, F, Max, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import display_name
from messaging.models import Message, Post

from ..models import ActivityWarning, Game, Seat, Signup
from .seats import player_ids

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User
    from django.contrib.auth.models import AnonymousUser


def waiting_substitutes(game: Game) -> QuerySet[Signup]:
    """Substitute sign-ups who may still take a seat: nobody who holds or ever held a seat of
    `game`."""
    return (Signup.objects.filter(game=game, role=Signup.Role.SUBSTITUTE, withdrawn_at=None)
            .exclude(user_id__in=player_ids(game)).select_related("user"))


# §9.1.6: a seat that posts fewer than `Game.min_posts_48h` times in 48 hours may be ruled
# out. What counts is every post of the seat's player on the game's board (any thread):
# the same count for the warning (services.community.check_activity) and the game home.
POSTS_WINDOW = dt.timedelta(hours=48)


def posts_in_window(board_id: int, user_ids, *, now: dt.datetime | None = None
                    ) -> dict[int, int]:
    """{user id: their posts on board `board_id` in the `POSTS_WINDOW` before `now`} for
    `user_ids` (a user with none is left out), in one query."""
    now = now or timezone.now()
    rows = (Post.objects.filter(thread__board_id=board_id, author_id__in=list(user_ids),
                                created_at__gte=now - POSTS_WINDOW)
            .order_by().values("author_id").annotate(n=Count("pk")))
    return {row["author_id"]: row["n"] for row in rows}


@dataclass(frozen=True)
class SeatPosts:
    label: int      # the seat's number as shown (from 1)
    name: str       # the seat as a sentence names it: "3号阿猫"
    posts: int      # their posts on the game's board in the last 48 hours
    short: bool     # fewer than the game's minimum (§9.1.6)


def seat_post_counts(game_id: int, *, now: dt.datetime | None = None
                     ) -> tuple[list[SeatPosts], int, bool]:
    """([each living seat with a player and their posts in the last 48 hours (as
    `posts_in_window` counts them)], the game's minimum, whether the game has run 48 hours
    (before that no seat can fall short)), in one query."""
    now = now or timezone.now()
    posts = (Post.objects.filter(thread__board_id=OuterRef("game__board_id"),
                                 author_id=OuterRef("user_id"),
                                 created_at__gte=now - POSTS_WINDOW)
             .order_by().values("author_id").annotate(n=Count("pk")).values("n"))
    seats = list(Seat.objects.filter(game_id=game_id, alive=True).exclude(user=None)
                 .select_related("user__profile")
                 .annotate(posts=Coalesce(Subquery(posts), 0),
                           minimum=F("game__min_posts_48h"), started=F("game__started_at"))
                 .order_by("number"))
    if not seats:
        return [], 0, False
    minimum, started = seats[0].minimum, seats[0].started
    full = started is not None and now - started >= POSTS_WINDOW
    return [SeatPosts(label=s.number + 1, posts=s.posts, short=full and s.posts < minimum,
                      name=_("%(name)s (seat %(n)d)") % {"name": s.name or display_name(s.user),
                                                         "n": s.number + 1})
            for s in seats], minimum, full


def last_activity(game: Game, user: User | AnonymousUser | None) -> dt.datetime | None:
    """The user's last post on the game's board or message to 神的使者 in it."""
    if user is None:
        return None
    post = Post.objects.filter(thread__board=game.board, author=user).aggregate(
        t=Max("created_at"))["t"]
    message = Message.objects.filter(conversation__board=game.board, sender=user).aggregate(
        t=Max("created_at"))["t"]
    return max([t for t in (post, message) if t is not None], default=None)


def dead_seat(game: Game, user: User | AnonymousUser | None) -> Seat | None:
    return game.seats.filter(user=user, alive=False).first() if user else None


def open_warnings(game: Game) -> QuerySet[ActivityWarning]:
    return ActivityWarning.objects.filter(game=game, resolved_at=None).select_related(
        "seat__user__profile").order_by("seat__number")
