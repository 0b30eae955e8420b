"""Watching a game (观战): who may follow its hidden play some phases behind, on the watch
page (games/web/watch.py, over games.selectors.watch), and the graveyard (墓地) beside it.

Whoever watches reads the game's secrets, so until it ends they write nothing its living
players can read, anywhere on the site (games.selectors.secrets, the one rule every writer
asks). Who may watch:
1. While the game runs (or is paused) and its GM let watchers in (`Game.watch_delay` > 0).
   Before the start there is nothing to watch; after the end the review shows everything to
   everyone.
2. A dead seat holder who chooses to, once they have nothing left to say to the living:
   a Classic player due last words watches only after giving them or once their window
   has closed (`owes_words`). Where the rule set lets the dead reply on the game's board
   (猫有n条命 §7.2, `DeadTalk.replies`), watching gives that up for the rest of the game,
   and the page says so before it is opened.
3. A signed-in outsider (holds no seat, never held one, does not run the game, is not
   signed up as a player or a substitute) only as the GM chose (`Game.outsiders`): not at
   all (the default: any account may be a living player's second one); by request, each
   approved by the GM from the console (`answer_watch_request`); or open, which for rule
   sets whose roles never change needs the GM's explicit acceptance of the risk. From then
   on they may not sign up for that game.
4. Nobody else: a living player, the game's GM or co-GMs (the console shows them all of it),
   a visitor who is not signed in.
5. Revival revokes: a seat that is alive again (the GM's rollback) stops watching at once
   (`end_watching`).

The graveyard is the board of the watchers: made when the game starts, readable while it
runs by its approved watchers and its GMs, nobody else (the dead who do not watch included;
games.selectors.watch.graveyards_hidden_from); by everyone once it is over. Nothing written
there reaches the living while the game runs: a notice about it needs the right to read it,
so a mention of a living player is delivered when the game ends (`deliver_graveyard_mentions`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from messaging import services as forum
from messaging.mentions import render_with_mentions
from messaging.models import Board, Notification, Post
from messaging.notifications import notify

from .. import rulesets
from ..models import Game, Seat, Signup, Watcher
from ..selectors import approved_watchers, ever_held_seat
from .kernel import GameError, access_changed, changed, lock_game, log_gm, require_gm, runs_game

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User
    from django.contrib.auth.models import AnonymousUser


def watch_refusal(game: Game, user: User | AnonymousUser | None) -> str | None:
    """Why `user` may not watch `game` (or ask to) now, or None (the module's rules 1-5). A
    user who watches already gets None while the game runs; a request that waits is
    checked in full (the GM's approval asks again)."""
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
    if seat is not None and seat.alive:
        return _("You play in this game: players watch only once they are out of it.")
    if approved_watchers().filter(game=game, user=user).exists():
        return None
    # A request that waits is checked again in full: the GM answers it later, when the
    # account may have signed up elsewhere or the GM may have closed the game to outsiders.
    elsewhere = elsewhere_refusal(game, user)
    if elsewhere:
        return elsewhere
    if seat is not None:
        if owes_words(game, seat):
            return _("You still have something to say to the living (your last words): "
                     "give them first, or let their time run out; then you may watch.")
        return None
    if ever_held_seat(user, game):
        return _("You held a seat in this game: only its dead players and outsiders watch.")
    if Signup.objects.filter(game=game, user=user, withdrawn_at=None).exists():
        return _("You are signed up for this game (as a player or a substitute): you may "
                 "still enter it, so you do not watch it.")
    return outsider_refusal(game)


def elsewhere_refusal(game: Game, user: User) -> str | None:
    """Why `user` may not start watching `game` because of another game, or None: a watcher
    writes nothing the living of `game` read, anywhere, so watching would silence them at a
    table where they still play (a living seat of another running game) or may soon (a
    sign-up for a game not over)."""
    live = (Game.Status.RUNNING, Game.Status.PAUSED)
    over = (Game.Status.FINISHED, Game.Status.ABORTED)
    if Game.objects.filter(Q(gm=user) | Q(co_gms=user)).exclude(status__in=over).exists():
        return _("You run a game that is not over: a GM speaks for their game where the "
                 "living of every game read, so a GM watches no game. Watch once your "
                 "games have ended.")
    if Seat.objects.filter(user=user, alive=True, game__status__in=live).exclude(
            game=game).exists():
        return _("You play in another running game: a watcher writes nothing the living "
                 "of this one can read, anywhere on the site, which would silence you at "
                 "your own table. Watch once your game has ended.")
    if Signup.objects.filter(user=user, withdrawn_at=None).exclude(game=game).exclude(
            game__status__in=(Game.Status.FINISHED, Game.Status.ABORTED)).exclude(
            game__seats__user=user).exists():
        return _("You are signed up for another game: a watcher writes nothing the living "
                 "of this one can read, anywhere on the site, which would silence you in "
                 "that game. Withdraw first, or watch after this game.")
    return None


def outsider_refusal(game: Game) -> str | None:
    """Why an outsider (a signed-in account with no seat) may not watch `game` nor ask to,
    by the GM's choice (`Game.outsiders`), or None."""
    if game.outsiders == Game.Outsiders.OFF:
        return _("The GM of this game does not let outsiders watch it: any account could "
                 "be a living player's second one.")
    if game.outsiders == Game.Outsiders.OPEN and rulesets.get(game.ruleset).roles_fixed \
            and not game.watch_risk_accepted:
        return _("In this rule set the roles never change, so a watcher would know every "
                 "hand until the end: outsiders watch this game only once it is over.")
    return None


def owes_words(game: Game, seat) -> bool:
    """Whether dead `seat` still has something to say to the living (`RuleSet.owes_words`:
    Classic's last words, from the death until their phase ends). Such a seat gets neither
    the watch view nor the graveyard until it has spoken or its window has closed."""
    if not game.state:
        return False
    return rulesets.engine(game.ruleset).owes_words(game.state, seat.number)


def gives_up_dead_talk(game: Game, user: User | AnonymousUser | None) -> bool:
    """Whether opening the watch page costs `user` the right to reply on the game's board:
    a dead seat holder of a rule set whose dead reply there, who does not watch yet."""
    if not rulesets.get(game.ruleset).dead_talk.replies:
        return False
    seat = game.seats.filter(user=user, alive=False).first() if user is not None \
        and user.is_authenticated else None
    return seat is not None and not Watcher.objects.filter(game=game, user=user).exists()


def watch(*, game_id: int, user: User | AnonymousUser | None) -> Watcher:
    """`user` watches `game_id` from now on, or asks to (their row, made once; a second call
    returns it): a dead player, and an outsider of a game open to outsiders, are approved at
    once; an outsider of a game "by request" waits for the GM (`approve_watcher`). GameError
    with the sentence of `watch_refusal` when they may not."""
    with transaction.atomic():
        game = lock_game(game_id)
        if game is None:
            raise GameError(_("This game does not exist."), code="not_found")
        refusal = watch_refusal(game, user)
        if refusal:
            raise GameError(refusal, code="forbidden")
        seat = game.seats.filter(user=user).first()
        at_once = seat is not None or game.outsiders == Game.Outsiders.OPEN
        watcher, created = Watcher.objects.get_or_create(
            game=game, user=user,
            defaults={"seat": seat, "approved_at": timezone.now() if at_once else None})
        graveyard_board(game)  # a game started before there were graveyards
        opened = not created and watcher.approved_at is None and at_once
        if opened:  # asked while the game was "by request"; the GM has opened it since
            watcher.approved_at = timezone.now()
            watcher.save(update_fields=["approved_at"])
        if created or opened:
            changed(game)
            if watcher.approved_at is not None:
                access_changed([user.pk])
    return watcher


def watches(game: Game, user: User | AnonymousUser | None) -> bool:
    """Whether `user` watches `game` (chose to and was let in)."""
    return bool(user is not None and user.is_authenticated
                and approved_watchers().filter(game=game, user=user).exists())


def waits_to_watch(game: Game, user: User | AnonymousUser | None) -> bool:
    """Whether `user` asked to watch `game` and the GM has not answered yet."""
    return bool(user is not None and user.is_authenticated
                and Watcher.objects.filter(game=game, user=user, approved_at=None).exists())


def answer_watch_request(*, game_id: int, gm, watcher_id: int, approve: bool) -> None:
    """The GM lets an outsider who asked watch `game_id`, or turns them down (their request
    is deleted; they may ask again). GameError when `gm` does not run the game or the
    request is no longer waiting."""
    with transaction.atomic():
        game = require_gm(game_id, gm)
        watcher = Watcher.objects.filter(game=game, pk=watcher_id, approved_at=None).first()
        if watcher is None:
            raise GameError(_("This request to watch is no longer waiting."), code="gone")
        if approve:
            refusal = watch_refusal(game, watcher.user)
            if refusal:
                raise GameError(refusal, code="forbidden")
            watcher.approved_at = timezone.now()
            watcher.save(update_fields=["approved_at"])
            access_changed([watcher.user_id])
        else:
            watcher.delete()
        log_gm(game, gm, "watcher_approved" if approve else "watcher_refused",
               {"user": watcher.user_id})
        changed(game)


def end_watching(game: Game, user_ids: list[int]) -> int:
    """Revival revokes: the users of seats that are alive again (a rollback) stop watching
    `game` at once: their rows go, so the watch view, the graveyard (its pages, search,
    notices) and the live feed refuse them from now on, and their open streams are closed
    so the browser asks again. What they wrote in the graveyard stays there. Precondition:
    the caller holds the game lock. Returns how many stopped."""
    if not user_ids:
        return 0
    removed, _by_kind = Watcher.objects.filter(game=game, user_id__in=user_ids).delete()
    if removed:
        changed(game)
        access_changed(user_ids)
    return removed


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
