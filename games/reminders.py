"""Email reminders before a deadline, to the players who still owe an action or a vote.

Each user picks the hours before a deadline (profile `reminder_hours`, default 6 and 1).
One email per (phase, user, hours) at most — the ReminderSent unique constraint makes a
second send impossible even when two sweeps run at once. The ReminderSent rows and the
email's outbox row (games/mail.py) are written in one transaction: a reminder recorded as
sent always has its outbox row, which is retried until the mail server accepts it. When a sweep finds several
reminders due at once (a phase shorter than the first reminder), only the nearest is sent
and the earlier ones are marked as passed. The subject states the time really left
("4 min left", not the hour mark that fell due).

With the first reminder of a phase the user also gets one on-site notice (the bell), once
per (phase, user): a ReminderSent row with hours=NOTICE_HOURS (0, which no email uses)
records it under the same constraint. Only living seats the engine still awaits are
reminded: a dead or fouled-out seat owes nothing (the engine's living seats decide, not
only the Seat row's `alive` copy).

The cost is O(reminders due), not O(running games): `Game.remind_at` says when the sweep
should next look at a game. A changed deadline sets it REMINDER_MAX_HOURS before the
deadline (Game.save); each look sends what is due and moves it to the next hour mark any
living seated user has left (None when there is none); a user who changes their hours has
their running games looked at again (games/signals.py). A sweep is five queries whatever
the number due: the seats of the games to look at (with their game, user and profile), one
INSERT … ON CONFLICT DO NOTHING RETURNING that claims the reminder rows, one INSERT of the
bell notices, one of the outbox rows, and one UPDATE of the games' next look.
"""

from __future__ import annotations

import datetime as dt

from django.db import connection, transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from config.site import site_url
from messaging.notifications import Kind, notify_many

from . import rulesets
from .mail import queue_emails, user_locale
from .models import Game, ReminderSent, Seat
from .models.game import REMINDER_MAX_HOURS
from .selectors import current_phase_name

MAX_HOURS = REMINDER_MAX_HOURS
NOTICE_HOURS = 0  # the ReminderSent row of the on-site notice (emails use 1..MAX_HOURS)
BATCH = 500  # games looked at per sweep; the rest wait for the next one (oldest first)
COLUMNS = ("game_id", "number", "user_id", "alive",
           "game__name", "game__ruleset", "game__status", "game__state", "game__deadline",
           "game__phase_name", "game__phase_number", "game__current_phase_id",
           "game__remind_at",
           "user__username", "user__email", "user__is_active",
           "user__profile__language", "user__profile__timezone",
           "user__profile__reminder_hours")


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


