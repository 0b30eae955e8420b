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
import json

from django.conf import settings
from django.db import connection, transaction
from django.db.models import TextField
from django.db.models.functions import Cast
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from config.site import site_url
from messaging.notifications import Kind, notify_many

from . import rulesets
from .mail import Locale, queue_emails
from .models import Game, ReminderSent, Seat
from .models.game import REMINDER_MAX_HOURS
from .presenters import phase_name, round_of

MAX_HOURS = REMINDER_MAX_HOURS
NOTICE_HOURS = 0  # the ReminderSent row of the on-site notice (emails use 1..MAX_HOURS)
BATCH = 500  # games looked at per sweep; the rest wait for the next one (oldest first)
# One row per seat of the games to look at: the seat, its game and its user with profile,
# read as plain values (no model instances: a sweep builds none per reminder).
COLUMNS = ("game_id", "number", "user_id", "alive",
           "game__name", "game__ruleset", "state_text", "game__deadline",
           "game__phase_name", "game__phase_number", "game__current_phase_id",
           "user__username", "user__email", "user__is_active",
           "user__profile__language", "user__profile__timezone",
           "user__profile__reminder_hours")
_FIELDS = tuple(c.replace("user__profile__", "").replace("game__", "game_").replace(
    "user__", "user_") for c in COLUMNS)  # "game__name" -> "game_name", "language", …
DEFAULT_HOURS = "6,1"  # accounts.models.Profile.reminder_hours' default (no profile)


def parse_hours(raw: str | None) -> list[int]:
    """A profile's `reminder_hours` ("6,1") as hour marks, largest first."""
    hours = []
    for part in (raw or "").split(","):
        try:
            h = int(part)
        except ValueError:
            continue
        if 1 <= h <= MAX_HOURS:
            hours.append(h)
    return sorted(set(hours), reverse=True)


def reminder_hours(user) -> list[int]:
    return parse_hours(getattr(getattr(user, "profile", None), "reminder_hours", DEFAULT_HOURS))


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


def read_seats(game_ids) -> tuple[dict[int, dict], dict[int, list[dict]]]:
    """The seats of the games `game_ids` (a query of pks) as plain values (COLUMNS), in one
    query: ({game pk: its first seat's row, holding the game's columns and its decoded
    state}, {game pk: its seats' rows})."""
    games: dict[int, dict] = {}
    seats: dict[int, list[dict]] = {}
    # The state as text, decoded once per game below: the JSON field would decode it again
    # for each of the game's seats (most of the query's cost).
    for values in (Seat.objects.filter(game__in=game_ids).order_by()
                   .annotate(state_text=Cast("game__state", TextField()))
                   .values_list(*COLUMNS)):
        seat = dict(zip(_FIELDS, values, strict=True))
        if seat["game_id"] not in games:  # the game's columns, from its first seat
            games[seat["game_id"]] = seat
            seat["game_state"] = json.loads(seat["state_text"])
        seats.setdefault(seat["game_id"], []).append(seat)
    return games, seats


