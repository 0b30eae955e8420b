"""Celery entry points, and nothing else: thin wrappers that call services.

Celery finds this module by autodiscovery (config/celery.py); nothing in the project imports
it (tests/test_layers.py). Other code refers to a task by its name (games.mail names
"games.send_email"; the beat schedule names the periodic ones). settings.CELERY_TASK_ROUTES
sends the clock's tasks (sweep, reminders, outbox, community) to the clock queue and the
slow ones (win rates, email nudges) to the slow queue, each with a worker of its own.
"""

import os

from celery import shared_task


@shared_task(name="games.ping")
def ping(value):
    """Proof of life for the worker: echoes `value` with the worker's process id."""
    return {"pong": value, "pid": os.getpid()}


@shared_task(name="games.sweep", ignore_result=True)
def sweep():
    """Advance every game whose deadline has passed (on the clock queue).

    Beat runs it every SWEEP_INTERVAL_SECONDS; with nothing due it costs one indexed query.
    Safe to run twice at once (two beats by mistake, a redelivered message, a tick while a
    long sweep runs): the second finds the first's advisory lock and leaves the due games
    to it, and advance_phase re-checks everything under the game lock.
    """
    from config.health import record_sweep_completed  # /readyz

    from .services import lifecycle

    advanced = lifecycle.sweep_alone()
    if advanced is None:  # another sweep is at work: its completion is the heartbeat
        return {"advanced": 0, "another_sweep_running": True}
    record_sweep_completed()
    return {"advanced": advanced}


@shared_task(name="games.reminders", ignore_result=True)
def reminders():
    """Send due reminder emails and close awards past their deadline (every
    REMINDER_INTERVAL_SECONDS). The reminders cost two queries, O(reminders due), not
    O(running games): games/reminders.py."""
    from . import reminders as reminder_mails
    from . import services

    sent = reminder_mails.send_due_reminders()
    services.close_due_awards()
    return {"reminders": sent}


@shared_task(name="games.send_email", ignore_result=True)
def send_email(*, outbox_id: int | None = None, outbox_ids: list[int] = ()):
    """Send one outbox row, or the rows written together (`outbox_ids`), now: the nudge
    after their transaction commits. A failure is recorded on the row (attempts,
    next_attempt_at); `games.outbox` retries it."""
    from . import mail

    for pk in ([outbox_id] if outbox_id is not None else []) + list(outbox_ids):
        mail.send_one(pk)


# What one outbox tick may spend sending before it lets the clock queue go (seconds): the
# rows left wait for the next tick (or their nudge on the slow queue). With a slow SMTP
# server a tick of 200 rows could otherwise hold the clock worker for minutes.
OUTBOX_TICK_SECONDS = 10
OUTBOX_BATCH = 10


@shared_task(name="games.outbox", ignore_result=True)
def outbox():
    """Send due outbox rows (every OUTBOX_INTERVAL_SECONDS, on the clock queue): new rows
    whose nudge was lost, and rows whose back-off has passed, in batches of OUTBOX_BATCH
    for at most OUTBOX_TICK_SECONDS. Two at once share the rows (SKIP LOCKED)."""
    import time

    from . import mail

    ends = time.monotonic() + OUTBOX_TICK_SECONDS
    total = {"sent": 0, "failed": 0}
    while True:
        counts = mail.send_due(limit=OUTBOX_BATCH)
        for name in total:
            total[name] += counts[name]
        if counts["sent"] + counts["failed"] < OUTBOX_BATCH or time.monotonic() >= ends:
            return total


@shared_task(name="games.community", ignore_result=True)
def community():
    """Expire handover windows and warn inactive seats (every few minutes; idempotent)."""
    from . import services

    return services.sweep_community()


@shared_task(name="games.winrates", ignore_result=True)
def winrates(*, ruleset, seats, config):
    """Simulate a setup's win rates per camp and cache them, once per setup at a time
    (services.winrates; on the slow queue)."""
    from .services import winrates as service

    service.compute(ruleset=ruleset, seats=seats, config=config)
