"""Post-game awards (单项奖, seed 002 §11.2): an award, its nominations and its votes."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Award(models.Model):
    """A post-game award (单项奖, §11.2): nominated by the GM, candidates added by players,
    voted by everyone in the game."""

    class Kind(models.TextChoices):
        MVP_CIVILIAN = "mvp_civilian", _("MVP (civilian side)")
        MVP_KILLER = "mvp_killer", _("MVP (killer side)")
        FAIR_PLAY = "fair_play", _("Fair Play")
        BEST_STORY = "best_story", _("Best story")

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="awards")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    vote_until = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    winner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                               on_delete=models.SET_NULL, related_name="+")

    class Meta:
        verbose_name = _("award")
        verbose_name_plural = _("awards")
        ordering = ["game", "kind"]
        constraints = [
            models.UniqueConstraint(fields=["game", "kind"], name="award_once_per_game"),
        ]

    def __str__(self) -> str:
        return f"{self.game}: {self.get_kind_display()}"


class Nomination(models.Model):
    award = models.ForeignKey(Award, on_delete=models.CASCADE, related_name="nominations")
    nominee = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="+")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                           related_name="+")
    by_gm = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("nomination")
        verbose_name_plural = _("nominations")
        constraints = [
            models.UniqueConstraint(fields=["award", "nominee"], name="nominate_once"),
        ]

    def __str__(self) -> str:
        return f"{self.award}: {self.nominee}"


class AwardVote(models.Model):
    award = models.ForeignKey(Award, on_delete=models.CASCADE, related_name="votes")
    voter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="+")
    nomination = models.ForeignKey(Nomination, on_delete=models.CASCADE, related_name="votes")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("award vote")
        verbose_name_plural = _("award votes")
        constraints = [
            models.UniqueConstraint(fields=["award", "voter"], name="award_vote_once"),
        ]

    def __str__(self) -> str:
        return f"{self.voter} → {self.nomination}"