def time_left(left: dt.timedelta) -> str:
    """The time left before a deadline, in whole minutes rounded down, in the active
    language: "4 min", "1 h", "2 h 30 min" (never less than a minute)."""
    minutes = max(1, int(left.total_seconds() // 60))
    hours, minutes = divmod(minutes, 60)
    if not hours:
        return ngettext("%(minutes)d min", "%(minutes)d min", minutes) % {"minutes": minutes}
    if not minutes:
        return ngettext("%(hours)d h", "%(hours)d h", hours) % {"hours": hours}
    return _("%(hours)d h %(minutes)d min") % {"hours": hours, "minutes": minutes}


def send_due_reminders(*, now: dt.datetime | None = None) -> int:
    """Send every reminder that is due now; return how many emails were sent."""
    now = now or timezone.now()
    due_games = (Game.objects.filter(status=Game.Status.RUNNING, remind_at__lte=now)
                 .order_by("remind_at").values("pk")[:BATCH])
    games: dict[int, Game] = {}
    seats: dict[int, list[Seat]] = {}
    for seat in (Seat.objects.filter(game__in=due_games)
                 .select_related("game", "user__profile").only(*COLUMNS).order_by()):
        game = games.setdefault(seat.game_id, seat.game)
        seats.setdefault(game.pk, []).append(seat)
    if not games:
        return 0

    wanted: list[tuple[Game, Seat, list[int]]] = []  # (game, seat, hour marks to claim)
    for game in games.values():
        game.remind_at = None
        if game.deadline is None or game.deadline <= now or game.current_phase_id is None:
            continue  # the game sweep moves it on; a new deadline schedules it again
        engine = rulesets.engine(game.ruleset)
        living = set(engine.living_seats(game.state))
        owing = set(engine.phase(game.state).awaiting) & living
        left = game.deadline - now
        for seat in seats[game.pk]:
            if seat.user is None or not seat.alive or seat.number not in living:
                continue
            hours = reminder_hours(seat.user)
            later = [h for h in hours if dt.timedelta(hours=h) < left]
            if later:  # the next mark this user has, whether they owe a move now or not
                at = game.deadline - dt.timedelta(hours=max(later))
                game.remind_at = at if game.remind_at is None else min(game.remind_at, at)
            due = [h for h in hours if left <= dt.timedelta(hours=h)]
            if due and seat.number in owing:
                wanted.append((game, seat, [NOTICE_HOURS, *due] if seat.user.email
                               else [NOTICE_HOURS]))

    sent = 0
    # The records, the notices and the emails commit together (no savepoint inside a
    # caller's transaction: a failure here rolls the caller back too).
    with transaction.atomic(savepoint=False):
        claimed = _claim([(game.current_phase_id, seat.user_id, h)
                          for game, seat, marks in wanted for h in marks], now)
        notices, emails = [], []
        for game, seat, marks in wanted:
            mine = [h for h in marks if (game.current_phase_id, seat.user_id, h) in claimed]
            if NOTICE_HOURS in mine:
                notices.append(_notice(game, seat.user))
            if len(mine) > (NOTICE_HOURS in mine):
                emails.append(_email(game, seat.user, now))
        notify_many(notices)
        sent = len(queue_emails(emails))
        _reschedule(list(games.values()))
    return sent


def _reschedule(games: list[Game]) -> None:
    """Write each game's next look (`remind_at`) in one UPDATE."""
    if connection.vendor != "postgresql":
        Game.objects.bulk_update(games, ["remind_at"])
        return
    table = connection.ops.quote_name(Game._meta.db_table)
    values = ", ".join(["(%s::integer, %s::timestamptz)"] * len(games))
    with connection.cursor() as cursor:  # bulk_update's CASE costs more to build than to run
        cursor.execute(f"UPDATE {table} SET remind_at = v.at FROM (VALUES {values}) "  # noqa: S608
                       f"AS v(id, at) WHERE {table}.id = v.id",
                       [p for g in games for p in (g.pk, g.remind_at)])


def _claim(rows: list[tuple[int, int, int]], now: dt.datetime) -> set[tuple[int, int, int]]:
    """Record the reminders (phase, user, hours) in one statement; the ones an earlier or a
    concurrent sweep already recorded are left out of the answer."""
    if not rows:
        return set()
    table = connection.ops.quote_name(ReminderSent._meta.db_table)
    values = ", ".join(["(%s, %s, %s, %s)"] * len(rows))
    params = [p for row in rows for p in (*row, now)]
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {table} (phase_id, user_id, hours, created) "  # noqa: S608
                       f"VALUES {values} ON CONFLICT DO NOTHING "
                       f"RETURNING phase_id, user_id, hours", params)
        return {tuple(row) for row in cursor.fetchall()}


def _notice(game: Game, user) -> dict:
    """The bell's deadline notice (`notify_many`'s arguments)."""
    locale = user_locale(user)
    with translation.override(locale.language), timezone.override(locale.timezone):
        local = timezone.localtime(game.deadline)
        text = _("%(game)s: %(phase)s ends %(deadline)s") % {
            "game": game.name, "phase": current_phase_name(game),
            "deadline": local.strftime("%Y-%m-%d %H:%M")}
    return {"user": user, "kind": Kind.DEADLINE, "text": text,
            "url": reverse("game-act", args=[game.pk])}


def _email(game: Game, user, now: dt.datetime) -> dict:
    """The reminder email (`queue_emails`'s arguments), with the time really left."""
    locale = user_locale(user)
    with translation.override(locale.language), timezone.override(locale.timezone):
        link = site_url() + reverse("game-act", args=[game.pk])
        local = timezone.localtime(game.deadline).strftime("%Y-%m-%d %H:%M")
        subject = _("[%(game)s] %(left)s left: you have not acted yet") % {
            "game": game.name, "left": time_left(game.deadline - now)}
        body = _("%(phase)s of %(game)s ends at %(deadline)s (%(zone)s). You have not "
                 "acted or voted yet.\n\nAct here: %(link)s\n") % {
            "phase": current_phase_name(game), "game": game.name,
            "deadline": local,
            "zone": timezone.get_current_timezone_name(), "link": link}
    return {"to": user.email, "subject": subject, "body": body, "kind": "reminders",
            "user": user}
