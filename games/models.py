"""Games. The rules live in games/engine (pure); these models store setups, steps and events."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


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
                                 on_delete=models.SET_NULL, related_name="game")
    gm = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                           on_delete=models.SET_NULL, related_name="games_run",
                           verbose_name=_("game master"))
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("game")
        verbose_name_plural = _("games")
        ordering = ["-created"]

    def __str__(self) -> str:
        return self.name
