"""A game whose advance raised: the sweeper backs it off.

One row per failing game: how many advances in a row raised, when to try again, the last
error. The sweep's due query skips the game until `retry_at`, so one broken game is neither
first in line on every tick nor logged on every tick; a successful advance deletes the row.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class AdvanceBackoff(models.Model):
    game = models.OneToOneField("games.Game", on_delete=models.CASCADE, primary_key=True,
                                related_name="advance_backoff")
    failures = models.PositiveIntegerField(default=0)
    retry_at = models.DateTimeField(db_index=True)
    last_error = models.CharField(max_length=500, blank=True)

    class Meta:
        verbose_name = _("advance backoff")
        verbose_name_plural = _("advance backoffs")

    def __str__(self) -> str:
        return f"game {self.game_id}: {self.failures} failures, retry at {self.retry_at}"
