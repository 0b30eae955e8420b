"""Games as the service stores them. The rules live in games/engine (pure Python).

The source of truth for a game is its setup (rule set, seats, config, secret seed) plus the
ordered list of accepted steps (`Action`); `Game.state` is a cached snapshot of the engine
state after the last step, and `Event` is the append-only log of what the engine said, each
with its visibility. `engine.replay(setup, steps)` rebuilds the snapshot from the log.

Writes go through games/services/ (the admin's Game change form too: update_settings). No
model here writes another row when it is saved, and the database has no triggers: the
services write what follows from a change (the page version, the reminder look).
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

DEFAULT_PHASE_MINUTES = 24 * 60
REMINDER_MAX_HOURS = 48  # the earliest reminder a user can ask for (games/reminders.py)


class Game(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        SIGNUP = "signup", _("sign-up")
        RUNNING = "running", _("running")
        PAUSED = "paused", _("paused")
        FINISHED = "finished", _("finished")
        ABORTED = "aborted", _("aborted")

    name = models.CharField(_("name"), max_length=100)
    ruleset = models.CharField(_("rule set"), max_length=32)
    status = models.CharField(_("status"), max_length=16, choices=Status.choices,
                              default=Status.DRAFT)
    board = models.OneToOneField("messaging.Board", null=True, blank=True,
                                 on_delete=models.SET_NULL, related_name="game",
                                 verbose_name=_("board"))
    # The board of the dead and the watchers (墓地): readable by them and the GMs while the
    # game runs, by everyone after it (games.selectors.watch.graveyards_hidden_from).
    graveyard = models.OneToOneField("messaging.Board", null=True, blank=True,
                                     on_delete=models.SET_NULL, related_name="graveyard_of",
                                     verbose_name=_("graveyard board"), editable=False)
    gm = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                           on_delete=models.SET_NULL, related_name="games_run",
                           verbose_name=_("game master"))
    co_gms = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True,
                                    related_name="games_co_run",
                                    verbose_name=_("co-game masters"))
    seat_count = models.PositiveSmallIntegerField(_("seats"), default=5)
    config = models.JSONField(_("rule options"), default=dict, blank=True)
    # Minutes per phase name ("night", "day", "runoff", ...); missing names take 24 h.
    durations = models.JSONField(_("phase durations (minutes)"), default=dict, blank=True)
    change_cutoff_minutes = models.PositiveIntegerField(
        _("change cut-off (minutes before the deadline)"), default=10)
    # Seed 002 §5.7: ending a phase early is the GM's choice. Off, a phase whose seats have
    # all acted runs on until its deadline or the GM's "end this phase now" (the console
    # says everyone has acted), so the GM can review manifestos and players may still change
    # their step until the cut-off. The add form starts it off for the forum-standard
    # preset; games made by the services alone (scripts, tests) keep the old default, on.
    early_end = models.BooleanField(
        _("end a phase as soon as everyone has acted"), default=True,
        help_text=_("Off (the forum standard): when everyone has acted the console says so "
                    "and offers “end this phase now”; the GM reviews the manifestos first."))
    # 猫有n条命 §3.5.2: the GM reviews each manifesto in the console (approve, or reject with a
    # reason). Review closes this many minutes before the night's deadline (0: at the
    # deadline); a manifesto still unreviewed then is published at dawn as written.
    manifesto_review_minutes = models.PositiveIntegerField(
        _("manifesto review closes (minutes before dawn)"), default=0,
        help_text=_("0: the GM may review until the night ends. A manifesto not reviewed by "
                    "then is published at dawn as written."))
    hold_announcements = models.BooleanField(
        _("hold announcements for the GM"), default=False,
        help_text=_("Drafts wait for the GM to add story text and publish them."))

    # Secrets: never shown to players before the end.
    seed = models.CharField(max_length=64, blank=True, editable=False)
    salt = models.CharField(max_length=64, blank=True, editable=False)
    commitment = models.CharField(_("deal commitment (SHA-256)"), max_length=64, blank=True)

    state = models.JSONField(null=True, blank=True, editable=False)
    steps = models.PositiveIntegerField(default=0, editable=False)
    phase_name = models.CharField(_("phase"), max_length=32, blank=True)
    phase_number = models.PositiveIntegerField(_("phase number"), default=0)
    current_phase = models.ForeignKey("Phase", null=True, blank=True, on_delete=models.SET_NULL,
                                      related_name="+")
    # Community settings (seed 002 §5.2, §5.7, §7.2, §9.1): hours and limits per game.
    starts_at = models.DateTimeField(_("announced start"), null=True, blank=True)
    checkin_hours = models.PositiveIntegerField(_("check-in window (hours)"), default=24)
    handover_hours = models.PositiveIntegerField(_("handover window (hours)"), default=12)
    min_posts_48h = models.PositiveIntegerField(_("minimum posts in 48 hours"), default=5)
    ghost_reply_max_chars = models.PositiveIntegerField(
        _("longest reply of a dead player (characters)"), default=200)

    class WatchDelay(models.IntegerChoices):
        NONE = 0, _("nobody watches before the end")
        ONE = 1, _("one phase behind")
        TWO = 2, _("two phases behind")

    # How far behind the watch page (观战) follows the game: it shows the state at the end of
    # the phase this many before the current one (games.selectors.watch); 0: not at all.
    watch_delay = models.PositiveSmallIntegerField(
        _("watchers follow the game"), choices=WatchDelay.choices, default=WatchDelay.ONE,
        help_text=_("Dead players and outsiders who choose to watch (观战) see every hand, "
                    "private action and team message up to the end of the phase this many "
                    "before the current one; the living never see what they see."))

    class Outsiders(models.TextChoices):
        OFF = "off", _("outsiders do not watch")
        REQUEST = "request", _("outsiders ask, the GM approves each")
        OPEN = "open", _("any signed-in outsider may watch")

    # Whether signed-in accounts with no seat watch (games.services.watching): off by default,
    # since any account may be a living player's second one. Where the roles never change
    # (`rulesets.Entry.roles_fixed`), open watching needs `watch_risk_accepted`.
    outsiders = models.CharField(
        _("outsiders who watch"), max_length=8, choices=Outsiders.choices,
        default=Outsiders.OFF,
        help_text=_("Any signed-in account may be a living player's second one: by request, "
                    "you approve each account from the console, seeing its history."))
    watch_risk_accepted = models.BooleanField(
        _("I accept that open watchers may be players' second accounts"), default=False,
        help_text=_("Needed for open watching where the roles never change (classic, gold): "
                    "a watcher who knows every hand after the first night could be a living "
                    "player's second account."))
    signup_thread = models.ForeignKey("messaging.Thread", null=True, blank=True,
                                      on_delete=models.SET_NULL, related_name="+")
    deadline = models.DateTimeField(_("deadline"), null=True, blank=True)
    # A night that keeps time for a phase run inside it (RuleSet.reserved_for: Classic's
    # extra check) closes its choices, for every seat alike, this long before its deadline;
    # `choices_closed` once the service has closed them (lifecycle.close_choices). NULL for
    # every other phase.
    choices_close_at = models.DateTimeField(_("choices close at"), null=True, blank=True,
                                            editable=False)
    choices_closed = models.BooleanField(default=False, editable=False)
    # games/awaiting.py: the living seats, the seats the engine awaits among them, the round
    # and the step count, written by the services with the state; the reminder sweep trusts
    # it only while its step count is the game's (else it reads the state).
    awaiting = models.JSONField(_("awaited seats"), null=True, blank=True, editable=False)
    # Bumped by every advance: the sweeper claims a game by (id, version), so a claim made
    # on a stale read can never advance the same phase twice.
    version = models.PositiveIntegerField(default=0, editable=False)
    # Moved by the services (games.services.kernel.changed, under the game lock, in the
    # transaction of the change) whenever what the game's pages show changes: its phase,
    # status, deadline, state, seats, public events, announcements, a seated player's name.
    # The game home's kept parts are keyed by it and the change feed publishes it
    # (config/feed.py). Only ever goes up.
    page_version = models.PositiveIntegerField(default=0, db_default=0, editable=False)
    paused_remaining = models.DurationField(null=True, blank=True, editable=False)
    outcome = models.JSONField(null=True, blank=True, editable=False)

    created = models.DateTimeField(_("created"), auto_now_add=True)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("game")
        verbose_name_plural = _("games")
        ordering = ["-created", "-id"]
        indexes = [
            # The sweeper's query: running games whose deadline has passed.
            models.Index(fields=["deadline"], condition=Q(status="running"), name="game_due"),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("game-home", args=[self.pk])

    def minutes_for(self, phase_name: str) -> float:
        """Minutes for a phase: fractions allowed (0.1 = 6 s for demos and tests)."""
        value = self.durations.get(phase_name, DEFAULT_PHASE_MINUTES)
        if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
            return DEFAULT_PHASE_MINUTES
        return min(max(0.05, float(value)), 30 * 24 * 60)

    @property
    def is_live(self) -> bool:
        return self.status in (self.Status.RUNNING, self.Status.PAUSED)

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.ABORTED)


class Seat(models.Model):
    """A place at the table. `number` is the engine's seat index (0-based; shown from 1)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats",
                             verbose_name=_("game"))
    number = models.PositiveSmallIntegerField(_("seat"))
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                             on_delete=models.SET_NULL, related_name="seats")
    conversation = models.OneToOneField("messaging.Conversation", null=True, blank=True,
                                        on_delete=models.SET_NULL, related_name="seat")
    alive = models.BooleanField(_("alive"), default=True)
    # The holder's display name when the game started (or when a substitute took the seat):
    # what the game's pages call this seat while it runs, so a rename changes nothing the
    # living read in this game (games.selectors.seats.seat_names). Blank before the start.
    name = models.CharField(_("name in this game"), max_length=40, blank=True)
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)
    checked_in_at = models.DateTimeField(_("checked in"), null=True, blank=True)

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="seat_unique_number"),
            models.UniqueConstraint(fields=["game", "user"], condition=Q(user__isnull=False),
                                    name="seat_one_per_user"),
        ]

    def __str__(self) -> str:
        return f"{self.game} #{self.number + 1}"

    @property
    def label(self) -> int:
        return self.number + 1


