"""The GM's undo: what each rollback took back, which private messages each accepted step
sent (so a rollback can mark them withdrawn), and the threads a withdrawn phase had opened.

The replay log itself (`Action`) and the engine's events (`Event`) of an undone step are
removed so the log stays the source of truth; their copy is kept here, for the GM and the
audit, in `Rollback.steps` and `Rollback.events`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Rollback(models.Model):
    """One undo by the GM: the most recent phase end, or one seat's last step of a phase."""

    class Kind(models.TextChoices):
        PHASE_END = "phase_end", _("phase end")
        STEP = "step", _("a seat's step")

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="rollbacks")
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    gm = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                           related_name="+", verbose_name=_("game master"))
    # The phase that is open again afterwards (the reopened one, or the current one).
    phase = models.ForeignKey("games.Phase", null=True, on_delete=models.SET_NULL,
                              related_name="+")
    seat = models.ForeignKey("games.Seat", null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+")
    # Copies of what was taken out of the log: [{"seq", "actor", "kind", "params", ...}] and
    # the engine events [{"seq", "kind", "visibility", "data", "because"}] (GM only).
    steps = models.JSONField(default=list)
    events = models.JSONField(default=list)
    deadline = models.DateTimeField(_("new deadline"))
    version_before = models.PositiveIntegerField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "id"]
        verbose_name = _("rollback")
        verbose_name_plural = _("rollbacks")

    def __str__(self) -> str:
        return f"{self.game} · {self.kind} · {self.created:%Y-%m-%d %H:%M}"


class StepMessage(models.Model):
    """A private message sent because of accepted step `step_seq` (its result or its receipt).

    Written by the kernel with the message; a rollback of that step marks the message
    withdrawn and sets `step_seq` to None (a later step may reuse the number)."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    step_seq = models.PositiveIntegerField(null=True)
    message = models.OneToOneField("messaging.Message", on_delete=models.CASCADE,
                                   related_name="+")

    class Meta:
        indexes = [models.Index(fields=["game", "step_seq"], name="stepmessage_game_step")]
        verbose_name = _("message sent by a step")
        verbose_name_plural = _("messages sent by steps")

    def __str__(self) -> str:
        return f"{self.game_id} · step {self.step_seq} · message {self.message_id}"


class StepPost(models.Model):
    """A forum post 神的使者 wrote because of accepted step `step_seq` outside the
    announcements (a vote thread's result, a round thread's reply); a rollback of that step
    marks the post withdrawn, as it does the step's announcements."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    step_seq = models.PositiveIntegerField(null=True)
    post = models.OneToOneField("messaging.Post", on_delete=models.CASCADE, related_name="+")

    class Meta:
        indexes = [models.Index(fields=["game", "step_seq"], name="steppost_game_step")]
        verbose_name = _("post written by a step")
        verbose_name_plural = _("posts written by steps")

    def __str__(self) -> str:
        return f"{self.game_id} · step {self.step_seq} · post {self.post_id}"



class WithdrawnThread(models.Model):
    """A thread 神的使者 opened for a phase that a rollback took away (the day's vote
    thread): while it is withdrawn its title carries the withdrawn mark and it is not
    pinned; `title` and `pinned` are what it had, given back when the phase opens again
    (the same thread, not a second one)."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    thread = models.OneToOneField("messaging.Thread", on_delete=models.CASCADE,
                                  related_name="+")
    title = models.CharField(max_length=200)
    pinned = models.BooleanField(default=False)
    withdrawn_at = models.DateTimeField()

    class Meta:
        verbose_name = _("withdrawn thread")
        verbose_name_plural = _("withdrawn threads")

    def __str__(self) -> str:
        return f"{self.game_id} · {self.title}"
