"""Watching a game (观战): who may follow its hidden play some phases behind, on the watch
page (games/web/watch.py, over games.selectors.watch).

1. While the game runs (or is paused) and its GM let watchers in (`Game.watch_delay` > 0).
   Before the start there is nothing to watch; after the end the review shows everything to
   everyone.
2. A dead seat holder, from their death on. Where the rule set lets the dead reply on the
   game's board (猫有n条命 §7.2, `DeadTalk.replies`), the first opening of the page gives
   that up for the rest of the game, and the page says so before it is opened.
3. A signed-in user who holds no seat, never held one, does not run the game and is not
   signed up for it (as a player or a substitute: a waiting substitute may still enter the
   game, so never watches). They choose to watch, and from then on may not sign up.
4. Nobody else: a living player, the game's GM or co-GMs (the console shows them all of it),
   a visitor who is not signed in.

The graveyard (墓地) is the board of the dead and the watchers: made when the game starts,
readable while it runs by its watchers, its GMs and, where the dead write nothing on the
game's board, its dead players (a dead 猫有n条命 player reads it once they watch, which ends
their §7.2 replies), nobody else (games.selectors.watch.graveyards_hidden_from); by everyone
once it is over. Nothing written
there reaches the living while the game runs: a notice about it needs the right to read it,
so a mention of a living player is delivered when the game ends (`deliver_graveyard_mentions`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction
from django.utils.translation import gettext as _

from messaging import services as forum
from messaging.mentions import render_with_mentions
from messaging.models import Board, Notification, Post
from messaging.notifications import notify

from .. import rulesets
from ..models import Game, Signup, Watcher
from ..selectors import ever_held_seat
from .kernel import GameError, lock_game, runs_game

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User
    from django.contrib.auth.models import AnonymousUser


def watch_refusal(game: Game, user: User | AnonymousUser | None) -> str | None:
    """Why `user` may not watch `game` now, or None (the module's rules 1-4). A user who
    watches already gets None while the game runs."""
    if user is None or not user.is_authenticated:
        return _("Sign in to watch a game.")
    if game.status not in (Game.Status.RUNNING, Game.Status.PAUSED):
        if game.is_over:
            return _("The game is over: its review shows everything to everyone.")
        return _("The game has not started: there is nothing to watch yet.")
    if game.watch_delay == Game.WatchDelay.NONE:
        return _("The GM of this game lets nobody watch it before the end.")
    if runs_game(game, user):
        return _("You run this game: its console shows you everything.")
    seat = game.seats.filter(user=user).first()
    if seat is not None:
        if seat.alive:
            return _("You play in this game: players watch only once they are out of it.")
        return None
    if Watcher.objects.filter(game=game, user=user).exists():
        return None
    if ever_held_seat(user, game):
        return _("You held a seat in this game: only its dead players and outsiders watch.")
    if Signup.objects.filter(game=game, user=user, withdrawn_at=None).exists():
        return _("You are signed up for this game (as a player or a substitute): you may "
                 "still enter it, so you do not watch it.")
    return None


def gives_up_dead_talk(game: Game, user: User | AnonymousUser | None) -> bool:
    """Whether opening the watch page costs `user` the right to reply on the game's board:
    a dead seat holder of a rule set whose dead reply there, who does not watch yet."""
    if not rulesets.get(game.ruleset).dead_talk.replies:
        return False
    seat = game.seats.filter(user=user, alive=False).first() if user is not None \
        and user.is_authenticated else None
    return seat is not None and not Watcher.objects.filter(game=game, user=user).exists()


def watch(*, game_id: int, user: User | AnonymousUser | None) -> Watcher:
    """`user` watches `game_id` from now on (their row, made once; a second call returns it).
    GameError with the sentence of `watch_refusal` when they may not."""
    with transaction.atomic():
        game = lock_game(game_id)
        if game is None:
            raise GameError(_("This game does not exist."), code="not_found")
        refusal = watch_refusal(game, user)
        if refusal:
            raise GameError(refusal, code="forbidden")
        seat = game.seats.filter(user=user).first()
        watcher, _created = Watcher.objects.get_or_create(
            game=game, user=user, defaults={"seat": seat})
        graveyard_board(game)  # a game started before there were graveyards
    return watcher


def watches(game: Game, user: User | AnonymousUser | None) -> bool:
    """Whether `user` watches `game` (has chosen to, or opened the page as a dead player)."""
    return bool(user is not None and user.is_authenticated
                and Watcher.objects.filter(game=game, user=user).exists())


def graveyard_board(game: Game) -> Board:
    """`game`'s graveyard board, made on first use (the start of the game). Precondition:
    the caller holds the game lock, `game` being the row it locked."""
    if game.graveyard_id is None:
        game.graveyard = forum.create_board(
            slug=f"grave-{game.board.slug}"[:60], kind=Board.Kind.GAME,
            title=_("Graveyard: %(name)s") % {"name": game.name})
        Game.objects.filter(pk=game.pk).update(graveyard=game.graveyard)
    return game.graveyard


def deliver_graveyard_mentions(game: Game) -> int:
    """Once `game` is over (its graveyard open to all): a notice for each mention, in the
    graveyard's posts, of someone who could not read it when it was written (a living
    player); returns how many. Precondition: the game is over, under the caller's lock."""
    if game.graveyard_id is None:
        return 0
    # Who may read the graveyard is read from the stored game: store its end first (the
    # caller saves the whole row after, with the same status).
    Game.objects.filter(pk=game.pk).update(status=game.status)
    made = 0
    posts = Post.objects.filter(thread__board_id=game.graveyard_id, withdrawn_at=None) \
        .select_related("thread", "author").order_by("pk")
    for post in posts:
        _html, mentioned = render_with_mentions(post.body)
        told = set(Notification.objects.filter(post=post).values_list("user_id", flat=True))
        for user in mentioned:
            if user.pk not in told and notify(user=user, kind=Notification.Kind.MENTION, actor=post.author,
                                              thread=post.thread, post=post) is not None:
                made += 1
    return made