class Phase(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="phases",
                             verbose_name=_("game"))
    seq = models.PositiveIntegerField(_("order"))
    name = models.CharField(_("kind of phase"), max_length=32)
    number = models.PositiveIntegerField(_("phase number"))
    started_at = models.DateTimeField(_("started at"))
    deadline = models.DateTimeField(_("deadline"), null=True, blank=True)
    ended_at = models.DateTimeField(_("ended at"), null=True, blank=True)
    # deadline / early / gm / over (games.presenters.labels.end_reason_label)
    end_reason = models.CharField(_("how it ended"), max_length=16, blank=True)

    class Meta:
        verbose_name = _("phase")
        verbose_name_plural = _("phases")
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="phase_unique_seq"),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.number}"


class Action(models.Model):
    """One accepted step, in order: the replay log. `actor` is a seat index, "gm" or "clock"."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="actions",
                             verbose_name=_("game"))
    seq = models.PositiveIntegerField(_("order"))
    phase = models.ForeignKey(Phase, null=True, on_delete=models.SET_NULL, related_name="actions",
                              verbose_name=_("phase"))
    actor = models.CharField(_("taken by"), max_length=16)
    seat = models.ForeignKey(Seat, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="actions", verbose_name=_("seat"))
    kind = models.CharField(_("kind of step"), max_length=32)
    params = models.JSONField(_("parameters"), default=dict)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                             on_delete=models.SET_NULL, related_name="+",
                             verbose_name=_("user"))
    # When the request arrived (what the deadline is judged by); `created` is when the row
    # was written, possibly later, after waiting for the game lock.
    received_at = models.DateTimeField(_("received"), null=True, blank=True)
    created = models.DateTimeField(_("stored"), auto_now_add=True)

    class Meta:
        verbose_name = _("step")
        verbose_name_plural = _("steps")
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="action_unique_seq"),
        ]

    def __str__(self) -> str:
        return f"{self.actor}: {self.kind}"

    def as_step(self) -> dict:
        actor: int | str = int(self.actor) if self.actor.isdigit() else self.actor
        return {"actor": actor, "kind": self.kind, "params": self.params}


class Vote(models.Model):
    """A vote as cast (the engine keeps the count); the constraints are the backstop."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="votes",
                             verbose_name=_("game"))
    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="votes",
                              verbose_name=_("phase"))
    voter = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="votes_cast",
                              verbose_name=_("voter"))
    target = models.ForeignKey(Seat, null=True, on_delete=models.CASCADE,
                               related_name="votes_received", verbose_name=_("voted for"))
    proxy = models.BooleanField(_("proxy vote"), default=False)
    created = models.DateTimeField(_("cast"), auto_now_add=True)

    class Meta:
        verbose_name = _("vote")
        verbose_name_plural = _("votes")
        ordering = ["phase", "created", "id"]
        constraints = [
            models.UniqueConstraint(fields=["phase", "voter", "proxy"],
                                    name="vote_one_per_voter_per_phase"),
        ]

    def __str__(self) -> str:
        return f"{self.voter} -> {self.target}"


