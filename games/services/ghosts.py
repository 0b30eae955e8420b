"""Ghost posts (诈尸, seed 002 §7.2): a dead player's new thread is moved to the game's GM
board at once and restored when the game ends; a dead player's reply is kept short."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils import timezone
from django.utils.translation import gettext as _

from messaging import services as forum
from messaging.models import Board, Thread

from ..models import Game, MovedThread
from ..selectors import dead_seat

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User
    from django.contrib.auth.models import AnonymousUser


def gm_board(game: Game) -> Board:
    board, _created = Board.objects.get_or_create(
        slug=f"gm-{game.board.slug}"[:60],
        defaults={"kind": Board.Kind.GM, "title": _("GM board: %(name)s") % {"name": game.name}})
    return board


def move_ghost_thread(thread: Thread) -> MovedThread | None:
    """A dead player's new thread goes to the GM board until the game ends."""
    game = Game.objects.filter(board=thread.board_id).first()
    if game is None or game.status not in (Game.Status.RUNNING, Game.Status.PAUSED):
        return None
    seat = dead_seat(game, thread.author)
    if seat is None:
        return None
    from_board = thread.board
    forum.move_thread(thread=thread, board=gm_board(game))
    moved = MovedThread.objects.create(thread=thread, game=game, from_board=from_board)
    if seat.conversation is not None:
        forum.send_as_messenger(conversation=seat.conversation, body=_(
            "Your thread “%(title)s” was moved to the GM board: the dead may only "
            "reply briefly until the game ends (§7.2). It comes back after the game.") % {
            "title": thread.title})
    return moved


def restore_ghost_threads(game: Game) -> int:
    n = 0
    for moved in MovedThread.objects.filter(game=game, restored_at=None).select_related(
            "thread", "from_board"):
        forum.move_thread(thread=moved.thread, board=moved.from_board)
        moved.restored_at = timezone.now()
        moved.save(update_fields=["restored_at"])
        n += 1
    return n


def ghost_reply_refusal(game: Game, user: User | AnonymousUser | None, body: str) -> str | None:
    if dead_seat(game, user) is None:
        return None
    if len(body) > game.ghost_reply_max_chars:
        return _("The dead may only reply briefly: at most %(n)d characters (§7.2).") % {
            "n": game.ghost_reply_max_chars}
    return None
