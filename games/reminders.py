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

The email says what the seat still owes, read from the state when it leaves (the engine's
`duties`: "send your loss order", "vote (or send a proxy vote)"), so a seat that passed on
night 1 and owes only its loss order is not told it has not acted or voted
(`owed_steps`); a context without a seat (queued before it carried one) or a seat that
owes nothing the engine names keeps the general sentence.

With the first reminder of a phase the user also gets one on-site notice (the bell), once
per (phase, user): the sweep that makes the row rings it (`first_hours`, the mark the row
was made with, equals `hours` only then). Only living seats the engine still awaits are
reminded: a dead or fouled-out seat owes nothing (the engine's living seats decide, not
only the Seat row's `alive` copy; the services record them with each state written).
A night that closes its choices before its deadline (`Game.choices_close_at`, Classic's
extra check) is reminded of that close instead, and nothing is sent after it: from then
the same holds for every seat, whoever the engine awaits.

The cost follows the reminders due, not the running games: a game's ReminderLook says when
the sweep should next look at it (a narrow row of its own: moving it leaves the game's row
and page version alone). The services set it REMINDER_MAX_HOURS before the deadline whenever
the phase or the deadline changes (games.services.kernel.changed) and when a seated user
changes their hours (games.services.profile_saved); each look sends what is due and moves
it to the next hour mark any living seated user has left (None when there is none).

A sweep is a plain ORM loop under a query budget that does not grow with the games, seats
or reminders due (tests/services/test_reminders.py): in one transaction, the due looks
locked (SKIP LOCKED: two sweeps never look at the same game at once, so a claim read and
then written cannot race), the games, their living seats with their users' columns and
each user's claim of the phase, then the claims made or moved, the bell notices, the
outbox rows and the next looks, each one bulk statement: seven in all. It reads plain
values (`values_list` of the columns it uses) and builds model instances only for the rows
it writes: building one for every game, seat, user and profile read was most of a sweep's
time. A game's `awaiting` record (games/awaiting.py) says who the engine awaits while its
step count is the game's; otherwise the state is read for that game (one more query for
it alone).
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from config.site import site_url
from messaging.models import Notification
from messaging.notifications import MAX_TEXT, Kind, may_notify, publish_counts, site_path

from . import awaiting, rulesets
from .mail import Locale, nudge_on_commit, profile_locale
from .models import Game, OutboxEmail, ReminderLook, ReminderSent, Seat
from .models.game import REMINDER_MAX_HOURS
from .presenters import phase_name

MAX_HOURS = REMINDER_MAX_HOURS
BATCH = 500  # games looked at per sweep; the rest wait for the next one (oldest look first)
DEFAULT_HOURS = "6,1"  # accounts.models.Profile.reminder_hours' default (no profile)
EMAIL_KIND = "reminders"  # accounts.unsubscribe.KINDS: the reminders' one-click unsubscribe
DEFERRED_TEMPLATE = "reminder"  # games.mail.DEFERRED: the sender writes the text
# What a sweep reads of a game, in DueGame's order (not its state: `who_is_awaited` reads
# that only for a game whose awaiting record is stale).
GAME_COLUMNS = ("id", "status", "name", "ruleset", "awaiting", "steps", "deadline",
                "choices_close_at", "phase_name", "phase_number", "current_phase_id",
                "current_phase__started_at")
# What it reads of a living seat with a user: the game, then Reader's fields in order.
SEAT_COLUMNS = ("game_id", "number", "user_id", "user__email", "user__username",
                "user__is_active", "user__profile__reminder_hours", "user__profile__language",
                "user__profile__timezone")


class Reader(NamedTuple):
    """A living seat's user as the sweep reads them: plain values, no model instance."""

    number: int
    user_id: int
    email: str
    username: str
    is_active: bool
    hours: str | None  # the profile's reminder_hours; None without a profile
    language: str | None  # the profile's; None without one, "" for the site's default
    timezone: str | None
    claimed: int | None  # the mark of the user's claim of the game's current phase, if any

    @property
    def locale(self) -> Locale:
        """games.mail.user_locale's answer, from the plain values."""
        return profile_locale(self.language, self.timezone)


