"""Email reminders before a deadline, to the players who still owe an action or a vote.

Each user picks the hours before a deadline (profile `reminder_hours`, default 6 and 1).
One email per (phase, user, hours) at most — the ReminderSent unique constraint makes a
second send impossible even when two sweeps run at once. The ReminderSent rows and the
email's outbox row (games/mail.py) are written in one transaction: a reminder recorded as
sent always has its outbox row, which is retried until the mail server accepts it. When a sweep finds several
reminders due at once (a phase shorter than the first reminder), only the nearest is sent
and the earlier ones are marked as passed.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from . import rulesets
from .mail import queue_email, user_locale
from .models import Game, ReminderSent, Seat
from .presenters import phase_label

MAX_HOURS = 48


def reminder_hours(user) -> list[int]:
    raw = getattr(getattr(user, "profile", None), "reminder_hours", "6,1")
    hours = []
    for part in (raw or "").split(","):
        try:
            h = int(part)
        except ValueError:
            continue
        if 1 <= h <= MAX_HOURS:
            hours.append(h)
    return sorted(set(hours), reverse=True)


def send_due_reminders(*, now: dt.datetime | None = None) -> int:
    """Send every reminder that is due now; return how many were sent."""
    now = now or timezone.now()
    games = Game.objects.filter(status=Game.Status.RUNNING, deadline__gt=now,
                                deadline__lte=now + dt.timedelta(hours=MAX_HOURS))
    sent = 0
    for game in games.select_related("current_phase"):
        awaiting = rulesets.engine(game.ruleset).phase(game.state).awaiting
        if not awaiting or game.current_phase is None:
            continue
        seats = Seat.objects.filter(game=game, number__in=awaiting, user__isnull=False)
        for seat in seats.select_related("user__profile"):
            with transaction.atomic():  # the record and its email commit together
                sent += _remind(game, seat, now)
    return sent


def _remind(game: Game, seat: Seat, now: dt.datetime) -> int:
    user = seat.user
    left = game.deadline - now
    due = [h for h in reminder_hours(user) if left <= dt.timedelta(hours=h)]
    if not due or not user.email:
        return 0
    created = []
    for h in due:
        try:
            with transaction.atomic():  # a savepoint: a duplicate only skips this one
                ReminderSent.objects.create(phase=game.current_phase, user=user, hours=h)
            created.append(h)
        except IntegrityError:
            continue  # sent (or marked passed) by an earlier or a concurrent sweep
    if not created:
        return 0
    nearest = min(created)
    locale = user_locale(user)
    with translation.override(locale.language), timezone.override(locale.timezone):
        link = settings.SITE_URL + reverse("game-act", args=[game.pk])
        local = timezone.localtime(game.deadline).strftime("%Y-%m-%d %H:%M")
        subject = _("[%(game)s] %(hours)d h left: you have not acted yet") % {
            "game": game.name, "hours": nearest}
        body = _("The %(phase)s of %(game)s ends at %(deadline)s (%(zone)s). You have not "
                 "acted or voted yet.\n\nAct here: %(link)s\n") % {
            "phase": phase_label(game.phase_name, game.ruleset), "game": game.name,
            "deadline": local,
            "zone": timezone.get_current_timezone_name(), "link": link}
    queue_email(to=user.email, subject=subject, body=body, kind="reminders", user=user)
    return 1
