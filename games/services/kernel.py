"""The kernel every writer shares (Zulip's zerver/actions share theirs the same way): the
refusal type, the clock, the game lock, the GM check, the GM's audit log, and how people
are told (announcements, each seat's private results).

Every write follows one pattern (lock, re-check, write, notify on commit):
1. `transaction.atomic()` and `lock_game()` (`select_for_update()` on the game row);
2. re-check status, phase and deadline inside the lock (what the player saw may be stale);
3. hand the step to the rule set's pure engine, which accepts it or refuses with a reason;
4. store the step, its events and the new state snapshot in the same transaction;
5. move the game's page version (`changed`), which publishes the change on commit
   (config/feed.py), and queue emails with `transaction.on_commit` (games.mail), so nothing
   is sent or published for a rollback.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from accounts.models import display_name, messenger_user
from config import feed
from messaging import services as forum
from messaging.models import Message, Post, Thread
from messaging.notifications import Kind, notify_many

from .. import rulesets
from ..engine.base import RuleSet
from ..engine.reasons import GM_REASONS
from ..mail import user_locale
from ..models import (
    Announcement,
    Event,
    Game,
    Phase,
    ReminderLook,
    StepMessage,
    StepPost,
    WithdrawnThread,
)
from ..notifications import notify_announcement, notify_private_result
from ..presenters import describe, round_thread_kinds, round_thread_title
from ..selectors import is_gm, seat_names, write_refusal

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User
    from django.contrib.auth.models import AnonymousUser

    from ..models import Seat


class GameError(Exception):
    """A refused request, with a sentence to show the user. Nothing was stored."""

    def __init__(self, message: str, code: str = "refused") -> None:
        super().__init__(str(message))
        self.message = message
        self.code = code


def now(value: dt.datetime | None = None) -> dt.datetime:
    """`value`, or the current time (services take `now` so tests can set the clock)."""
    return value or timezone.now()


def ruleset_of(game: Game) -> RuleSet:
    """The engine of the game's rule set (KeyError for a name the table does not hold)."""
    return rulesets.engine(game.ruleset)


def lock_game(game_id: int, *, skip_locked: bool = False) -> Game | None:
    """The game row, locked for this transaction (None if another holds it and skip_locked).

    Precondition: inside `transaction.atomic()`.
    """
    return (Game.objects.select_for_update(skip_locked=skip_locked, of=("self",))
            .select_related("current_phase").filter(pk=game_id).first())


def page_facts(game: Game) -> tuple:
    """What `changed` compares to name a change: (status, current phase, deadline, the
    choices' close). Read it right after locking the game."""
    return (game.status, game.current_phase_id, game.deadline, game.choices_close_at)


def changed(game: Game, *, since: tuple | None = None, what: str = "",
            saved_after: bool = False) -> None:
    """What the game's pages show has changed: move `Game.page_version` by one in the
    caller's transaction and publish it on commit (`feed.changed("game", ...)`).

    `what`: "phase" when the status or the phase changed, "deadline" when only the deadline
    (or the choices' close) moved, "" for anything else; given `since` (`page_facts` read
    at the lock) it is worked out from what moved. A phase or a deadline that moved also
    reschedules the reminder sweep's look at the game (ReminderLook, REMINDER_MAX_HOURS
    before the new deadline; none for a game that does not run).

    Precondition: the caller holds the game lock and `game` is the row it locked, so its
    `page_version` is the stored one; a `game.save()` after this writes the same value, so a
    caller that saves the whole row next passes `saved_after` and that save writes the new
    version instead of a statement of its own. Every writer of `page_version` holds that lock: the version only ever goes up, and a
    page kept under a version is never shown for another state of the game.
    """
    if since is not None and not what:
        if since[:2] != (game.status, game.current_phase_id):
            what = "phase"
        elif since[2:] != (game.deadline, game.choices_close_at):
            what = "deadline"
    game.page_version += 1
    if not saved_after:
        Game.objects.filter(pk=game.pk).update(page_version=game.page_version)
    if what in ("phase", "deadline"):
        ReminderLook.schedule({game.pk: game.deadline if game.status == Game.Status.RUNNING
                               else None})
    feed.changed("game", game.pk, game.page_version, what=what)


def access_changed(user_ids) -> None:
    """What these users may read has changed (they stopped or started watching a game): on
    commit the feed gives each a new access version, so the subscription tokens their pages
    hold no longer open a stream, and their open streams end with `renew`: the page fetches
    itself again for a new token, minted through the page's own checks (config/live_token.py,
    config/live_view.py), so a channel they lost carries nothing more to them."""
    for uid in user_ids:
        feed.changed("user", uid, 0, what="access")