_UNREAD = object()  # DueGame.awaited before who_is_awaited has read it


@dataclass(slots=True, eq=False)
class DueGame:
    """A game due for a look as the sweep reads it: GAME_COLUMNS, and `seats`, its living
    seats that have a user."""

    pk: int
    status: str
    name: str
    ruleset: str
    awaiting: dict | None
    steps: int
    deadline: dt.datetime | None
    choices_close_at: dt.datetime | None
    phase_name: str
    phase_number: int | None
    current_phase_id: int | None
    started_at: dt.datetime | None  # the current phase's
    seats: list[Reader] = field(default_factory=list)
    awaited: object = _UNREAD  # who_is_awaited's answer, once read


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


def due_games(now: dt.datetime, *, lock: bool = False) -> list[DueGame]:
    """The games due for a look at `now` (at most BATCH, the oldest look first), each with
    its living seats that have a user, their users' columns and each user's claim of the
    game's current phase (`Reader.claimed`). With `lock` (inside a transaction) their looks
    are locked, SKIP LOCKED (the looks alone: that statement reads no other table); the
    games, seats and claims are read by the statements after it, so they are the ones as
    they stand once the looks are held. Three queries, one when no look is due.
    (`order_by()`: no model's default order, which for the seats would join the games.)"""
    looks = ReminderLook.objects.filter(at__lte=now).order_by("at")
    if lock:
        looks = looks.select_for_update(skip_locked=True)
    pks = list(looks.values_list("game_id", flat=True)[:BATCH])
    if not pks:
        return []
    games = {row[0]: DueGame(*row) for row in
             Game.objects.filter(pk__in=pks).order_by().values_list(*GAME_COLUMNS)}
    # The seat's user's claim of its game's current phase: two index probes a seat (the
    # game by key, the claim by its unique (phase, user)), no join of the games.
    current_phase = Game.objects.filter(pk=OuterRef(OuterRef("game_id"))).order_by().values(
        "current_phase_id")
    claimed = ReminderSent.objects.filter(phase_id=Subquery(current_phase),
                                          user_id=OuterRef("user_id")).values("hours")
    for game_id, *seat in (Seat.objects.filter(game_id__in=pks, alive=True, user__isnull=False)
                           .order_by().values_list(*SEAT_COLUMNS, Subquery(claimed))):
        games[game_id].seats.append(Reader(*seat))
    return [games[pk] for pk in pks if pk in games]


def reminder_deadline(game: DueGame) -> dt.datetime | None:
    """The moment a reminder aims at: the night's choices' close where the phase keeps time
    for one run inside it (Game.choices_close_at), else the deadline."""
    return game.choices_close_at or game.deadline


def who_is_awaited(game: DueGame) -> dict | None:
    """{"living", "awaiting", "round"} of the game (games/awaiting.py): the record written
    with the state while its step count is the game's, else worked out from the state (read
    for this game alone); kept on the game."""
    if game.awaited is _UNREAD:
        record = game.awaiting
        if not record or record.get("steps") != game.steps:
            record = awaiting.of_state(game.ruleset, Game.objects.values_list(
                "state", flat=True).get(pk=game.pk))
        game.awaited = record
    return game.awaited


