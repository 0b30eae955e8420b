"""The email outbox: every email is a row written in the transaction of
its cause, and the row is the record of it.

A row is due while `sent_at` is empty and `next_attempt_at` has passed. The sender
(games.mail.send_due / send_one) locks one due row at a time with SKIP LOCKED, hands it to
the SMTP server and marks it sent in the same transaction; a refusal or an outage pushes
`next_attempt_at` forward (exponential back-off, capped) and counts `attempts`. Nothing is
kept in memory between attempts, so worker restarts and long outages lose nothing. A row
with a `template` has its text written by the sender, from `context`, on its first attempt.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class OutboxEmail(models.Model):
    # What kind of email this is: the unsubscribe link turns exactly this kind off.
    # "account" (sign-in, verification, password reset) cannot be turned off.
    kind = models.CharField(max_length=20, default="account")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                             on_delete=models.SET_NULL, related_name="+")
    to = models.EmailField(max_length=254)
    subject = models.CharField(max_length=255)
    body = models.TextField()
    html = models.TextField(blank=True)
    headers = models.JSONField(default=dict, blank=True)
    # Written by a sweep that must stay cheap: the name of the
    # text to write (games.mail.DEFERRED) and what it is made of; the sender writes the
    # subject, body and headers from them on the first attempt and empties `template`.
    # Database defaults: the previous release, still serving while the migration runs,
    # writes rows without naming these columns.
    template = models.CharField(max_length=30, blank=True, default="", db_default="")
    context = models.JSONField(default=dict, blank=True,
                               db_default=models.Value({}, output_field=models.JSONField()))
    # What the email tells of, when a rollback may withdraw it: "message:<id>" (a private
    # result from 神的使者) or "announcement:<id>"; empty for everything else. A rollback
    # cancels such an email not yet sent and follows one already sent with a "withdrawn"
    # email to the same address (games/services/rollback.py).
    about = models.CharField(max_length=40, blank=True, default="", db_default="")
    created = models.DateTimeField(default=timezone.now)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.CharField(max_length=500, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    # Set when the row is given up (a permanent refusal, or older than OUTBOX_GIVE_UP_HOURS).
    failed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("outgoing email")
        verbose_name_plural = _("outgoing emails")
        indexes = [
            # The sender's query: unsent, not given up, by next attempt.
            models.Index(fields=["next_attempt_at"], name="outbox_due",
                         condition=Q(sent_at__isnull=True, failed_at__isnull=True)),
            # A rollback's query: the emails about the results it withdraws.
            models.Index(fields=["about"], name="outbox_about", condition=~Q(about="")),
        ]

    def __str__(self) -> str:
        return f"{self.kind} to {self.to}: {self.subject}"
