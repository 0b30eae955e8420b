"""The GM's undo: roll back the most recent phase end, or one seat's last
accepted step of the current phase.

The plan comes from `selectors.rollback_plan` (what the confirm page showed); here it is
computed again under the game lock and carried out:
1. the undone steps leave the replay log (`Action`, a copy kept in `Rollback.steps`), the
   later steps that stay are renumbered; the state is the replay of what is left;
2. the engine events they produced leave the event log (a copy in `Rollback.events`);
3. the announcements they made are marked withdrawn (their posts too, shown "已由天神撤回"),
   the private results and receipts they sent are marked withdrawn in the seats'
   conversations; nothing a player was shown is deleted;
4. their votes are deleted (the voter may vote again); the phases an undone phase end
   opened are removed (their reminders go with them); the phase is open again until the
   deadline the GM sets (in the future), and its reminders may be sent again;
5. seats are alive or out again as the rebuilt state says;
6. a public announcement says that the GM rolled back, the GM log records it, and each seat
   whose messages were withdrawn is told privately;
7. the emails about what was withdrawn: one not sent yet is cancelled; one already sent
   is followed by a "withdrawn" email to the same address naming the phase (games.mail);
8. the threads 神的使者 opened for what was undone (the vote thread of a phase the undone
   end opened, a round thread whose every reply is withdrawn) are marked withdrawn and
   unpinned (`WithdrawnThread`); the same thread is given back if the phase opens again
   (kernel.restore_thread).
See docs/undo.md.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from messaging import services as forum
from messaging.models import Thread

from .. import awaiting, selectors
from ..mail import queue_withdrawn_email, user_locale
from ..models import (
    Action,
    Announcement,
    Event,
    Game,
    OutboxEmail,
    Phase,
    ReminderSent,
    Rollback,
    StepMessage,
    StepPost,
    Vote,
    WithdrawnThread,
)
from . import backoff, kernel
from .kernel import GameError, announce, changed, log_gm, require_gm, ruleset_of
from .lifecycle import reserved_close
from .record import sync_alive

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User

KINDS = ("phase_end", "step")
LONGEST = dt.timedelta(days=30)


def rollback(*, game_id: int, gm: User | None, kind: str, deadline: dt.datetime | None,
             expected_version: int | None, expected_target: int | None,
             expected_steps: int | None = None, seat_number: int | None = None,
             now: dt.datetime | None = None) -> Rollback:
    """Undo `kind` ("phase_end" or "step" of seat `seat_number`) as the confirm page showed it.

    Refused (GameError, nothing stored) when: the user is not this game's GM; the game is
    not running or paused; there is nothing to undo; the page was stale (the game's
    version, the step to undo or, for a phase end, the number of steps changed since it was
    shown); the deadline is missing, not in the future or more than 30 days away.
    """
    now = kernel.now(now)
    if kind not in KINDS:
        raise GameError(_("Unknown kind of rollback."), code="kind")
    if deadline is None or deadline <= now:
        raise GameError(_("The new deadline must be in the future."), code="deadline")
    if deadline > now + LONGEST:
        raise GameError(_("The new deadline must be within 30 days."), code="deadline")
    with transaction.atomic():
        game = require_gm(game_id, gm)
        if expected_version is None or game.version != expected_version:
            raise GameError(_("The game has moved on since this page was shown; "
                              "nothing was rolled back. Look again."), code="stale")
        plan = selectors.rollback_plan(game, kind, seat_number)
        if isinstance(plan, str):
            raise GameError(plan, code="nothing")
        if plan.target != expected_target or (
                kind == "phase_end" and game.steps != expected_steps):
            raise GameError(_("The game has moved on since this page was shown; "
                              "nothing was rolled back. Look again."), code="stale")
        record = _carry_out(game, gm, plan, deadline, now)
        changed(game, what="phase")
    return record


def _carry_out(game: Game, gm: User | None, plan: selectors.RollbackPlan,
               deadline: dt.datetime, now: dt.datetime) -> Rollback:
    """Precondition: the caller holds the game lock and `plan` was made under it."""
    removed_seqs = {a.seq for a in plan.removed}
    record = Rollback.objects.create(
        game=game, kind=plan.kind, gm=gm if gm and gm.pk else None, phase=plan.phase,
        seat=plan.seat, deadline=deadline, version_before=game.version,
        steps=[{"seq": a.seq, "actor": a.actor, "kind": a.kind, "params": a.params,
                "phase": a.phase_id, "user": a.user_id,
                "received_at": a.received_at.isoformat() if a.received_at else None}
               for a in plan.removed],
        events=[dict(e.as_engine_event(), phase=e.phase_id) for e in plan.events_removed])

    # 3. Withdraw what the undone steps told people (never delete it).
    ann_ids = [a.pk for a in plan.announcements]
    Announcement.objects.filter(pk__in=ann_ids).update(withdrawn_at=now, step_seq=None)
    links = plan.messages
    forum.withdraw(post_ids=[a.post_id for a in plan.announcements if a.post_id]
                   + [link.post_id for link in plan.posts],
                   message_ids=[link.message_id for link in links], when=now)
    StepMessage.objects.filter(pk__in=[link.pk for link in links]).update(step_seq=None)
    StepPost.objects.filter(pk__in=[link.pk for link in plan.posts]).update(step_seq=None)

    # 2. The engine's events: the undone ones go, later ones take their new numbers
    # (ascending, so each new number is free when it is taken).
    Event.objects.filter(pk__in=[e.pk for e in plan.events_removed]).delete()
    for row, seq in sorted(plan.events_renumbered, key=lambda pair: pair[1]):
        Event.objects.filter(pk=row.pk).update(seq=seq)

    # 4. Votes, then the log: the undone steps go, later ones are renumbered.
    Vote.objects.filter(pk__in=[v.pk for v in plan.votes]).delete()
    Action.objects.filter(game=game, seq__in=removed_seqs).delete()
    for new_seq, row in enumerate(sorted(plan.kept_after, key=lambda a: a.seq),
                                  start=plan.target):
        Action.objects.filter(pk=row.pk).update(seq=new_seq)
        Announcement.objects.filter(game=game, step_seq=row.seq).update(step_seq=new_seq)
        StepMessage.objects.filter(game=game, step_seq=row.seq).update(step_seq=new_seq)
        StepPost.objects.filter(game=game, step_seq=row.seq).update(step_seq=new_seq)

    # The phases the undone end opened: what else points at them moves to the open phase.
    dropped = [p.pk for p in plan.dropped_phases]
    if dropped:
        Announcement.objects.filter(game=game, phase__in=dropped).update(phase=plan.phase)
        Event.objects.filter(game=game, phase__in=dropped).update(phase=plan.phase)
        Phase.objects.filter(pk__in=dropped).delete()  # their votes and reminders go too
    Phase.objects.filter(pk=plan.phase.pk).update(ended_at=None, end_reason="",
                                                  deadline=deadline)
    ReminderSent.objects.filter(phase=plan.phase).delete()  # a new deadline, new reminders

    # 1 and 5. The rebuilt state, the open phase and its deadline, the seats.
    game.state = plan.state
    game.steps = plan.steps - len(plan.removed)
    game.awaiting = awaiting.for_game(game)
    game.current_phase = Phase.objects.get(pk=plan.phase.pk)
    game.phase_name, game.phase_number = plan.phase.name, plan.phase.number
    game.deadline = deadline
    game.choices_close_at, game.choices_closed = reserved_close(game, deadline, now), False
    if game.status == Game.Status.PAUSED:
        game.paused_remaining = deadline - now
    game.version += 1
    sync_alive(game, ruleset_of(game))
    backoff.clear(game.pk)

    # 6. Say so: the public announcement, the GM log, each seat whose messages went.
    label = selectors.phase_title(game, plan.phase)
    when = timezone.localtime(deadline).strftime("%Y-%m-%d %H:%M ") + \
        timezone.get_current_timezone_name()
    if plan.kind == "phase_end":
        text = _("The GM has rolled back the end of %(phase)s: what it announced and the "
                 "private results it sent are withdrawn. %(phase)s is open again until "
                 "%(deadline)s.") % {"phase": label, "deadline": when}
    else:  # never name the seat: whose step it was may be hidden information
        text = _("The GM has taken back one step of %(phase)s; what it announced and the "
                 "private results it sent are withdrawn. The deadline is now %(deadline)s.") \
            % {"phase": label, "deadline": when}
    announce(game, plan.phase, _("Rolled back by the GM"), text, events=[],
             force_publish=True)
    log_gm(game, gm, "rollback", {"rollback": record.pk, "kind": plan.kind,
                                  "steps": sorted(removed_seqs), "deadline": deadline.isoformat(),
                                  "seat": plan.seat.number if plan.seat else None})
    _tell_seats(game, plan)
    _withdraw_emails(game, plan, now)
    _withdraw_threads(game, plan, now)
    game.save()
    return record


def _withdraw_emails(game: Game, plan: selectors.RollbackPlan, now: dt.datetime) -> None:
    """7. The emails about the withdrawn announcements and private results (their outbox
    rows name them in `about`): a row not sent yet is cancelled (locked with SKIP LOCKED: a
    row the sender holds is being sent now, and counts as sent); for the rows already sent,
    one "withdrawn" email per address, naming the phase and the subjects it takes back.

    Precondition: the caller holds the game lock.
    """
    about = [f"announcement:{a.pk}" for a in plan.announcements]
    about += [f"message:{link.message_id}" for link in plan.messages]
    rows = list(OutboxEmail.objects.filter(about__in=about, failed_at=None)
                .select_related("user__profile").order_by("id")) if about else []
    unsent = [r.pk for r in rows if r.sent_at is None]
    cancelled = set(OutboxEmail.objects.select_for_update(skip_locked=True).filter(
        pk__in=unsent, sent_at=None, failed_at=None).values_list("pk", flat=True)) \
        if unsent else set()
    OutboxEmail.objects.filter(pk__in=cancelled).update(
        failed_at=now, last_error="withdrawn by a rollback before it was sent")
    sent: dict[str, list[OutboxEmail]] = {}
    for row in rows:
        if row.pk not in cancelled:
            sent.setdefault(row.to, []).append(row)
    for to, of_address in sent.items():
        user = of_address[0].user
        with translation.override(user_locale(user).language):
            label = selectors.phase_title(game, plan.phase)
        queue_withdrawn_email(to=to, user=user, kind=of_address[0].kind, game_name=game.name,
                              phase=label, subjects=[r.subject for r in of_address])


def _withdraw_threads(game: Game, plan: selectors.RollbackPlan, now: dt.datetime) -> None:
    """8. Mark withdrawn the threads 神的使者 opened for what was undone: the vote threads of
    the phases the undone end opened, and each round thread whose replies are all withdrawn
    now. The title gets the withdrawn mark and the thread is unpinned; what it was is kept
    for `kernel.restore_thread`.

    Precondition: the caller holds the game lock.
    """
    if game.board_id is None:
        return
    keys = [f"vote-{p.seq}" for p in plan.dropped_phases]
    threads = list(Thread.objects.filter(board_id=game.board_id, key__in=keys)) if keys else []
    undone_posts = {link.post_id for link in plan.posts}
    if undone_posts:
        for thread in Thread.objects.filter(board_id=game.board_id, key__startswith="round-",
                                            posts__in=undone_posts).distinct():
            replies = thread.posts.filter(number__gt=1)
            if not replies.exclude(pk__in=undone_posts).filter(withdrawn_at=None).exists():
                threads.append(thread)
    already = set(WithdrawnThread.objects.filter(thread__in=threads).values_list(
        "thread_id", flat=True))
    for thread in threads:
        if thread.pk in already:
            continue
        WithdrawnThread.objects.create(game=game, thread=thread, title=thread.title,
                                       pinned=thread.is_pinned, withdrawn_at=now)
        forum.set_thread_title(thread=thread, title=_("[withdrawn]") + " " + thread.title,
                               pinned=False)


def _tell_seats(game: Game, plan: selectors.RollbackPlan) -> None:
    """A private note to each seat whose messages were withdrawn, and to the seat whose step
    was undone (it may act again)."""
    numbers = {link.message.conversation.seat.number for link in plan.messages
               if getattr(link.message.conversation, "seat", None) is not None}
    if plan.seat is not None:
        numbers.add(plan.seat.number)
    for seat in game.seats.filter(number__in=numbers).select_related("conversation",
                                                                     "user__profile"):
        if seat.conversation is None:
            continue
        with translation.override(user_locale(seat.user).language):
            label = selectors.phase_title(game, plan.phase)
            body = _("The GM has rolled back %(phase)s: the messages above marked withdrawn "
                     "no longer hold.") % {"phase": label}
            if plan.seat is not None and seat.pk == plan.seat.pk:
                body += " " + _("Your step was taken back; you may act again.")
        forum.send_as_messenger(conversation=seat.conversation, body=body)
