"""The sweeper's back-off for a game whose advance raises (healthchecks'
`sendalerts` pushes a failing check's next attempt forward the same way).

1. The sweep's due query skips a game whose `AdvanceBackoff.retry_at` is still ahead
   (`due_games`), so the other due games go first and are not slowed.
2. A failure (`record_failure`, its own transaction: the advance's was rolled back) counts
   one more, waits SWEEP_RETRY_BASE_SECONDS × 2^(failures-1) (capped at
   SWEEP_RETRY_MAX_SECONDS), logs the exception once for this step, and tells the GM once
   per step: a notice from 神的使者 in their bell and an email (the outbox).
3. A successful advance of the game (`clear`, inside the advance's transaction) deletes the
   row, whoever advanced it (the sweep, a GM's "end phase now", an early end).
"""

from __future__ import annotations

import datetime as dt
import logging

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.models import messenger_user
from config.site import site_url
from messaging.notifications import notify

from ..mail import queue_email, user_locale
from ..models import AdvanceBackoff, Game

log = logging.getLogger("games.services.lifecycle")


def due_games(now: dt.datetime, before: dt.datetime):
    """Running games whose deadline, or whose choices' close not yet acted on
    (lifecycle.close_choices), is at or before `before`, less those backing off."""
    waiting = AdvanceBackoff.objects.filter(game=OuterRef("pk"), retry_at__gt=now)
    due = Q(deadline__lte=before) | Q(choices_close_at__lte=before, choices_closed=False)
    return Game.objects.filter(due, status=Game.Status.RUNNING).exclude(Exists(waiting))


def wait_after(failures: int) -> dt.timedelta:
    seconds = settings.SWEEP_RETRY_BASE_SECONDS * 2 ** min(failures - 1, 30)
    return dt.timedelta(seconds=min(seconds, settings.SWEEP_RETRY_MAX_SECONDS))


def record_failure(game_id: int, exc: BaseException, now: dt.datetime) -> AdvanceBackoff:
    """Precondition: called outside the failed advance's (rolled-back) transaction, with
    the exception being handled (its traceback is logged)."""
    with transaction.atomic():
        row, _created = AdvanceBackoff.objects.select_for_update().get_or_create(
            game_id=game_id, defaults={"retry_at": now})
        row.failures += 1
        row.retry_at = now + wait_after(row.failures)
        row.last_error = f"{type(exc).__name__}: {exc}"[:500]
        row.save()
        log.exception("advance failed (%d in a row); next try at %s", row.failures,
                      row.retry_at.isoformat(), extra={"game_id": game_id})
        tell_gm(row)
    return row


def tell_gm(row: AdvanceBackoff) -> None:
    """One notice from 神的使者 and one email to the game's GM for this back-off step."""
    game = Game.objects.select_related("gm__profile").get(pk=row.game_id)
    gm = game.gm
    if gm is None:
        return
    with translation.override(user_locale(gm).language):
        text = _("The phase of %(game)s could not be ended (%(error)s); the clock tries "
                 "again at %(when)s UTC (attempt %(n)d).") % {
            "game": game.name, "error": row.last_error, "n": row.failures + 1,
            "when": row.retry_at.strftime("%Y-%m-%d %H:%M")}
        url = reverse("admin:games_game_change", args=[game.pk])
        subject = _("[%(game)s] The clock could not end the phase") % {"game": game.name}
    notify(user=gm, kind="messenger", actor=messenger_user(), text=text, url=url)
    if gm.email:
        queue_email(to=gm.email, subject=subject, body=f"{text}\n\n{site_url()}{url}\n",
                    user=gm)


def clear(game_id: int) -> None:
    """The game advanced: no back-off any more. Precondition: inside the advance's
    transaction (a rolled-back advance keeps its back-off)."""
    AdvanceBackoff.objects.filter(game_id=game_id).delete()
