"""Celery tasks: thin wrappers that call services."""

import os

from celery import shared_task


@shared_task(name="games.ping")
def ping(value):
    """Proof of life for the worker: echoes `value` with the worker's process id."""
    return {"pong": value, "pid": os.getpid()}


@shared_task(name="games.sweep", ignore_result=True)
def sweep():
    """Advance every game whose deadline has passed.

    Beat runs it every SWEEP_INTERVAL_SECONDS; with nothing due it costs one indexed query.
    Safe to run twice at once (two beats by mistake, a redelivered message): advance_phase
    re-checks everything under the game lock.
    """
    from config.health import record_sweep_completed  # issue 16 item 9 (ops branch): /readyz

    from . import services

    advanced = services.sweep()
    record_sweep_completed()
    return {"advanced": advanced}


@shared_task(name="games.reminders", ignore_result=True)
def reminders():
    """Send due reminder emails and close awards past their deadline (every
    REMINDER_INTERVAL_SECONDS: it reads every running game, so not on every sweep)."""
    from . import awards
    from . import reminders as reminder_mails

    sent = reminder_mails.send_due_reminders()
    awards.close_due_awards()
    return {"reminders": sent}


@shared_task(name="games.send_email", ignore_result=True, autoretry_for=(OSError,),
             retry_backoff=True, max_retries=5)
def send_email(*, to: str, subject: str, body: str):
    from django.conf import settings
    from django.core.mail import send_mail

    send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [to])


@shared_task(name="games.community", ignore_result=True)
def community():
    """Expire handover windows and warn inactive seats (every few minutes; idempotent)."""
    from .community import sweep_community

    return sweep_community()


def queue_email(*, to: str, subject: str, body: str) -> None:
    """Hand an email to the worker; if the broker is unreachable, send it from here.

    Called from `transaction.on_commit`, after the player's step is stored: a broker outage
    must not turn a stored step into an error page, nor lose the email.
    """
    import logging

    try:
        send_email.delay(to=to, subject=subject, body=body)
    except Exception as exc:  # kombu/redis connection errors, timeouts
        logging.getLogger(__name__).warning("broker unavailable (%s); sending inline", exc)
        try:
            send_email.run(to=to, subject=subject, body=body)
        except Exception:
            logging.getLogger(__name__).exception("email to %s could not be sent", to)