def send_due_reminders(*, now: dt.datetime | None = None) -> int:
    """Send every reminder that is due now; return how many emails were sent.

    Steps (five statements whatever the number due, issue 17 item 3):
    1. Read the seats of the games due for a look, with their game, user and profile, as
       plain values.
    2. For each game, the seats the engine still awaits among the living; for each seat
       the hour marks due now (the nearest one only: earlier ones are marked passed) and
       the game's next look (the next mark any living seated user has left).
    3. In one transaction: claim the reminder rows (INSERT … ON CONFLICT DO NOTHING
       RETURNING: a concurrent sweep's rows are left out), insert the bell notices, insert
       the outbox rows, write the games' next looks. An email's text is written when it is
       sent (games.mail.DEFERRED "reminder", `reminder_text`), from what the row records:
       the time left when it fell due, the reader's language and timezone then.
    """
    now = now or timezone.now()
    due_games = (Game.objects.filter(status=Game.Status.RUNNING, remind_at__lte=now)
                 .order_by("remind_at").values("pk")[:BATCH])
    games, seats = read_seats(due_games)
    if not games:
        return 0

    wanted: list[tuple[dict, dict, list[int]]] = []  # (game, seat, hour marks to claim)
    next_look: dict[int, dt.datetime | None] = {}
    for pk, game in games.items():
        next_look[pk] = None
        deadline = game["game_deadline"]
        if deadline is None or deadline <= now or game["game_current_phase_id"] is None:
            continue  # the game sweep moves it on; a new deadline schedules it again
        engine = rulesets.engine(game["game_ruleset"])
        living = set(engine.living_seats(game["game_state"]))
        owing = set(engine.phase(game["game_state"]).awaiting) & living
        left = deadline - now
        for seat in seats[pk]:
            if seat["user_id"] is None or not seat["alive"] or seat["number"] not in living:
                continue
            raw = seat["reminder_hours"]  # None: no profile
            hours = parse_hours(DEFAULT_HOURS if raw is None else raw)
            later = [h for h in hours if dt.timedelta(hours=h) < left]
            if later:  # the next mark this user has, whether they owe a move now or not
                at = deadline - dt.timedelta(hours=max(later))
                next_look[pk] = at if next_look[pk] is None else min(next_look[pk], at)
            due = [h for h in hours if left <= dt.timedelta(hours=h)]
            if due and seat["number"] in owing:
                wanted.append((game, seat, [NOTICE_HOURS, *due] if seat["user_email"]
                               else [NOTICE_HOURS]))

    sent = 0
    # The records, the notices and the emails commit together (no savepoint inside a
    # caller's transaction: a failure here rolls the caller back too).
    with transaction.atomic(savepoint=False):
        claimed = _claim([(game["game_current_phase_id"], seat["user_id"], h)
                          for game, seat, marks in wanted for h in marks], now)
        notices, emails = [], []
        texts: dict[tuple, str] = {}  # one notice text per (game, language, timezone)
        for game, seat, marks in wanted:
            mine = [h for h in marks if (game["game_current_phase_id"], seat["user_id"], h)
                    in claimed]
            user = _user(seat)
            locale = _locale(seat)
            if NOTICE_HOURS in mine:
                key = (game["game_id"], locale)
                if key not in texts:
                    texts[key] = _notice_text(game, locale)
                notices.append({"user": user, "kind": Kind.DEADLINE, "text": texts[key],
                                "url": reverse("game-act", args=[game["game_id"]])})
            if len(mine) > (NOTICE_HOURS in mine):
                emails.append(_email(game, seat, user, locale, now))
        notify_many(notices)
        sent = len(queue_emails(emails))
        _reschedule(next_look)
    return sent


def _user(seat: dict):
    """The seat's user, as much of the row as the notice and the email need."""
    from django.contrib.auth import get_user_model

    return get_user_model()(pk=seat["user_id"], username=seat["user_username"],
                            email=seat["user_email"], is_active=seat["user_is_active"])


def _locale(seat: dict) -> Locale:
    """`mail.user_locale` of the seat's user, from the values read."""
    return Locale(language=seat["language"] or settings.LANGUAGE_CODE,
                  timezone=seat["timezone"] or settings.DEFAULT_USER_TIMEZONE)


def _reschedule(looks: dict[int, dt.datetime | None]) -> None:
    """Write each game's next look (`remind_at`) in one UPDATE."""
    if connection.vendor != "postgresql":
        Game.objects.bulk_update([Game(pk=pk, remind_at=at) for pk, at in looks.items()],
                                 ["remind_at"])
        return
    table = connection.ops.quote_name(Game._meta.db_table)
    # Two array parameters whatever the number of games (a VALUES list of them costs more
    # to bind than to run).
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET remind_at = v.at "  # noqa: S608
                       f"FROM unnest(%s::integer[], %s::timestamptz[]) AS v(id, at) "
                       f"WHERE {table}.id = v.id", [list(looks), list(looks.values())])


