"""Email reminders before a deadline, to the players who still owe an action or a vote.

Each user picks the hours before a deadline (profile `reminder_hours`, default 6 and 1).
One email per (phase, user, hour mark) at most, even when two sweeps run at once: a user's
reminders in a phase are ONE ReminderSent row (unique per phase and user), made with the
first reminder and moved to each nearer mark after it (`hours`, only ever down), so a mark
can be claimed once only. The row and the email's outbox row (games/mail.py) are written in
one transaction: a reminder recorded as sent always has its outbox row, which is retried
until the mail server accepts it. When a sweep finds several marks due at once (a phase
shorter than the first reminder, a late first sweep), only the nearest is sent; the row's
`hours` says the earlier ones have passed. The subject states the time really left
("4 min left", not the hour mark that fell due).

Marks are scaled to the phase (`scaled_marks`): a mark farther from the deadline than half
the phase is not used in it (it would fall due at the phase's start), and a phase too short
for any of the user's marks gets one reminder a quarter of the phase before its deadline
(mark 0). docs/gm-guide.md tells the GM.

The email's text is written when it leaves (games.mail.DEFERRED): then `still_due` checks
that the game's current phase is still the one the reminder is for and its deadline still
ahead; otherwise the email is dropped unsent (a worker that sends 45 s late must not tell a
player to act in a night that has ended).

With the first reminder of a phase the user also gets one on-site notice (the bell), once
per (phase, user): the sweep that makes the row rings it (`first_hours`, the mark the row
was made with, equals `hours` only then). Only living seats the engine still awaits are
reminded: a dead or fouled-out seat owes nothing (the engine's living seats decide, not
only the Seat row's `alive` copy; the services record them with each state written).
A night that closes its choices before its deadline (`Game.choices_close_at`, Classic's
extra check) is reminded of that close instead, and nothing is sent after it: from then
the same holds for every seat, whoever the engine awaits.

The cost is O(reminders due), not O(running games): a game's ReminderLook says when the
sweep should next look at it (a narrow row of its own: moving it leaves the game's row and
page version alone). A changed deadline sets it REMINDER_MAX_HOURS before the
deadline (Game.save); each look sends what is due and moves it to the next hour mark any
living seated user has left (None when there is none); a user who changes their hours has
their running games looked at again (games/signals.py). Whatever the number due, a sweep
is two statements: one read of the games to look at, each with its seats, users and
profiles and who the engine awaits (`Game.awaiting`, games/awaiting.py: the state itself
only where that record is empty), as one JSON text; one write (data-modifying CTEs) that
claims the reminded seats' marks (INSERT … ON CONFLICT DO UPDATE … WHERE nearer
RETURNING), inserts the bell notices of the rows it made and the outbox rows of the marks
it claimed, and writes the games' next looks.
"""

from __future__ import annotations

import datetime as dt
import functools

import orjson
from django.conf import settings
from django.db import connection
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from config.site import site_url
from messaging.notifications import MAX_TEXT, Kind, may_notify, site_path

from . import awaiting
from .mail import Locale, nudge_on_commit
from .models import Game, OutboxEmail, Phase, ReminderLook, ReminderSent, Seat
from .models.game import REMINDER_MAX_HOURS
from .presenters import phase_name

MAX_HOURS = REMINDER_MAX_HOURS
BATCH = 500  # games looked at per sweep; the rest wait for the next one (oldest first)
# A seat's values as read (plain values: a sweep builds no model instance per reminder), in
# this order (lists, not objects: less JSON to build and read, and no dict for each of the
# many seats a sweep passes over); `seat_values` names them.
SEAT_FIELDS = ("number", "user_id", "alive", "user_username", "user_email", "user_is_active",
               "language", "timezone", "reminder_hours")
# A game's values as `read_due` names them, in the order it reads them (its seats last; the
# state only where the awaiting record is empty).
GAME_FIELDS = ("game_id", "game_status", "game_name", "game_ruleset", "game_awaiting",
               "game_state", "game_deadline", "game_phase_name", "game_phase_number",
               "game_current_phase_id", "game_phase_started")
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


