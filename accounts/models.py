"""A player's forum identity: the display name others see and vote for, timezone, language."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .names import SKELETON_MAX_LENGTH, canonical_name, name_skeleton


class Profile(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="profile")
    display_name = models.CharField(_("display name"), max_length=24)
    # The canonical form (NFKC, case-folded, no spaces or invisible characters) is what must
    # be unique, so "神的使者" and "神的 使者" cannot both exist.
    display_key = models.CharField(max_length=24, editable=False)
    # The look-alike skeleton (accounts.names.name_skeleton: confusables, traditional ->
    # simplified Chinese): unique, so 阿貓 cannot join beside 阿猫, nor аdmin beside admin.
    name_skeleton = models.CharField(max_length=SKELETON_MAX_LENGTH, editable=False)
    timezone = models.CharField(_("timezone"), max_length=64,
                                default=settings.DEFAULT_USER_TIMEZONE)
    # Where `timezone` came from: nowhere yet (the site's default; the reader's browser is
    # asked once, static/js/timezone.js), the browser, or the reader's own choice on the
    # profile page (never overwritten by a browser).
    timezone_origin = models.CharField(max_length=8, blank=True, default="",
                                       choices=[("", "default"), ("browser", "browser"),
                                                ("chosen", "chosen")])
    language = models.CharField(_("language"), max_length=8, choices=settings.LANGUAGES,
                                default=settings.LANGUAGE_CODE)
    reminder_hours = models.CharField(
        _("reminder hours before a deadline"), max_length=32, default="6,1",
        help_text=_("Comma-separated hours, e.g. 6,1. Empty for no reminders."))
    # Email notifications (per kind); reminders follow `reminder_hours`.
    email_results = models.BooleanField(_("email my private results"), default=True)
    email_announcements = models.BooleanField(_("email announcements of my games"),
                                              default=False)
    email_replies = models.BooleanField(_("email replies to my posts"), default=False)
    # The secret of the user's private iCalendar feed; a new one revokes the old URL.
    calendar_token = models.CharField(max_length=40, blank=True, db_index=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")
        constraints = [
            models.UniqueConstraint(fields=["display_key"], name="unique_display_key"),
            models.UniqueConstraint(fields=["name_skeleton"], name="unique_name_skeleton"),
        ]

    def __str__(self) -> str:
        return self.display_name

    def save(self, *args, **kwargs):
        self.display_key = canonical_name(self.display_name)
        self.name_skeleton = name_skeleton(self.display_name)
        if kwargs.get("update_fields") is not None and "display_name" in kwargs["update_fields"]:
            kwargs["update_fields"] = {*kwargs["update_fields"], "display_key", "name_skeleton"}
        super().save(*args, **kwargs)


def display_name(user) -> str:
    """The forum name of `user` (falls back to the username for accounts without a profile)."""
    if user is None:
        return "?"
    try:
        return user.profile.display_name
    except Profile.DoesNotExist:
        return user.get_username()


def messenger_user():
    """The 神的使者 account every private action message is sent to (created on first use)."""
    from django.contrib.auth import get_user_model

    User = get_user_model()
    # Once it exists (nearly always): one query for the account and its profile. Every step
    # a player takes sends a message from it, inside the game's lock.
    user = (User.objects.select_related("profile")
            .filter(username=settings.MESSENGER_USERNAME).first())
    if user is not None and hasattr(user, "profile"):
        return user
    user, created = User.objects.get_or_create(
        username=settings.MESSENGER_USERNAME, defaults={"is_active": False})
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    Profile.objects.get_or_create(user=user, defaults={"display_name": settings.MESSENGER_NAME})
    return user