def _claim(rows: list[tuple[int, int, int]], now: dt.datetime) -> set[tuple[int, int, int]]:
    """Record the reminders (phase, user, hours) in one statement; the ones an earlier or a
    concurrent sweep already recorded are left out of the answer."""
    if not rows:
        return set()
    table = connection.ops.quote_name(ReminderSent._meta.db_table)
    insert = f"INSERT INTO {table} (phase_id, user_id, hours, created) "  # noqa: S608
    returning = " ON CONFLICT DO NOTHING RETURNING phase_id, user_id, hours"
    if connection.vendor == "postgresql":  # three array parameters, however many rows
        sql = insert + "SELECT p, u, h, %s FROM unnest(%s::integer[], %s::integer[], " \
            "%s::integer[]) AS v(p, u, h)" + returning
        params = [now, *(list(column) for column in zip(*rows, strict=True))]
    else:
        sql = insert + "VALUES " + ", ".join(["(%s, %s, %s, %s)"] * len(rows)) + returning
        params = [p for row in rows for p in (*row, now)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {tuple(row) for row in cursor.fetchall()}


def _phase(game: dict) -> str:
    """The current phase's name (presenters.phase_name) in the active language."""
    return phase_name(game["game_ruleset"], game["game_phase_name"],
                      game["game_phase_number"] or 0,
                      round_of(game["game_ruleset"], game["game_state"].get("public")))


def _notice_text(game: dict, locale: Locale) -> str:
    """The bell's deadline notice, in the reader's language and timezone."""
    with translation.override(locale.language), timezone.override(locale.timezone):
        local = timezone.localtime(game["game_deadline"])
        return _("%(game)s: %(phase)s ends %(deadline)s") % {
            "game": game["game_name"], "phase": _phase(game),
            "deadline": local.strftime("%Y-%m-%d %H:%M")}


def _email(game: dict, seat: dict, user, locale: Locale, now: dt.datetime) -> dict:
    """The reminder email (`queue_emails`'s arguments): what its text is made of, written
    when it is sent (`reminder_text`): the time really left at this sweep, the reader's
    language and timezone as read now."""
    return {"to": seat["user_email"], "kind": "reminders", "user": user,
            "template": "reminder", "context": {
                "game": game["game_id"], "name": game["game_name"],
                "ruleset": game["game_ruleset"], "phase_name": game["game_phase_name"],
                "phase_number": game["game_phase_number"],
                "round": round_of(game["game_ruleset"], game["game_state"].get("public")),
                "deadline": game["game_deadline"].isoformat(),
                "left": (game["game_deadline"] - now).total_seconds(),
                "language": locale.language, "timezone": locale.timezone}}


def reminder_text(context: dict) -> tuple[str, str]:
    """(subject, body) of a reminder (games.mail.DEFERRED "reminder"), in the active
    language and timezone (the sender activates the reader's)."""
    link = site_url() + reverse("game-act", args=[context["game"]])
    deadline = dt.datetime.fromisoformat(context["deadline"])
    local = timezone.localtime(deadline).strftime("%Y-%m-%d %H:%M")
    subject = _("[%(game)s] %(left)s left: you have not acted yet") % {
        "game": context["name"], "left": time_left(dt.timedelta(seconds=context["left"]))}
    body = _("%(phase)s of %(game)s ends at %(deadline)s (%(zone)s). You have not "
             "acted or voted yet.\n\nAct here: %(link)s\n") % {
        "phase": phase_name(context["ruleset"], context["phase_name"],
                            context.get("phase_number") or 0, context.get("round")),
        "game": context["name"], "deadline": local,
        "zone": timezone.get_current_timezone_name(), "link": link}
    return subject, body