def phase_length(started: dt.datetime | None, deadline: dt.datetime) -> dt.timedelta | None:
    """How long the phase runs, from its start to its deadline as it stands (an extended
    deadline lengthens it); None when the start is unknown."""
    return None if started is None else deadline - started


def scaled_marks(marks: list[tuple[int, dt.timedelta]], length: dt.timedelta | None
                 ) -> list[tuple[int, dt.timedelta]]:
    """A user's marks (hours, as a span; largest first) as they apply to a phase of `length`.

    A reminder is worth sending only once a good part of the phase has gone: a mark farther
    from the deadline than half the phase would fall due at (or before) the phase's start
    and tell a player who has just been told the phase began that it is ending. So marks
    longer than half the phase are dropped; when none is left (a phase shorter than twice
    the user's nearest mark: a 10-minute or a 1-hour phase with the default 6 and 1 hours),
    one reminder is sent a quarter of the phase before the deadline instead, as mark 0
    (nearer than every hour mark, so the claims' "only ever nearer" rule holds). A user
    with no marks (reminders turned off) still gets none.
    """
    if length is None or not marks:
        return marks
    half = length / 2
    kept = [(hours, span) for hours, span in marks if span <= half]
    return kept or [(0, length / 4)]


def seat_values(seat: list) -> dict:
    """A seat's values as read (SEAT_FIELDS' order), named."""
    return dict(zip(SEAT_FIELDS, seat, strict=True))


def send_due_reminders(*, now: dt.datetime | None = None) -> int:
    """Send every reminder that is due now; return how many emails were sent.

    Steps (two statements whatever the number due):
    1. Read the games due for a look with their seats, users and profiles, as plain values
       (`read_due`).
    2. For each game, the seats the engine still awaits among the living; for each seat
       the hour marks due now (the nearest one only: earlier ones are marked passed) and
       the game's next look (the next mark any living seated user has left) (`_plan`).
    3. Atomically: claim each reminded seat's mark (`_NEARER`: the user's row of the phase
       made, or moved to a nearer mark; a mark an earlier or a concurrent sweep claimed is
       left out), insert the bell notices of the rows made and the outbox rows of the
       claims made, write the games' next looks, in ONE statement (`_write`). An email's
       text is written when it is sent (games.mail.DEFERRED "reminder", `reminder_text`),
       from what the row records: the time left when it fell due, the reader's language
       and timezone then.
    """
    now = now or timezone.now()
    games, seats = read_due(now)
    if not games:
        return 0
    wanted, next_look = _plan(games, seats, now)
    return _write(wanted, next_look, now)


def read_due(now: dt.datetime) -> tuple[dict[int, dict], dict[int, list[list]]]:
    """The games due for a look at `now` (at most BATCH, oldest look first) and their seats,
    in one query answering ONE JSON text (`_read_sql`), decoded by one decode (the state
    once per game, with the rest): ({game pk: its GAME_FIELDS, named}, {game pk: its seats'
    values, each a list in SEAT_FIELDS' order})."""
    with connection.cursor() as cursor:
        cursor.execute(_read_sql(), {"now": now, "batch": BATCH})
        found = orjson.loads(cursor.fetchone()[0])
    games: dict[int, dict] = {}
    seats: dict[int, list[list]] = {}
    parse = dt.datetime.fromisoformat
    for *values, game_seats in found:
        game = dict(zip(GAME_FIELDS, values, strict=True))
        if game["game_deadline"] is not None:
            game["game_deadline"] = parse(game["game_deadline"])
        if game["game_phase_started"] is not None:
            game["game_phase_started"] = parse(game["game_phase_started"])
        games[game["game_id"]] = game
        seats[game["game_id"]] = game_seats
    return games, seats


