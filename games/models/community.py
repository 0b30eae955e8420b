"""The community around a game (seed 002 §5.1-5.3, §5.7, §7, §9, §11.2): sign-ups, check-in,
substitutes and handovers, leave requests, activity warnings, moved ghost threads, and the
watchers who follow its hidden play some phases behind.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class Signup(models.Model):
    """A user's application to a game (报名), as a player or as a substitute (替补)."""

    class Role(models.TextChoices):
        PLAYER = "player", _("player")
        SUBSTITUTE = "substitute", _("substitute")

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="signups")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="signups")
    role = models.CharField(max_length=12, choices=Role.choices, default=Role.PLAYER)
    chosen = models.BooleanField(default=False)  # picked as a player by the GM or the draw
    seat_order = models.PositiveSmallIntegerField(null=True, blank=True)  # the seat it gets
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("sign-up")
        verbose_name_plural = _("sign-ups")
        ordering = ["game", "created", "id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="signup_once_per_game"),
        ]

    def __str__(self) -> str:
        return f"{self.user} → {self.game} ({self.role})"


class Substitution(models.Model):
    """A replacement of a seat's player (§9.3): a handover window extends the phase."""

    class Status(models.TextChoices):
        OPEN = "open", _("waiting for a substitute")
        ACCEPTED = "accepted", _("taken over")
        CANCELLED = "cancelled", _("cancelled")
        WASTED = "wasted", _("nobody came (slot wasted)")

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE,
                             related_name="substitutions")
    seat = models.ForeignKey("games.Seat", on_delete=models.CASCADE, related_name="substitutions")
    outgoing = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                                 related_name="+")
    incoming = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                 on_delete=models.SET_NULL, related_name="+")
    reason = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.OPEN)
    ends_at = models.DateTimeField()
    created = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("substitution")
        verbose_name_plural = _("substitutions")
        ordering = ["game", "created", "id"]
        constraints = [
            models.UniqueConstraint(fields=["seat"], condition=Q(status="open"),
                                    name="one_open_substitution_per_seat"),
        ]

    def __str__(self) -> str:
        return f"{self.seat} ({self.status})"


class LeaveRequest(models.Model):
    """A player's announced absence (请假, §9.2), for the GM to extend or replace."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="leaves")
    seat = models.ForeignKey("games.Seat", on_delete=models.CASCADE, related_name="leaves")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    message = models.TextField()
    handled_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("leave request")
        verbose_name_plural = _("leave requests")
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"{self.seat}: {self.message[:40]}"


class ActivityWarning(models.Model):
    """A warning that a seat is eligible for foul-out (§9.1.4-9.1.6), sent once per reason
    and phase; the GM console lists open warnings for a one-click foul-out."""

    class Reason(models.TextChoices):
        NO_CHECK_IN = "no_check_in", _("no check-in within the deadline (§9.1.4)")
        NO_VOTE = "no_vote", _("no vote and no proxy vote (§9.1.5)")
        FEW_POSTS = "few_posts", _("too few posts in 48 hours (§9.1.6)")
        NO_ANALYSIS = "no_analysis", _("no analysis thread today (§7.1)")

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="warnings")
    seat = models.ForeignKey("games.Seat", on_delete=models.CASCADE, related_name="warnings")
    phase = models.ForeignKey("games.Phase", null=True, on_delete=models.SET_NULL,
                              related_name="+")
    reason = models.CharField(max_length=16, choices=Reason.choices)
    detail = models.CharField(max_length=200, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("activity warning")
        verbose_name_plural = _("activity warnings")
        ordering = ["-created", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["seat", "phase", "reason"], name="warn_once"),
        ]

    def __str__(self) -> str:
        return f"{self.seat}: {self.reason}"


class MovedThread(models.Model):
    """A dead player's thread moved to the GM board (诈尸, §7.2), restored after the game."""

    thread = models.OneToOneField("messaging.Thread", on_delete=models.CASCADE,
                                  related_name="moved")
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="moved_threads")
    from_board = models.ForeignKey("messaging.Board", on_delete=models.CASCADE, related_name="+")
    restored_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("moved thread")
        verbose_name_plural = _("moved threads")

    def __str__(self) -> str:
        return str(self.thread)


class Watcher(models.Model):
    """A user who follows a game's hidden play some phases behind (观战, the watch page):
    a signed-in user with no seat who is not signed up, from when they chose to watch, or a
    dead seat holder, from when they first opened the page (`seat`: theirs). A watcher never
    signs up for that game, and a dead player who watches writes nothing on its board until
    it ends (games.services.watching)."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="watchers",
                             verbose_name=_("game"))
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="+", verbose_name=_("user"))
    seat = models.ForeignKey("games.Seat", null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+", verbose_name=_("seat"))
    since = models.DateTimeField(_("watching since"), auto_now_add=True)
    # None while an outsider's request waits for the GM (Game.outsiders "request"); a dead
    # player and an outsider of an open game are approved when they choose to watch. Only an
    # approved watcher reads anything (games.selectors.secrets).
    approved_at = models.DateTimeField(_("approved"), null=True, blank=True)

    class Meta:
        verbose_name = _("watcher")
        verbose_name_plural = _("watchers")
        ordering = ["game", "since", "id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="watcher_once_per_game"),
        ]

    def __str__(self) -> str:
        return f"{self.user} watches {self.game}"
