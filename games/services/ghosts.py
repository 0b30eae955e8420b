"""What the dead write on a running game's board, by the rule set's dead-talk policy
(games/rulesets.py `DeadTalk`):

- 猫有n条命 (seed 002 §7.2, 诈尸): a dead player's new thread is moved to the game's GM board
  at once and restored when the game ends; a dead player's reply is kept short.
- Classic and gold: the dead have left the game (seed 001 §3.14) and write nothing on its
  board; Classic's last words are left through the action page in the last-words phase.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils import timezone
from django.utils.translation import gettext as _

from messaging import services as forum
from messaging.models import Board, Thread

from .. import rulesets
from ..models import Game, MovedThread, Watcher
from ..selectors import dead_seat

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User
    from django.contrib.auth.models import AnonymousUser


def dead_talk(game: Game) -> rulesets.DeadTalk:
    """The dead-talk policy of `game`'s rule set."""
    return rulesets.get(game.ruleset).dead_talk


def gm_board(game: Game) -> Board:
    return forum.board_with_slug(slug=f"gm-{game.board.slug}"[:60], kind=Board.Kind.GM,
                                 title=_("GM board: %(name)s") % {"name": game.name})


def move_ghost_thread(thread: Thread) -> MovedThread | None:
    """A dead player's new thread goes to the GM board until the game ends."""
    game = Game.objects.filter(board=thread.board_id).first()
    if game is None or game.status not in (Game.Status.RUNNING, Game.Status.PAUSED):
        return None
    seat = dead_seat(game, thread.author)
    if seat is None or dead_talk(game).threads != rulesets.DeadTalk.MOVE_TO_GM_BOARD:
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


def dead_post_refusal(game: Game, user: User | AnonymousUser | None, *,
                      thread: Thread | None, body: str) -> str | None:
    """Why `user`, if a dead seat of `game`, may not write this on the game's board, or None.

    A dead player who watches the game (services.watching) writes nothing there. Else, with
    `thread` None for a new thread, by the rule set's `DeadTalk`:
    1. a new thread: allowed when it is moved to the GM board (`move_ghost_thread` moves it
       once written), else refused;
    2. a reply: refused when the dead may not reply, else refused only when longer than the
       game's `ghost_reply_max_chars` (an empty body asks whether the reply box is shown).
    """
    if dead_seat(game, user) is None:
        return None
    if Watcher.objects.filter(game=game, user=user).exists():
        return _("You watch this game: a dead player who watches writes nothing on its "
                 "board until it ends.")
    policy = dead_talk(game)
    if thread is None:
        if policy.threads == rulesets.DeadTalk.MOVE_TO_GM_BOARD:
            return None
        return _("You are out of this game: the dead write nothing on its board until the "
                 "game ends.")
    if not policy.replies:
        return _("You are out of this game: the dead write nothing on its board until the "
                 "game ends.")
    if len(body) > game.ghost_reply_max_chars:
        return _("The dead may only reply briefly: at most %(n)d characters (§7.2).") % {
            "n": game.ghost_reply_max_chars}
    return None