def _plan(games: dict[int, dict], seats: dict[int, list[list]], now: dt.datetime
          ) -> tuple[list[tuple[dict, dict, int]], dict[int, dt.datetime | None]]:
    """What the sweep claims: [(game, seat's values named, the nearest hour mark due)], one
    per (phase, user), and each game's next look (None: none)."""
    wanted: dict[tuple[int, int], tuple[dict, dict, int]] = {}  # (phase, user): the claim
    next_look: dict[int, dt.datetime | None] = {}
    # a profile's reminder_hours, parsed once: its marks (hours, as a span), largest first
    marks_of: dict[str | None, list[tuple[int, dt.timedelta]]] = {}
    for pk, game in games.items():
        next_look[pk] = None
        deadline = game["game_deadline"]
        if (game["game_status"] != Game.Status.RUNNING or deadline is None or deadline <= now
                or game["game_current_phase_id"] is None):
            continue  # over, or the game sweep moves it on: a new deadline schedules it again
        view = _view(game)
        if view is None:
            continue
        living, owing = set(view["living"]), set(view["awaiting"])
        left = deadline - now
        length = phase_length(game["game_phase_started"], deadline)
        nearest: dict[str | None, int | None] = {}  # each user's hours: the nearest mark due
        for seat in seats[pk]:
            # (SEAT_FIELDS; raw: the profile's reminder_hours, None without a profile)
            number, user_id, alive, _name, _email, _active, _language, _zone, raw = seat
            if user_id is None or not alive or number not in living:
                continue
            if raw not in nearest:  # these hours' marks: those due now, then the ones left
                marks = marks_of.get(raw)
                if marks is None:
                    marks = marks_of[raw] = [(h, dt.timedelta(hours=h)) for h in parse_hours(
                        DEFAULT_HOURS if raw is None else raw)]
                due = None
                for hours, span in scaled_marks(marks, length):
                    if span < left:  # the largest mark left: the user's next (owing or not)
                        at = deadline - span
                        next_look[pk] = at if next_look[pk] is None else min(next_look[pk], at)
                        break
                    due = hours  # due now: the last of them is the nearest
                nearest[raw] = due
            mark = nearest[raw]
            if mark is not None and number in owing:  # (one claim a user, seated twice)
                wanted[game["game_current_phase_id"], user_id] = (game, seat_values(seat), mark)
    return list(wanted.values()), next_look


def _write(wanted: list[tuple[dict, dict, int]],
           next_look: dict[int, dt.datetime | None], now: dt.datetime) -> int:
    """Step 3 in ONE statement (`_write_sql`; atomic by itself, so no BEGIN or COMMIT;
    inside a caller's transaction it is part of that): the claims, the notices and the
    outbox rows of the claims it made (data-modifying CTEs joined on the claims'
    RETURNING), the next looks. What to write travels as two JSON parameters: one record
    per reminded seat (its mark, its notice's text and link, its email's address and
    context) and the next looks. A notice is kept by `notify`'s rule (`may_notify`); an
    email is a deferred outbox row (games.mail.DEFERRED: its text is written when it is
    sent). Returns how many emails were queued; the worker is nudged once the statement's
    transaction commits.

    Outside a caller's transaction the statement commits without waiting for its WAL to
    reach the disk (synchronous_commit off, for this transaction only: the flush was a third
    of a busy sweep). A database crash in the next fraction of a second can then lose the
    whole sweep, never part of it: the claims, notices, outbox rows and next looks go
    together, and the next sweep after the restart finds the same reminders due and sends
    them. A row the worker already sent is kept: its worker's own commit flushes the WAL
    up to it."""
    act = _act_path()
    seats = []
    for game, seat, mark in wanted:
        seats.append((game, seat, mark, _locale(seat), may_notify(
            user_id=seat["user_id"], username=seat["user_username"],
            is_active=seat["user_is_active"])))
    texts = _notice_texts((game, locale) for game, _seat, _mark, locale, notice in seats
                          if notice)
    records = []
    for game, seat, mark, locale, notice in seats:
        to = seat["user_email"] or None  # no address: the claim and the bell, no email
        records.append({
            "p": game["game_current_phase_id"], "u": seat["user_id"], "h": mark,
            "text": texts[game["game_id"], locale][:MAX_TEXT] if notice else None,
            "url": site_path(act.format(game["game_id"])) if notice else None,
            "to": to, "context": _context(game, locale, now) if to else None})
    looks = [{"id": pk, "at": None if at is None else at.isoformat()}
             for pk, at in next_look.items()]
    written = timezone.now()  # the notices' and the outbox rows' created (the real clock)
    with connection.cursor() as cursor:
        cursor.execute(_write_sql(), {
            "now": now, "seats": orjson.dumps(records).decode(),
            "notice_kind": Kind.DEADLINE.value, "written": written, "email_kind": EMAIL_KIND,
            "template": DEFERRED_TEMPLATE, "looks": orjson.dumps(looks).decode(),
            "commit": None if connection.in_atomic_block else "off"})
        pks = cursor.fetchone()[0]
    nudge_on_commit(pks)
    return len(pks)


