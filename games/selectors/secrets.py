"""Secrets that cannot flow back: the one rule every writer the living read asks.

While a game runs (or is paused), an account that can read any of its secrets writes nothing
the game's living players can read, through any path the site offers. A secret is what the
engine's views hide from a living seat; what an account knows of its own seat does not count
(a living player knows their own hand).

Who reads a running game's secrets beyond their own seat (`secret_games`):
1. its approved watchers (games.models.Watcher): a dead player who chose to watch, an
   outsider the GM let in; the watch view and the graveyard (墓地) are theirs;
2. a player a substitute replaced: they knew a hand that a living seat still holds.
A watcher's request that waits for the GM reads nothing yet. The game's GM and co-GMs read
everything and speak for the game (announcements, the story): the rule binds everyone else;
神的使者 writes only what the services write.

What such an account may still write (`write_refusal`): posts on the graveyard of such a
game, when no living player of any game whose secrets it reads may read that graveyard;
its private conversations with 神的使者 (read by the GMs only, never the living). Everything
else the living read is refused with a sentence that says why, and nothing is stored: posts
and thread titles on every other board (the lobby, every game's board), reports, a seat's
public steps (last words, manifestos), the display name (`rename_refusal`), and every
writer added later, which asks `write_refusal` too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils.translation import gettext as _

from ..models import Game, Seat, Substitution, Watcher

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User
    from django.contrib.auth.models import AnonymousUser

    from messaging.models import Board

LIVE = (Game.Status.RUNNING, Game.Status.PAUSED)


def approved_watchers() -> QuerySet:
    """Watcher rows that read something: approved ones (a request waiting for the GM reads
    nothing)."""
    return Watcher.objects.exclude(approved_at=None)


def secret_games(user: User | AnonymousUser | None) -> QuerySet:
    """The running or paused games whose secrets `user` reads beyond their own seat (the
    module's list)."""
    if user is None or not user.is_authenticated:
        return Game.objects.none()
    uid = user.pk
    watching = Exists(approved_watchers().filter(game=OuterRef("pk"), user_id=uid))
    replaced = Exists(Substitution.objects.filter(
        game=OuterRef("pk"), outgoing_id=uid, status=Substitution.Status.ACCEPTED)) \
        & ~Exists(Seat.objects.filter(game=OuterRef("pk"), user_id=uid))
    return Game.objects.filter(status__in=LIVE).filter(watching | replaced)


def reads_secrets(user: User | AnonymousUser | None, game: Game) -> bool:
    """Whether `user` reads secrets of `game` beyond their own seat (while it runs)."""
    return secret_games(user).filter(pk=game.pk).exists()


def _living_read_graveyard(board_id: int, game_ids: list[int]) -> bool:
    """Whether a living player of one of `game_ids` may read the graveyard `board_id` (as
    its watcher or its GM: games.selectors.watch.graveyards_hidden_from)."""
    owner = Game.objects.filter(graveyard_id=board_id).first()
    if owner is None:
        return True
    readers = Q(user__in=approved_watchers().filter(game=owner).values("user_id")) \
        | Q(user_id=owner.gm_id) | Q(user__in=owner.co_gms.all())
    return Seat.objects.filter(readers, game_id__in=game_ids, alive=True).exists()


def write_refusal(user: User | AnonymousUser | None, *, board: Board | None = None) -> str | None:
    """Why `user` may not write something the living may read, or None when they may.

    `board`: where it is written (a post, a thread, a report of a post there); None for
    anything else the living read (a display name, a seat's public step). Allowed on a
    board only when it is the graveyard of a game whose secrets `user` reads and no living
    player of any such game reads it.
    """
    games = list(secret_games(user).values_list("pk", "name", "graveyard_id"))
    if not games:
        return None
    ids = [pk for pk, _name, _graveyard in games]
    if board is not None and board.pk in {g for _pk, _name, g in games} \
            and not _living_read_graveyard(board.pk, ids):
        return None
    return _("You can read secrets of the running game “%(name)s” (you watch it, or left "
             "its table): until it ends you write nothing its living players can read, "
             "here or anywhere else on the site. Its graveyard (墓地) is where you may "
             "talk.") % {"name": games[0][1]}


def rename_refusal(user: User | AnonymousUser | None) -> str | None:
    """Why `user` may not change their display name now, or None: it shows on everything
    they wrote before, where the living read (`write_refusal`)."""
    if secret_games(user).exists():
        return _("You can read secrets of a running game (you watch it, or left its "
                 "table): your display name stays as it is until that game ends, since "
                 "the living read it on your posts.")
    return None