class Event(models.Model):
    """What the engine said (and what the GM did), append-only, with who may see it.

    `seq` is the event's index in the engine state's log; GM acts outside the engine have
    none. Insertion order (`id`) is the log's order.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events",
                             verbose_name=_("game"))
    seq = models.PositiveIntegerField(_("order"), null=True, blank=True)
    phase = models.ForeignKey(Phase, null=True, on_delete=models.SET_NULL, related_name="events",
                              verbose_name=_("phase"))
    kind = models.CharField(_("kind of event"), max_length=40)
    public = models.BooleanField(_("public"), default=False)
    # Seat indexes that may see a non-public event, as ",0,3," so one LIKE finds a seat's.
    audience = models.CharField(_("readers"), max_length=200, blank=True)
    data = models.JSONField(_("data"), default=dict)
    because = models.JSONField(_("because"), default=list)
    created = models.DateTimeField(_("stored"), auto_now_add=True)

    class Meta:
        verbose_name = _("event")
        verbose_name_plural = _("events")
        ordering = ["game", "id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], condition=Q(seq__isnull=False),
                                    name="event_unique_seq"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.seq}"

    def visible_to_seat(self, number: int) -> bool:
        return self.public or f",{number}," in self.audience

    def as_engine_event(self) -> dict:
        seats = [int(s) for s in self.audience.strip(",").split(",") if s]
        return {"kind": self.kind, "visibility": {"public": self.public, "seats": seats},
                "because": self.because, "data": self.data, "seq": self.seq}


class Announcement(models.Model):
    """A drafted public announcement (dawn, vote result...). Posted at once or held for the GM."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="announcements",
                             verbose_name=_("game"))
    phase = models.ForeignKey(Phase, null=True, on_delete=models.SET_NULL, related_name="+",
                              verbose_name=_("phase"))
    title = models.CharField(_("title"), max_length=120)
    body = models.TextField(_("text"))
    story = models.TextField(_("story"), blank=True)
    published_at = models.DateTimeField(_("published"), null=True, blank=True)
    post = models.ForeignKey("messaging.Post", null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+", verbose_name=_("post"))
    # The accepted step (Action.seq) whose results this announces; None for announcements
    # no step made (player list, substitutes, game over) and after a rollback withdrew it.
    step_seq = models.PositiveIntegerField(null=True, blank=True, editable=False)
    withdrawn_at = models.DateTimeField(_("withdrawn by the GM"), null=True, blank=True,
                                        editable=False)
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("announcement")
        verbose_name_plural = _("announcements")
        ordering = ["game", "created", "id"]

    def __str__(self) -> str:
        return self.title


class ReminderLook(models.Model):
    """When the reminder sweep next looks at a game (games/reminders.py); `at` None: never.

    Set REMINDER_MAX_HOURS before the deadline by the services whenever the phase or the
    deadline changes (games.services.kernel.changed) or a seated user changes their hours
    (games.services.profile_saved), then moved by each look to the next mark any living
    seated user has left. A row of its own, not a column of the game: each look rewrites
    this narrow row instead of the game's whole row (its state, seven indexes)."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, primary_key=True,
                                related_name="reminder_look")
    at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("reminder look")
        verbose_name_plural = _("reminder looks")
        indexes = [
            # The reminder sweep's query: the looks that have fallen due.
            models.Index(fields=["at"], condition=Q(at__isnull=False), name="reminder_look_due"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id} {self.at}"

    @classmethod
    def schedule(cls, deadlines: dict[int, dt.datetime | None]) -> None:
        """Look at these games afresh: REMINDER_MAX_HOURS before each deadline given (game
        pk: deadline; None: no look), in one statement."""
        cls.objects.bulk_create(
            [cls(game_id=pk, at=None if deadline is None
                 else deadline - dt.timedelta(hours=REMINDER_MAX_HOURS))
             for pk, deadline in deadlines.items()],
            update_conflicts=True, unique_fields=["game"], update_fields=["at"])


class ReminderSent(models.Model):
    """The reminders a user was sent in a phase: one row per (phase, user), made with the
    first (which also rang the bell) and moved to each nearer hour mark reminded after it.
    The constraint and `hours` make each mark's email once only (games/reminders.py)."""

    # (phase, user)'s unique index serves the phase's lookups: no index of its own to write.
    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="reminders",
                              db_index=False, verbose_name=_("phase"))
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+",
                             verbose_name=_("user"))
    hours = models.PositiveSmallIntegerField(
        _("hours before the deadline"), help_text=_("The nearest mark reminded so far."))
    first_hours = models.PositiveSmallIntegerField(
        _("first reminder"), default=0,
        help_text=_("The mark of the first reminder, which also rang the bell."))
    created = models.DateTimeField(_("last reminded"), auto_now_add=True)

    class Meta:
        verbose_name = _("reminder sent")
        verbose_name_plural = _("reminders sent")
        constraints = [
            models.UniqueConstraint(fields=["phase", "user"], name="reminder_once_a_phase"),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.hours}h"