def _locale(seat: dict) -> Locale:
    """`mail.user_locale` of the seat's user, from the values read."""
    return Locale(language=seat["language"] or settings.LANGUAGE_CODE,
                  timezone=seat["timezone"] or settings.DEFAULT_USER_TIMEZONE)


# A claim: a user's row of the phase is made, or moved to a nearer mark; a mark already
# claimed or passed (the row's `hours` is not farther) changes nothing and is not answered.
# Only a row made by this statement has `hours` = `first_hours` (a move makes them differ).
_NEARER = ("ON CONFLICT (phase_id, user_id) DO UPDATE "
           "SET hours = excluded.hours, created = excluded.created "
           "WHERE {table}.hours > excluded.hours "
           "RETURNING phase_id, user_id, hours = first_hours AS first")


def _view(game: dict) -> dict | None:
    """Who the engine awaits in the game (living, awaiting, round): as written with the state
    (games/awaiting.py), or worked out from the state where that record is empty; kept on
    the game's values."""
    if "view" not in game:
        game["view"] = (game["game_awaiting"]
                        or awaiting.of_state(game["game_ruleset"], game["game_state"]))
    return game["view"]


def _phase_of(game: dict) -> tuple[str, str, int, int | None]:
    """`phase_name`'s arguments for the game's current phase."""
    return (game["game_ruleset"], game["game_phase_name"], game["game_phase_number"] or 0,
            _view(game)["round"])


def _notice_texts(wanted) -> dict[tuple[int, Locale], str]:
    """The bell's deadline notice of each (game, locale) of `wanted`, in that reader's
    language and timezone, keyed (game pk, locale): one language and timezone switch per
    locale (not per notice), each phase name written once per locale (many games are at
    the same phase)."""
    by_locale: dict[Locale, dict[int, dict]] = {}
    for game, locale in wanted:
        by_locale.setdefault(locale, {})[game["game_id"]] = game
    texts = {}
    for locale, games in by_locale.items():
        with translation.override(locale.language), timezone.override(locale.timezone):
            line = _("%(game)s: %(phase)s ends %(deadline)s")
            zone = timezone.get_current_timezone()
            phases: dict[tuple, str] = {}
            for pk, game in games.items():
                key = _phase_of(game)
                if key not in phases:
                    phases[key] = phase_name(*key)
                # "2026-12-02 09:20", as strftime("%Y-%m-%d %H:%M") writes it in half the time
                local = game["game_deadline"].astimezone(zone).isoformat(" ", "minutes")[:16]
                texts[pk, locale] = line % {"game": game["game_name"], "phase": phases[key],
                                            "deadline": local}
    return texts


def _act_path() -> str:
    """reverse("game-act", args=[pk]) as a format string of the pk: one reverse() a sweep."""
    marker = 987654321
    return reverse("game-act", args=[marker]).replace("{", "{{").replace(
        "}", "}}").replace(str(marker), "{}")


