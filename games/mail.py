"""Email out of the games app: one way to queue a message, one way to read a reader's locale.

- `queue_email` hands a message to the Celery worker once the current transaction commits
  (nothing is sent for a rolled-back step). The task is named, not imported: nothing in the
  project imports games.tasks. If the broker is unreachable the message is sent from here,
  so a broker outage neither turns a stored step into an error page nor loses the email.
- `user_locale(user)` is the language and timezone to write to a user in: their profile's,
  else the site's defaults (settings.LANGUAGE_CODE and settings.DEFAULT_USER_TIMEZONE).

This module imports no service: services and notifications call it, never the reverse.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from celery import current_app
from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction

log = logging.getLogger(__name__)

SEND_TASK = "games.send_email"  # games/tasks.py


@dataclass(frozen=True)
class Locale:
    language: str
    timezone: str


def user_locale(user) -> Locale:
    """The language and timezone to write to `user` in (the site's defaults without a
    profile, or where the profile leaves one empty)."""
    profile = getattr(user, "profile", None) if user is not None else None
    return Locale(language=getattr(profile, "language", "") or settings.LANGUAGE_CODE,
                  timezone=getattr(profile, "timezone", "") or settings.DEFAULT_USER_TIMEZONE)


def deliver(*, to: str, subject: str, body: str) -> None:
    """Send one email now (the worker's task body, and the fallback without a broker)."""
    send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [to])


def queue_email(*, to: str, subject: str, body: str) -> None:
    """Send one email through Celery once the current transaction commits.

    Precondition: called inside the writer's transaction (or in autocommit, when it is
    handed over at once).
    """
    # Bind the values now: the lambda runs after the caller's variables have moved on.
    transaction.on_commit(lambda to=to, subject=subject, body=body: hand_over(
        to=to, subject=subject, body=body))


def hand_over(*, to: str, subject: str, body: str) -> None:
    """Give the email to the worker; with CELERY_TASK_ALWAYS_EAGER send it here and now; if
    the broker is unreachable, send it from here."""
    if current_app.conf.task_always_eager:
        _send_inline(to=to, subject=subject, body=body)
        return
    try:
        current_app.send_task(SEND_TASK, kwargs={"to": to, "subject": subject, "body": body})
    except Exception as exc:  # kombu/redis connection errors, timeouts
        log.warning("broker unavailable (%s); sending inline", exc)
        _send_inline(to=to, subject=subject, body=body)


def _send_inline(*, to: str, subject: str, body: str) -> None:
    try:
        deliver(to=to, subject=subject, body=body)
    except Exception:  # the step is stored; a lost email is logged, not an error page
        log.exception("email to %s could not be sent", to)
