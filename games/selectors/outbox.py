"""The development outbox: which outgoing emails a viewer may read."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Q
from django.db.models.functions import Lower

from ..models import Game, Seat, Substitution
from .seats import games_run_by

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User


def _places(*, users: set[int] | None = None, games: set[int] | None = None
            ) -> set[tuple[int, int]]:
    """(user id, game id) for every seat held now or through an accepted substitution (either
    way), and every GM and co-GM chair, of the `users` or in the `games` given."""
    def where(user_field: str, game_field: str = "game_id") -> Q:
        q = Q()
        if users is not None:
            q &= Q(**{f"{user_field}__in": users})
        if games is not None:
            q &= Q(**{f"{game_field}__in": games})
        return q

    pairs = set(Seat.objects.exclude(user=None).filter(where("user_id"))
                .values_list("user_id", "game_id"))
    accepted = Substitution.objects.filter(status=Substitution.Status.ACCEPTED)
    for field in ("outgoing_id", "incoming_id"):
        pairs |= set(accepted.exclude(**{field: None}).filter(where(field))
                     .values_list(field, "game_id"))
    pairs |= set(Game.objects.exclude(gm=None).filter(where("gm_id", "id"))
                 .values_list("gm_id", "id"))
    pairs |= set(Game.co_gms.through.objects.filter(where("user_id"))
                 .values_list("user_id", "game_id"))
    return pairs


def recent_outbox(viewer: User, limit: int = 50):
    """The newest outgoing emails `viewer` may read (the development outbox page), newest
    first:

    1. the emails to `viewer` (to their account; an email to no account, to one of their
       verified addresses);
    2. the notifications (not "account" mail: sign-in, verification and password-reset
       links are their addressee's alone) to a person whose every game, played or run, is
       one `viewer` runs (`games_run_by`: GM or co-GM, never seated). A row names its
       reader, not its game, so the emails of a person who also plays or runs a game
       `viewer` does not run are read by that person only: a viewer seated in a game never
       reads what it sends to the others.
    """
    from allauth.account.models import EmailAddress

    from ..mail import ACCOUNT
    from ..models import OutboxEmail

    if viewer is None or not viewer.is_authenticated:
        return []
    addresses = [a.lower() for a in EmailAddress.objects.filter(
        user=viewer, verified=True).values_list("email", flat=True)]
    own = Q(user_id=viewer.pk)
    if addresses:
        own |= Q(user=None, to_lower__in=addresses)
    run = {g.pk for g in games_run_by(viewer)}
    people = {uid for uid, _g in _places(games=run)} - {viewer.pk}
    elsewhere = {uid for uid, gid in _places(users=people) if gid not in run}
    theirs = ~Q(kind=ACCOUNT) & Q(user_id__in=people - elsewhere)
    return list(OutboxEmail.objects.annotate(to_lower=Lower("to")).filter(own | theirs)
                .order_by("-created", "-id")[:limit])