def _context(game: dict, locale: Locale, now: dt.datetime) -> dict:
    """The deferred email's context: the time really left at this sweep, the reader's
    language and timezone as read now."""
    return {"game": game["game_id"], "name": game["game_name"],
            "phase": game["game_current_phase_id"],
            "ruleset": game["game_ruleset"], "phase_name": game["game_phase_name"],
            "phase_number": game["game_phase_number"],
            "round": _view(game)["round"],
            "deadline": game["game_deadline"].isoformat(),
            "left": (game["game_deadline"] - now).total_seconds(),
            "language": locale.language, "timezone": locale.timezone}


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@functools.cache
def _read_sql() -> str:
    """`read_due`'s query: the games due for a look (the partial index
    reminder_look_due, oldest look first, at most BATCH), each one JSON array of GAME_FIELDS
    (the state only where the `awaiting` record is empty) and its seats, an array of arrays
    of SEAT_FIELDS (user and profile joined); all of them one JSON array (one row, one
    column). Arrays, not objects: no key written and read again for each game and seat."""
    from django.contrib.auth import get_user_model

    from accounts.models import Profile

    game, seat, look, phase = _table(Game), _table(Seat), _table(ReminderLook), _table(Phase)
    user, profile = _table(get_user_model()), _table(Profile)
    return f"""SELECT coalesce(json_agg(json_build_array(
    g.id, g.status, g.name, g.ruleset, g.awaiting, g.state, g.deadline, g.phase_name,
    g.phase_number, g.current_phase_id, g.phase_started,
    (SELECT coalesce(json_agg(json_build_array(
        s.number, s.user_id, s.alive, u.username, u.email, u.is_active, p.language,
        p.timezone, p.reminder_hours)), '[]')
      FROM {seat} s LEFT JOIN {user} u ON u.id = s.user_id
      LEFT JOIN {profile} p ON p.user_id = s.user_id
      WHERE s.game_id = g.id))), '[]')::text
FROM (SELECT g.id, g.status, g.name, g.ruleset, g.awaiting,
             CASE WHEN g.awaiting IS NULL THEN g.state END AS state,
             coalesce(g.choices_close_at, g.deadline) AS deadline,
             g.phase_name, g.phase_number, g.current_phase_id,
             (SELECT ph.started_at FROM {phase} ph WHERE ph.id = g.current_phase_id)
               AS phase_started
      FROM {look} l JOIN {game} g ON g.id = l.game_id
      WHERE l.at <= %(now)s ORDER BY l.at LIMIT %(batch)s) g"""  # noqa: S608 (names from _meta, values bound)


@functools.cache
def _write_sql() -> str:
    """`_write`'s statement: claim each reminded seat's (phase, user, mark) (`_NEARER`),
    then insert the notices of the rows it made and the outbox rows of the claims it made,
    write the next looks; answer the outbox rows' ids (and set this transaction's
    synchronous_commit). Every column is named, with the value the models' defaults give
    (Notification: no actor, thread, post or conversation, unread; OutboxEmail: a deferred
    row, its subject and body empty until the sender writes them (games.mail.DEFERRED),
    never attempted, due at once). The two parameters are read as jsonb, parsed once (read
    as json, each field of each record is looked for in the text again: four times as
    long). The looks are found by their primary key, the keys given as an ANY of a
    sub-select, which the planner takes for a few keys (joining the JSON rows by hash, it
    reads every running game's look: at 10,000 the update took twice as long)."""
    from messaging.models import Notification

    claims, notices = _table(ReminderSent), _table(Notification)
    outbox, look = _table(OutboxEmail), _table(ReminderLook)
    return f"""WITH seat AS MATERIALIZED (
  SELECT * FROM jsonb_to_recordset(%(seats)s::jsonb)
    AS s(p bigint, u integer, h integer, text text, url text, "to" text, context jsonb)
), claimed AS (
  INSERT INTO {claims} (phase_id, user_id, hours, first_hours, created)
  SELECT seat.p, seat.u, seat.h, seat.h, %(now)s FROM seat
  {_NEARER.format(table=claims)}
), notices AS (
  INSERT INTO {notices} (user_id, kind, actor_id, thread_id, post_id, conversation_id,
                         text, url, created_at, read_at)
  SELECT seat.u, %(notice_kind)s, NULL, NULL, NULL, NULL, seat.text, seat.url,
         %(written)s, NULL
  FROM seat JOIN claimed c ON c.phase_id = seat.p AND c.user_id = seat.u
  WHERE c.first AND seat.text IS NOT NULL
), emails AS (
  INSERT INTO {outbox} (kind, user_id, "to", subject, body, html, headers, template,
                        context, created, next_attempt_at, attempts, last_error, sent_at,
                        failed_at)
  SELECT %(email_kind)s, seat.u, seat."to", '', '', '', '{{}}'::jsonb, %(template)s,
         seat.context, %(written)s, %(written)s, 0, '', NULL, NULL
  FROM seat JOIN claimed c ON c.phase_id = seat.p AND c.user_id = seat.u
  WHERE seat."to" IS NOT NULL
  RETURNING id
), looks AS (
  UPDATE {look} SET at = l.at
  FROM jsonb_to_recordset(%(looks)s::jsonb) AS l(id bigint, at timestamptz)
  WHERE {look}.game_id = l.id
    AND {look}.game_id = ANY(ARRAY(SELECT (e->>'id')::bigint
                                   FROM jsonb_array_elements(%(looks)s::jsonb) e))
)
SELECT array(SELECT id FROM emails ORDER BY id),
       set_config('synchronous_commit',
                  coalesce(%(commit)s, current_setting('synchronous_commit')), true)
"""  # noqa: S608 (names from _meta, values bound)


