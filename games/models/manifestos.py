"""The GM's review of manifestos (猫有n条命 §3.5.2): which ones the GM approved.

A rejection is a step of the rules (the engine's `reject_manifesto`: the attack is void
unless its author sends a new one before dawn), so it lives in the replay log; an approval
changes nothing in the rules and is kept here, by a digest of what was approved (the
night, the seat, the card, the target and the text), so a manifesto its author changes
afterwards is pending again and an undone night keeps the approvals of its steps.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class ManifestoApproval(models.Model):
    game = models.ForeignKey(
        "games.Game", on_delete=models.CASCADE, related_name="manifesto_approvals"
    )
    night = models.PositiveIntegerField(_("night"))
    seat = models.PositiveSmallIntegerField(_("seat"))  # the engine's 0-based seat index
    digest = models.CharField(max_length=64)
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("approved by"),
    )

    class Meta:
        verbose_name = _("approved manifesto")
        verbose_name_plural = _("approved manifestos")
        constraints = [
            models.UniqueConstraint(fields=["game", "digest"], name="manifesto_approved_once"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id} · night {self.night} · seat {self.seat + 1}"