def runs_game(game: Game, user: User | AnonymousUser | None) -> bool:
    """Whether `user` is named `game`'s GM or one of its co-GMs (staff or not: the name alone
    keeps them out of the seats)."""
    if user is None or not user.is_authenticated:
        return False
    return game.gm_id == user.pk or game.co_gms.filter(pk=user.pk).exists()


def require_gm(game_id: int, gm: User | None) -> Game:
    """The game row, locked, if `gm` runs this game (`is_gm`); else a GameError.

    Precondition: inside `transaction.atomic()`.
    """
    if gm is None or not gm.is_authenticated or not gm.is_staff:
        raise GameError(_("Only a game master may do this."), code="forbidden")
    game = lock_game(game_id)
    if game is None:
        raise GameError(_("This game does not exist."), code="not_found")
    if not is_gm(gm, game):
        raise GameError(_("Only this game's game master may do this."), code="forbidden")
    # A GM speaks for their game where the living of every game read (its board, the
    # lobby): whoever reads another running game's secrets acts as no game's GM until that
    # game ends (games.selectors.secrets).
    refusal = write_refusal(gm)
    if refusal:
        raise GameError(refusal, code="forbidden")
    return game


def log_gm(game: Game, gm: User | None, what: str, details: dict) -> None:
    """Every GM act goes into the event log, visible to the GM only (and the log lines,
    with the game id)."""
    log.info("gm act %s by %s: %s", what, gm.pk if gm else "system", details,
             extra={"game_id": game.pk})
    Event.objects.create(game=game, seq=None, phase=game.current_phase, kind=f"gm_{what}",
                         public=False, audience="",
                         data=dict(details, gm=display_name(gm) if gm else "system"),
                         because=[GM_REASONS("gm_action", act=what)])


def announce(game: Game, phase: Phase | None, title: str, intro: str, *, events: list[dict],
             force_publish: bool = False, outro: str = "",
             step: int | None = None) -> Announcement | None:
    """Draft the public announcement of `events`; post it unless the GM holds drafts.

    `step` is the accepted step (Action.seq) whose results these are, so that a rollback of
    that step can mark the announcement withdrawn (games/services/rollback.py).
    Precondition: the caller holds the game lock.
    """
    names = seat_names(game)
    public = [e for e in events if e["visibility"]["public"]]
    in_round = round_thread_kinds(game.ruleset)
    if in_round and any(e["kind"] in in_round for e in public):
        post_in_round_thread(game, [e for e in public if e["kind"] in in_round], names)
        public = [e for e in public if e["kind"] not in in_round]
    lines = [intro] if intro else []
    lines += [describe(game.ruleset, e, names) for e in public]
    if outro:
        lines.append(outro)
    if not lines:
        return None
    ann = Announcement.objects.create(game=game, phase=phase, title=title[:120],
                                      body="\n\n".join(lines), step_seq=step)
    if force_publish or not game.hold_announcements:
        post_announcement(game, ann)
    return ann


def restore_thread(thread: Thread) -> bool:
    """Give back a thread a rollback marked withdrawn (its title and pin, as they were),
    now that its phase is open again; True if it was withdrawn. The same thread, never a
    second one. Precondition: the caller holds the game lock."""
    withdrawn = WithdrawnThread.objects.filter(thread=thread).first()
    if withdrawn is None:
        return False
    forum.set_thread_title(thread=thread, title=withdrawn.title, pinned=withdrawn.pinned)
    withdrawn.delete()
    return True


def post_in_round_thread(game: Game, events: list[dict], names: dict[int, str]) -> Post | None:
    """The round's record thread: what players say and vote one by one
    (a classic day's last words, speeches, votes) is posted as it happens, one reply per
    step, in one thread per round, instead of one announcement each; the announcement list
    keeps the phases' summaries. Precondition: the caller holds the game lock."""
    if game.board is None or not events:
        return None
    number = game.phase_number
    key = f"round-{number}"
    thread = Thread.objects.filter(board=game.board, key=key).first()
    if thread is not None:
        restore_thread(thread)
    else:
        thread = forum.start_thread(
            board=game.board, author=messenger_user(), kind=Thread.Kind.ANNOUNCEMENT,
            title=round_thread_title(game.ruleset, number)[:120],
            body=_("What the players say and vote in this round, in order."), key=key,
            enforce_rate_limit=False)
    body = "\n\n".join(describe(game.ruleset, e, names) for e in events)
    return link_step_post(game, forum.reply(thread=thread, author=messenger_user(),
                                            body=body[:19_000], enforce_rate_limit=False))


