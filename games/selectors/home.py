"""What a game's home page reads: on every visit the key row (the version its kept parts are
keyed by, and the visitor's seat), and on a miss the game's whole row."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, Q, Subquery

from ..models import Game, Seat, Signup, Substitution

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User
    from django.contrib.auth.models import AnonymousUser

# What the key row reads of the game (not its state: the parts kept under its version show
# that); the rest is deferred.
HOME_FIELDS = ("id", "name", "status", "created", "page_version", "steps", "checkin_hours",
               "deadline", "watch_delay", "outsiders", "graveyard", "ruleset")


def home_row(pk, user: User | AnonymousUser | None) -> Game | None:
    """What every visit of game `pk`'s home page reads, in one query: the game's
    HOME_FIELDS (`page_version` keys the kept parts), all else deferred; for a signed-in
    `user` also `viewer_seat` (their seat's number, None: no seat), `viewer_alive` (whether
    that seat lives), `viewer_checked_in_at` (that seat's check-in) and `viewer_signup_role` (their sign-up not withdrawn, None:
    none); and `viewer_runs`: what `is_gm(user, game)` answers (False without asking, for
    anyone but an active staff account). None: no such game."""
    try:
        pk = int(pk)
    except (TypeError, ValueError):
        return None
    qs = Game.objects.filter(pk=pk).only(*HOME_FIELDS)
    if user is not None and user.is_authenticated:
        seat = Seat.objects.filter(game=OuterRef("pk"), user_id=user.pk)
        qs = qs.annotate(
            viewer_seat=Subquery(seat.values("number")[:1]),
            viewer_alive=Subquery(seat.values("alive")[:1]),
            viewer_checked_in_at=Subquery(seat.values("checked_in_at")[:1]),
            viewer_signup_role=Subquery(Signup.objects.filter(
                game=OuterRef("pk"), user_id=user.pk, withdrawn_at=None).values("role")[:1]))
        if user.is_active and user.is_staff:
            qs = qs.annotate(viewer_runs=ExpressionWrapper(_runs(user.pk),
                                                           output_field=BooleanField()))
    game = qs.first()
    if game is not None and not hasattr(game, "viewer_runs"):
        game.viewer_runs = False
    return game


def _runs(uid: int) -> Q:
    """`is_gm` as a condition on the game row: named GM or co-GM, and never seated in it (no
    seat now, no accepted substitution either way)."""
    named = Q(gm_id=uid) | Exists(Game.co_gms.through.objects.filter(
        game_id=OuterRef("pk"), user_id=uid))
    seated = Exists(Seat.objects.filter(game_id=OuterRef("pk"), user_id=uid))
    handed = Exists(Substitution.objects.filter(
        Q(outgoing_id=uid) | Q(incoming_id=uid), game_id=OuterRef("pk"),
        status=Substitution.Status.ACCEPTED))
    return named & ~seated & ~handed


def game_for_home(pk) -> Game | None:
    """Game `pk` with its board and current phase: what the home page's kept parts are
    rendered from, on a miss."""
    return Game.objects.select_related("board", "current_phase").filter(pk=pk).first()