def send_due_reminders(*, now: dt.datetime | None = None) -> int:
    """Send every reminder that is due now; return how many emails were queued.

    In one transaction, under a budget of queries that does not grow with the games, seats
    or reminders due (tests/services/test_reminders.py):
    1. the due looks, locked (SKIP LOCKED), and their games with their living seats, those
       users' columns and their claims of the games' phases (`due_games`);
    2. for each game, the living seats the engine still awaits; for each of their users the
       hour marks due now (the nearest only: earlier ones are marked passed) and the game's
       next look: the next mark any living seated user has left (`plan`);
    3. a user's claim of the phase is made, or moved to a nearer mark, all in one
       statement; a mark already claimed (by an earlier sweep) is not sent again;
    4. the bell notice of each claim made (its first reminder of the phase), the outbox row
       of each claim made or moved (games.mail.DEFERRED "reminder": the text is written
       when it is sent, from the time left now and the reader's language and timezone),
       the next looks; the worker is nudged once, on commit.
    """
    now = now or timezone.now()
    with transaction.atomic():
        games = due_games(now, lock=True)
        if not games:
            return 0
        wanted, next_look = plan(games, now)
        pks = _claim(wanted, now) if wanted else []
        # The looks are held (step 1): each row is there, so this writes `at` of each.
        ReminderLook.objects.bulk_create(
            [ReminderLook(game_id=pk, at=at) for pk, at in next_look.items()],
            update_conflicts=True, unique_fields=["game"], update_fields=["at"])
    nudge_on_commit(pks)
    return len(pks)


def plan(games: list[DueGame], now: dt.datetime
         ) -> tuple[list[tuple[DueGame, Reader, int]], dict[int, dt.datetime | None]]:
    """What the sweep claims: [(game, seat, the nearest hour mark due)], one per (phase,
    user), and each game's next look (None: none)."""
    wanted: dict[tuple[int, int], tuple[DueGame, Reader, int]] = {}
    next_look: dict[int, dt.datetime | None] = {}
    for game in games:
        next_look[game.pk] = None
        deadline = reminder_deadline(game)
        if (game.status != Game.Status.RUNNING or deadline is None or deadline <= now
                or game.current_phase_id is None):
            continue  # over, or the game sweep moves it on: a new deadline schedules it again
        awaited = who_is_awaited(game)
        if awaited is None:
            continue
        living, owing = set(awaited["living"]), set(awaited["awaiting"])
        left = deadline - now
        length = phase_length(game.started_at, deadline)
        marks: dict[str | None, tuple[int | None, dt.datetime | None]] = {}  # by hours chosen
        for seat in game.seats:
            if seat.number not in living:
                continue
            if seat.hours not in marks:
                marks[seat.hours] = _due(seat.hours, length, left, deadline)
            due, at = marks[seat.hours]
            if at is not None:  # the user's next mark (owing or not)
                look = next_look[game.pk]
                next_look[game.pk] = at if look is None else min(look, at)
            if due is not None and seat.number in owing:  # (one claim a user, seated twice)
                wanted[game.current_phase_id, seat.user_id] = (game, seat, due)
    return list(wanted.values()), next_look


def _due(raw: str | None, length: dt.timedelta | None, left: dt.timedelta,
         deadline: dt.datetime) -> tuple[int | None, dt.datetime | None]:
    """(the nearest mark due now, when the next mark falls due) for a user whose profile's
    `reminder_hours` is `raw`, in a phase of `length` with `left` to go; None for none."""
    due = None
    for hours, span in scaled_marks(_marks(raw), length):
        if span < left:  # the largest mark left: the user's next
            return due, deadline - span
        due = hours  # due now: the last of them is the nearest
    return due, None


@lru_cache(maxsize=256)
def _marks(raw: str | None) -> tuple[tuple[int, dt.timedelta], ...]:
    """The hour marks of a profile's `reminder_hours` (None: no profile, the default), each
    with its span, largest first; worked out once per distinct value."""
    return tuple((h, dt.timedelta(hours=h)) for h in parse_hours(DEFAULT_HOURS if raw is None
                                                                      else raw))