def publish_announcement(*, announcement_id: int, story: str = "",
                         gm: User | None = None) -> Announcement:
    """Post a drafted announcement (with the GM's story text, if any) in the game's
    announcement thread. Publishing twice does nothing the second time (the game lock)."""
    with transaction.atomic():
        game_id = Announcement.objects.values_list("game_id", flat=True).get(
            pk=announcement_id)
        game = lock_game(game_id)
        ann = Announcement.objects.get(pk=announcement_id)
        if ann.withdrawn_at is not None and ann.published_at is None:
            if gm is not None:  # the GM pressed "publish" on a draft a rollback withdrew
                raise GameError(_("This draft was withdrawn by a rollback; it cannot be "
                                  "published."), code="withdrawn")
            return ann
        if ann.published_at is not None:
            return ann
        post_announcement(game, ann, story=story)
        if gm is not None:
            log_gm(game, gm, "publish_announcement", {"announcement": ann.pk})
        changed(game)
    return ann


def post_announcement(game: Game, ann: Announcement, *, story: str = "") -> None:
    """Post draft `ann` (with the GM's `story`, if any) in the game's announcement thread
    and tell the players. Precondition: the caller holds the game lock (and moves the
    page version: the announcement is on the game's home)."""
    if story:
        ann.story = story
    body = f"### {ann.title}\n\n" + (f"{ann.story}\n\n---\n\n" if ann.story else "") + ann.body
    thread = Thread.objects.filter(board=game.board, key="announcements").first()
    if thread is not None:
        ann.post = forum.reply(thread=thread, author=messenger_user(), body=body[:19_000],
                               enforce_rate_limit=False)
    ann.published_at = timezone.now()
    ann.save()
    notify_announcement(game, ann)
    notify_players(game, kind=Kind.ANNOUNCEMENT, post=ann.post)


def deliver_private(game: Game, events: list[dict], names: dict[int, str],
                    seats: list[Seat] | None = None) -> None:
    """Each seat's private results, as messages from 神的使者 in the seat's conversation
    (`seats`: all of the game's, with conversations and users' profiles, when the caller
    read them under the lock).

    Precondition: the caller holds the game lock.
    """
    per_seat: dict[int, list[dict]] = {}
    for e in events:
        vis = e["visibility"]
        if vis["public"]:
            continue
        for number in vis["seats"]:
            per_seat.setdefault(number, []).append(e)
    if not per_seat:
        return
    if seats is None:
        seats = game.seats.select_related("conversation", "user__profile")
    seats = {s.number: s for s in seats}
    sent = []
    for number, seat_events in per_seat.items():
        seat = seats.get(number)
        if seat is None or seat.conversation is None:
            continue
        with translation.override(user_locale(seat.user).language):
            body = "\n\n".join(describe(game.ruleset, e, names) for e in seat_events)
        sent.append((seat, body[:19_000]))
    # All the seats' messages at once, each with one on-site notice (a result, not a plain
    # message).
    messages = forum.send_many_as_messenger(
        letters=[(seat.conversation, body) for seat, body in sent], notice=Kind.RESULT,
        notice_text=game.name, messenger=messenger_user())
    link_step_messages(game, messages)
    for (seat, body), message in zip(sent, messages, strict=True):
        notify_private_result(game, seat, body, message)


def link_step_message(game: Game, message: Message) -> None:
    """Remember that `message` was sent because of the game's latest accepted step
    (`game.steps`), so that a rollback of it marks the message withdrawn. Nothing is linked
    before the first step (the deal's private results cannot be rolled back).

    Precondition: the caller holds the game lock.
    """
    link_step_messages(game, [message])


def link_step_messages(game: Game, messages: list[Message]) -> None:
    """`link_step_message` for each of `messages`, in one insert."""
    if game.steps and messages:
        StepMessage.objects.bulk_create([StepMessage(game=game, step_seq=game.steps,
                                                     message=message) for message in messages])


def link_step_post(game: Game, post: Post) -> Post:
    """Remember that 神的使者 wrote `post` because of the game's latest accepted step, so that
    a rollback of that step marks it withdrawn (as it does the step's announcements).

    Precondition: the caller holds the game lock.
    """
    if game.steps:
        StepPost.objects.create(game=game, step_seq=game.steps, post=post)
    return post


def notify_players(game: Game, *, kind: str, post: Post | None = None,
                   thread: Thread | None = None, living_only: bool = False) -> None:
    """An on-site notice (the bell) to every seat holder of `game`, about a public post or
    thread of its board (an announcement, a vote thread), with the game's name as detail.

    `messaging.notifications.notify` refuses a thread the reader may not read, so a GM-only
    thread never reaches a player. Precondition: inside the writer's transaction.
    """
    seats = game.seats.filter(user__isnull=False).select_related("user")
    if living_only:
        seats = seats.filter(alive=True)
    url = "" if (post or thread) else game.get_absolute_url()
    notify_many(users=[seat.user for seat in seats], kind=kind, post=post, thread=thread,
                text=game.name, url=url)