def still_due(context: dict, now: dt.datetime) -> dt.datetime | None:
    """The deadline of the reminder's phase when the reminder still makes sense at `now`
    (the sender's clock, as the email is about to leave): the game runs, its current phase is
    the one the reminder was queued for, and its deadline is ahead. None otherwise: the
    phase ended (by its deadline, early, by the GM) or the game stopped between the sweep
    and the send (a busy worker, an SMTP outage's retries), and the email would tell a
    player to act in a phase that is over. One indexed read by primary key."""
    row = (Game.objects.filter(pk=context["game"], status=Game.Status.RUNNING)
           .values("current_phase_id", "deadline", "choices_close_at", "phase_name",
                   "phase_number").first())
    if row is not None and row["choices_close_at"] is not None:
        row["deadline"] = row["choices_close_at"]  # a night's choices close before its end
    if row is None or row["deadline"] is None or row["deadline"] <= now:
        return None
    if context.get("phase") is not None:
        same = row["current_phase_id"] == context["phase"]
    else:  # queued before the phase was recorded in the context
        same = (row["phase_name"], row["phase_number"] or 0) == (
            context["phase_name"], context.get("phase_number") or 0)
    return row["deadline"] if same else None


def reminder_text(context: dict, *, now: dt.datetime | None = None
                  ) -> tuple[str, str] | None:
    """(subject, body) of a reminder (games.mail.DEFERRED "reminder"), in the active
    language and timezone (the sender activates the reader's); None when, at the sender's
    `now`, the reminder no longer makes sense (`still_due`: the email is dropped unsent).
    The subject states the time left when the email leaves: the sweep's figure, or less when
    the send came later, or the time to a deadline the GM moved since (without `now`, as
    the dev outbox previews it, the sweep's figure and deadline)."""
    link = site_url() + reverse("game-act", args=[context["game"]])
    deadline = dt.datetime.fromisoformat(context["deadline"])
    left = dt.timedelta(seconds=context["left"])
    if now is not None:
        current = still_due(context, now)
        if current is None:
            return None
        left = min(left, current - now) if current == deadline else current - now
        deadline = current
    local = timezone.localtime(deadline).strftime("%Y-%m-%d %H:%M")
    subject = _("[%(game)s] %(left)s left: you have not acted yet") % {
        "game": context["name"], "left": time_left(left)}
    body = _("%(phase)s of %(game)s ends at %(deadline)s (%(zone)s). You have not "
             "acted or voted yet.\n\nAct here: %(link)s\n") % {
        "phase": phase_name(context["ruleset"], context["phase_name"],
                            context.get("phase_number") or 0, context.get("round")),
        "game": context["name"], "deadline": local,
        "zone": timezone.get_current_timezone_name(), "link": link}
    return subject, body