def _claim(wanted: list[tuple[DueGame, Reader, int]], now: dt.datetime) -> list[int]:
    """Steps 3 and 4 for `wanted` (the caller holds the games' looks): returns the outbox
    rows' ids. A mark is sent when the user has no claim of the phase yet (the claim is
    made, and the bell rings) or their claim is of a farther mark (it moves here)."""
    claims, sending = [], []
    for game, seat, mark in wanted:
        if seat.claimed is None or seat.claimed > mark:
            claims.append(ReminderSent(phase_id=game.current_phase_id, user_id=seat.user_id,
                                       hours=mark, first_hours=mark))
            sending.append((game, seat, seat.locale, seat.claimed is None))
    # Made, or moved to the nearer mark: `hours` and `created` ("last reminded"), never
    # `first_hours`. The looks are held, so the claims read with the seats are the ones
    # this writes over.
    ReminderSent.objects.bulk_create(claims, update_conflicts=True,
                                     unique_fields=["phase", "user"],
                                     update_fields=["hours", "created"])
    act = _act_path()
    bells = [(game, seat, locale) for game, seat, locale, first in sending
             if first and may_notify(user_id=seat.user_id, username=seat.username,
                                     is_active=seat.is_active)]
    texts = notice_texts({(game, locale) for game, _seat, locale in bells})
    Notification.objects.bulk_create([
        Notification(user_id=seat.user_id, kind=Kind.DEADLINE,
                     url=site_path(act.format(game.pk)),
                     text=texts[game.pk, locale][:MAX_TEXT])
        for game, seat, locale in bells])
    # The bells rung: each reader's open pages hear their new count once this commits.
    publish_counts(user_ids=[seat.user_id for _game, seat, _locale in bells])
    written = timezone.now()  # the outbox rows' created (the real clock)
    rows = OutboxEmail.objects.bulk_create([
        OutboxEmail(kind=EMAIL_KIND, user_id=seat.user_id, to=seat.email,
                    subject="", body="", template=DEFERRED_TEMPLATE,
                    context={**email_context(game, locale, now), "seat": seat.number},
                    created=written, next_attempt_at=written)
        for game, seat, locale, _first in sending if seat.email])  # no address: no email
    return [row.pk for row in rows]


def notice_text(game: DueGame, locale: Locale) -> str:
    """The bell's deadline notice for `game`, in the reader's language and timezone."""
    return notice_texts({(game, locale)})[game.pk, locale]


def notice_texts(pairs: set[tuple[DueGame, Locale]]) -> dict[tuple[int, Locale], str]:
    """`notice_text` of each (game, locale), by (game pk, locale): the language is switched
    once per locale, not once per notice, and each phase named once per locale (many games
    are at the same phase)."""
    by_locale: dict[Locale, list[DueGame]] = defaultdict(list)
    for game, locale in pairs:
        by_locale[locale].append(game)
    texts = {}
    for locale, games in by_locale.items():
        zone = zoneinfo.ZoneInfo(locale.timezone)
        with translation.override(locale.language):
            line = _("%(game)s: %(phase)s ends %(deadline)s")
            phases: dict[tuple, str] = {}
            for game in games:
                phase = (game.ruleset, game.phase_name, game.phase_number or 0,
                         who_is_awaited(game)["round"])
                if phase not in phases:
                    phases[phase] = phase_name(*phase)
                # "2026-12-02 09:20", as strftime("%Y-%m-%d %H:%M") writes it, in half the time
                local = reminder_deadline(game).astimezone(zone).isoformat(" ", "minutes")[:16]
                texts[game.pk, locale] = line % {"game": game.name, "phase": phases[phase],
                                                 "deadline": local}
    return texts


def _act_path() -> str:
    """reverse("game-act", args=[pk]) as a format string of the pk: one reverse() a sweep,
    not one a notice."""
    marker = 987654321
    return reverse("game-act", args=[marker]).replace("{", "{{").replace(
        "}", "}}").replace(str(marker), "{}")


