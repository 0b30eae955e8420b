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
import functools
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
from messaging.notifications import MAX_TEXT, Kind, may_notify, notify_many, site_path

from . import rulesets
from .mail import Locale, nudge_on_commit, queue_emails
from .models import Game, OutboxEmail, ReminderSent, Seat
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
EMAIL_KIND = "reminders"  # accounts.unsubscribe.KINDS: the reminders' one-click unsubscribe
DEFERRED_TEMPLATE = "reminder"  # games.mail.DEFERRED: the sender writes the text


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

    Steps (issue 17 item 3: at most five statements whatever the number due; two on
    PostgreSQL):
    1. Read the games due for a look with their seats, users and profiles, as plain values
       (`read_due`).
    2. For each game, the seats the engine still awaits among the living; for each seat
       the hour marks due now (the nearest one only: earlier ones are marked passed) and
       the game's next look (the next mark any living seated user has left) (`_plan`).
    3. Atomically: claim the reminder rows (INSERT … ON CONFLICT DO NOTHING RETURNING: a
       concurrent sweep's rows are left out), insert the bell notices and the outbox rows
       of the claims made, write the games' next looks. On PostgreSQL that is ONE statement
       (`_write_at_once`), elsewhere four in one transaction (`_write`). An email's text is
       written when it is sent (games.mail.DEFERRED "reminder", `reminder_text`), from what
       the row records: the time left when it fell due, the reader's language and timezone
       then.
    """
    now = now or timezone.now()
    games, seats = read_due(now)
    if not games:
        return 0
    wanted, next_look = _plan(games, seats, now)
    if _at_once():
        return _write_at_once(wanted, next_look, now)
    return _write(wanted, next_look, now)


def _at_once() -> bool:
    """Whether the sweep writes in one statement (PostgreSQL's data-modifying CTEs)."""
    return connection.vendor == "postgresql"


def read_due(now: dt.datetime) -> tuple[dict[int, dict], dict[int, list[dict]]]:
    """`read_seats` of the games due for a look at `now` (at most BATCH, oldest look first),
    in one query."""
    if _at_once():
        return _read_due_at_once(now)
    return read_seats(Game.objects.filter(status=Game.Status.RUNNING, remind_at__lte=now)
                      .order_by("remind_at").values("pk")[:BATCH])


def _read_due_at_once(now: dt.datetime) -> tuple[dict[int, dict], dict[int, list[dict]]]:
    """`read_due` on PostgreSQL: the whole answer as ONE JSON text (one object per game with
    its seats' objects inside, the keys of `read_seats`), decoded by one json.loads; the
    state is decoded once, with the rest."""
    with connection.cursor() as cursor:
        cursor.execute(_read_sql(), {"running": Game.Status.RUNNING, "now": now,
                                     "batch": BATCH})
        found = json.loads(cursor.fetchone()[0])
    games: dict[int, dict] = {}
    seats: dict[int, list[dict]] = {}
    parse = dt.datetime.fromisoformat
    for game in found:
        if game["game_deadline"] is not None:
            game["game_deadline"] = parse(game["game_deadline"])
        games[game["game_id"]] = game
        seats[game["game_id"]] = game.pop("seats")
    return games, seats


def _plan(games: dict[int, dict], seats: dict[int, list[dict]], now: dt.datetime
          ) -> tuple[list[tuple[dict, dict, list[int]]], dict[int, dt.datetime | None]]:
    """What the sweep claims: [(game, seat, hour marks to claim)], and each game's next
    look (None: none)."""
    wanted: list[tuple[dict, dict, list[int]]] = []  # (game, seat, hour marks to claim)
    next_look: dict[int, dt.datetime | None] = {}
    marks_of: dict[str | None, list[int]] = {}  # a profile's reminder_hours, parsed once
    for pk, game in games.items():
        next_look[pk] = None
        deadline = game["game_deadline"]
        if deadline is None or deadline <= now or game["game_current_phase_id"] is None:
            continue  # the game sweep moves it on; a new deadline schedules it again
        engine = rulesets.engine(game["game_ruleset"])
        living = set(engine.living_seats(game["game_state"]))
        owing = None  # what the engine awaits, read when a seat has a mark due
        left = deadline - now
        for seat in seats[pk]:
            if seat["user_id"] is None or not seat["alive"] or seat["number"] not in living:
                continue
            raw = seat["reminder_hours"]  # None: no profile
            hours = marks_of.get(raw)
            if hours is None:
                hours = marks_of[raw] = parse_hours(DEFAULT_HOURS if raw is None else raw)
            later = [h for h in hours if dt.timedelta(hours=h) < left]
            if later:  # the next mark this user has, whether they owe a move now or not
                at = deadline - dt.timedelta(hours=max(later))
                next_look[pk] = at if next_look[pk] is None else min(next_look[pk], at)
            due = [h for h in hours if left <= dt.timedelta(hours=h)]
            if not due:
                continue
            if owing is None:
                owing = set(engine.phase(game["game_state"]).awaiting) & living
            if seat["number"] in owing:
                wanted.append((game, seat, [NOTICE_HOURS, *due] if seat["user_email"]
                               else [NOTICE_HOURS]))
    return wanted, next_look


def _write(wanted: list[tuple[dict, dict, list[int]]],
           next_look: dict[int, dt.datetime | None], now: dt.datetime) -> int:
    """Step 3 in four statements, one transaction (any database): the claims, then the
    notices and the outbox rows of the claims made (notify_many, queue_emails), then the
    next looks. Returns how many emails were queued."""
    # The records, the notices and the emails commit together (no savepoint inside a
    # caller's transaction: a failure here rolls the caller back too).
    with transaction.atomic(savepoint=False):
        claimed = _claim([(game["game_current_phase_id"], seat["user_id"], h)
                          for game, seat, marks in wanted for h in marks], now)
        mine = [(game, seat, [h for h in marks if (game["game_current_phase_id"],
                                                   seat["user_id"], h) in claimed])
                for game, seat, marks in wanted]
        texts = _notice_texts((game, _locale(seat)) for game, seat, marks in mine
                              if NOTICE_HOURS in marks)
        notices, emails = [], []
        for game, seat, marks in mine:
            user = _user(seat)
            locale = _locale(seat)
            if NOTICE_HOURS in marks:
                notices.append({"user": user, "kind": Kind.DEADLINE,
                                "text": texts[game["game_id"], locale],
                                "url": reverse("game-act", args=[game["game_id"]])})
            if len(marks) > (NOTICE_HOURS in marks):
                emails.append(_email(game, seat, user, locale, now))
        notify_many(notices)
        sent = len(queue_emails(emails))
        _reschedule(next_look)
    return sent


def _write_at_once(wanted: list[tuple[dict, dict, list[int]]],
                   next_look: dict[int, dt.datetime | None], now: dt.datetime) -> int:
    """Step 3 on PostgreSQL in ONE statement (`_WRITE_SQL`, atomic by itself: no BEGIN or
    COMMIT of its own; inside a caller's transaction it is part of it): the claims, the
    notices and the outbox rows of the claims it made (data-modifying CTEs joined on the
    claims' RETURNING), the next looks. Each list travels as one JSON parameter. The rows
    are those `_write` writes (notify_many's rules for who gets a notice; queue_emails'
    deferred row). Returns how many emails were queued; the worker is nudged once the
    statement's transaction commits."""
    claims, notices, emails = [], [], []
    act = _act_path()
    texts = _notice_texts((game, _locale(seat)) for game, seat, marks in wanted
                          if may_notify(user_id=seat["user_id"], username=seat["user_username"],
                                        is_active=seat["user_is_active"]))
    for game, seat, marks in wanted:
        phase, user = game["game_current_phase_id"], seat["user_id"]
        claims.extend({"p": phase, "u": user, "h": h} for h in marks)
        locale = _locale(seat)
        text = texts.get((game["game_id"], locale))
        if text is not None:
            notices.append({"p": phase, "u": user, "text": text[:MAX_TEXT],
                            "url": site_path(act.format(game["game_id"]))})
        if len(marks) > 1:  # an hour mark besides the notice's
            emails.append({"p": phase, "u": user, "to": seat["user_email"],
                           "context": _context(game, locale, now)})
    looks = [{"id": pk, "at": None if at is None else at.isoformat()}
             for pk, at in next_look.items()]
    written = timezone.now()  # the notices' and the outbox rows' created (the real clock)
    with connection.cursor() as cursor:
        cursor.execute(_write_sql(), {
            "now": now, "claims": json.dumps(claims), "notice_kind": Kind.DEADLINE.value,
            "written": written, "notices": json.dumps(notices), "email_kind": EMAIL_KIND,
            "template": DEFERRED_TEMPLATE, "emails": json.dumps(emails),
            "looks": json.dumps(looks)})
        pks = [row[0] for row in cursor.fetchall()]
    nudge_on_commit(pks)
    return len(pks)


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
        return _notice_line(game)


def _notice_line(game: dict) -> str:
    """`_notice_text` in the active language and timezone."""
    local = timezone.localtime(game["game_deadline"])
    return _("%(game)s: %(phase)s ends %(deadline)s") % {
        "game": game["game_name"], "phase": _phase(game),
        "deadline": local.strftime("%Y-%m-%d %H:%M")}


def _notice_texts(wanted) -> dict[tuple[int, Locale], str]:
    """`_notice_text` of each (game, locale) of `wanted`, keyed (game pk, locale): one
    language and timezone switch per locale, not per notice."""
    by_locale: dict[Locale, dict[int, dict]] = {}
    for game, locale in wanted:
        by_locale.setdefault(locale, {})[game["game_id"]] = game
    texts = {}
    for locale, games in by_locale.items():
        with translation.override(locale.language), timezone.override(locale.timezone):
            for pk, game in games.items():
                texts[pk, locale] = _notice_line(game)
    return texts


def _act_path() -> str:
    """reverse("game-act", args=[pk]) as a format string of the pk: one reverse() a sweep."""
    marker = 987654321
    return reverse("game-act", args=[marker]).replace("{", "{{").replace(
        "}", "}}").replace(str(marker), "{}")


def _email(game: dict, seat: dict, user, locale: Locale, now: dt.datetime) -> dict:
    """The reminder email (`queue_emails`'s arguments): what its text is made of, written
    when it is sent (`reminder_text`)."""
    return {"to": seat["user_email"], "kind": EMAIL_KIND, "user": user,
            "template": DEFERRED_TEMPLATE, "context": _context(game, locale, now)}


def _context(game: dict, locale: Locale, now: dt.datetime) -> dict:
    """The deferred email's context: the time really left at this sweep, the reader's
    language and timezone as read now."""
    return {"game": game["game_id"], "name": game["game_name"],
            "ruleset": game["game_ruleset"], "phase_name": game["game_phase_name"],
            "phase_number": game["game_phase_number"],
            "round": round_of(game["game_ruleset"], game["game_state"].get("public")),
            "deadline": game["game_deadline"].isoformat(),
            "left": (game["game_deadline"] - now).total_seconds(),
            "language": locale.language, "timezone": locale.timezone}


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@functools.cache
def _read_sql() -> str:
    """`_read_due_at_once`'s query: the games due for a look (the partial index
    game_remind_due, oldest look first, at most BATCH), each one JSON object with its
    seats' (user and profile joined) inside, all of them one JSON array (one row, one
    column). The keys are `read_seats`'."""
    from django.contrib.auth import get_user_model

    from accounts.models import Profile

    game, seat = _table(Game), _table(Seat)
    user, profile = _table(get_user_model()), _table(Profile)
    return f"""SELECT coalesce(json_agg(json_build_object(
    'game_id', g.id, 'game_name', g.name, 'game_ruleset', g.ruleset, 'game_state', g.state,
    'game_deadline', g.deadline, 'game_phase_name', g.phase_name,
    'game_phase_number', g.phase_number, 'game_current_phase_id', g.current_phase_id,
    'seats', (SELECT coalesce(json_agg(json_build_object(
        'number', s.number, 'user_id', s.user_id, 'alive', s.alive,
        'user_username', u.username, 'user_email', u.email, 'user_is_active', u.is_active,
        'language', p.language, 'timezone', p.timezone,
        'reminder_hours', p.reminder_hours)), '[]')
      FROM {seat} s LEFT JOIN {user} u ON u.id = s.user_id
      LEFT JOIN {profile} p ON p.user_id = s.user_id
      WHERE s.game_id = g.id))), '[]')::text
FROM (SELECT * FROM {game} WHERE status = %(running)s AND remind_at <= %(now)s
      ORDER BY remind_at LIMIT %(batch)s) g"""  # noqa: S608 (names from _meta, values bound)


@functools.cache
def _write_sql() -> str:
    """`_write_at_once`'s statement: claim (phase, user, hours) rows, then insert the notices
    whose NOTICE_HOURS claim it made and the outbox rows whose (phase, user) it claimed an
    hour mark of, write the next looks; answer the outbox rows' ids. Every column is named
    with the value the models' defaults give (Notification: no actor, thread, post or
    conversation, unread; OutboxEmail: a deferred row, as games.mail._deferred_row, never
    attempted, due at once)."""
    from messaging.models import Notification

    claims, notices = _table(ReminderSent), _table(Notification)
    outbox, game = _table(OutboxEmail), _table(Game)
    return f"""WITH claimed AS (
  INSERT INTO {claims} (phase_id, user_id, hours, created)
  SELECT c.p, c.u, c.h, %(now)s FROM json_to_recordset(%(claims)s::json)
    AS c(p bigint, u integer, h integer)
  ON CONFLICT DO NOTHING RETURNING phase_id, user_id, hours
), notices AS (
  INSERT INTO {notices} (user_id, kind, actor_id, thread_id, post_id, conversation_id,
                         text, url, created_at, read_at)
  SELECT n.u, %(notice_kind)s, NULL, NULL, NULL, NULL, n.text, n.url, %(written)s, NULL
  FROM json_to_recordset(%(notices)s::json) AS n(p bigint, u integer, text text, url text)
  JOIN claimed c ON c.phase_id = n.p AND c.user_id = n.u AND c.hours = {NOTICE_HOURS}
), emails AS (
  INSERT INTO {outbox} (kind, user_id, "to", subject, body, html, headers, template,
                        context, created, next_attempt_at, attempts, last_error, sent_at,
                        failed_at)
  SELECT %(email_kind)s, e.u, e.to, '', '', '', '{{}}'::jsonb, %(template)s, e.context,
         %(written)s, %(written)s, 0, '', NULL, NULL
  FROM json_to_recordset(%(emails)s::json) AS e(p bigint, u integer, "to" text, context jsonb)
  WHERE EXISTS (SELECT FROM claimed c WHERE c.phase_id = e.p AND c.user_id = e.u
                AND c.hours <> {NOTICE_HOURS})
  RETURNING id
), looks AS (
  UPDATE {game} SET remind_at = l.at
  FROM json_to_recordset(%(looks)s::json) AS l(id bigint, at timestamptz)
  WHERE {game}.id = l.id
)
SELECT id FROM emails"""  # noqa: S608 (names from _meta, values bound)


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