def email_context(game: DueGame, locale: Locale, now: dt.datetime) -> dict:
    """The deferred email's context: the time really left at this sweep, the reader's
    language and timezone as read now."""
    deadline = reminder_deadline(game)
    return {"game": game.pk, "name": game.name, "phase": game.current_phase_id,
            "ruleset": game.ruleset, "phase_name": game.phase_name,
            "phase_number": game.phase_number, "round": who_is_awaited(game)["round"],
            "deadline": deadline.isoformat(), "left": (deadline - now).total_seconds(),
            "language": locale.language, "timezone": locale.timezone}


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
    values = {"game": context["name"], "left": time_left(left), "deadline": local,
              "phase": phase_name(context["ruleset"], context["phase_name"],
                                  context.get("phase_number") or 0, context.get("round")),
              "zone": timezone.get_current_timezone_name(), "link": link}
    owed = owed_steps(context["ruleset"], *seat_duties(context))
    if owed:
        values["owed"] = pgettext("list separator", ", ").join(owed)
        subject = _("[%(game)s] %(left)s left: you still need to %(owed)s") % values
        body = _("%(phase)s of %(game)s ends at %(deadline)s (%(zone)s). You still need to "
                 "%(owed)s.\n\nAct here: %(link)s\n") % values
        return subject, body
    subject = _("[%(game)s] %(left)s left: you have not acted yet") % values
    body = _("%(phase)s of %(game)s ends at %(deadline)s (%(zone)s). You have not "
             "acted or voted yet.\n\nAct here: %(link)s\n") % values
    return subject, body


def seat_duties(context: dict) -> tuple[list[str], set[str]]:
    """(the kinds of step the reminder's seat still owes now: the engine's `duties`, the
    kinds of step it is offered now: `legal_actions`), from the game's state (one read by
    primary key); nothing without a seat in the context."""
    seat = context.get("seat")
    if not isinstance(seat, int):
        return [], set()
    row = Game.objects.filter(pk=context["game"]).values_list("ruleset", "state").first()
    if row is None or not row[1]:
        return [], set()
    engine = rulesets.engine(row[0])
    return engine.duties(row[1], seat), {c.kind for c in engine.legal_actions(row[1], seat)}


def owed_steps(ruleset: str, kinds: list[str],
               offered: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """What a seat owes, said to its player ("send your loss order", "vote (or send a proxy
    vote)"): one phrase per step it owes, in the rule set's own words; a step offered
    instead of another (going with the team, abstaining, a proxy vote, "no card") is read
    with that one; talk to the team is never owed. A rule set or kind with no phrase here
    (a test's toy rule set) is left out: with none known the email keeps its general
    sentence."""
    others = set(kinds) | set(offered)  # what may be sent instead of an owed step
    vote = (_("vote (or send a proxy vote)") if "proxy_vote" in others
            else _("vote (or abstain)") if "abstain" in others else _("vote"))
    team = {"kill", "check", "extra_check"} & set(kinds)  # `defer` joins these
    move = _("make your move (keep, swap, replace or flip)")
    phrases = {
        "ninelives": {
            "choose_camp": _("choose your camp"),
            "loss_order": _("send your loss order"),
            "use_card": _("use a card or say you use none tonight"),
            "vote": vote,
        },
        "classic": {
            "kill": _("propose tonight's victim (or go with your team's choice)"),
            "check": _("propose the seat to check (or go with your team's choice)"),
            "extra_check": _("choose the extra check (or go with your team's choice)"),
            "defer": None if team else _("answer your team (or go with its choice)"),
            "protect": _("protect a seat (or skip the protection)"),
            "skip_protection": _("protect a seat (or skip the protection)"),
            "possess": _("possess a seat or not"),
            "last_words": _("leave your last words"),
            "speak": _("give your speech"),
            "vote": vote, "abstain": vote,
        },
        "gold": {
            "pick": _("pick a card"),
            "take_bonus": _("choose what to do with your priority token"),
            "take_double": _("choose what to do with your priority token"),
            "keep": move, "swap": move, "replace": move, "flip": move,
        },
    }.get(ruleset, {})
    out = [phrases[k] for k in kinds if phrases.get(k)]
    return list(dict.fromkeys(out))
