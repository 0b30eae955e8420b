"""The Celery app and the beat schedule. The tasks (games/tasks.py, found by autodiscovery)
stay thin: they call services. The schedule names them; nothing imports them. The broker's
two ends (publishing that never raises, a consumer that drops what it cannot read) are in
config/broker.py."""

import os

from celery import Celery

from . import broker  # noqa: F401  (registers its Redis transport: a bad message is dropped)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("killing_games")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_after_configure.connect
def _schedule(sender, **kwargs):
    from django.conf import settings

    # The sweeper advances every game whose deadline has passed; reminders (and closing due
    # awards) and the community rules (handovers, activity warnings) are tasks of their own
    # on slower beats; the email outbox sends due rows (new, or waiting out a back-off) from
    # the database, so an SMTP outage or a worker restart loses nothing (games/mail.py).
    # Each is idempotent, so a duplicate beat or a redelivered message changes nothing
    # twice. All four go to the clock queue (settings.CELERY_TASK_ROUTES), whose worker
    # runs nothing else. Each tick expires when the next is due (10 s at the least): a clock
    # worker that was away finds one or two of each waiting, not a backlog to chew through
    # before the present.
    for seconds, task, name in (
            (settings.SWEEP_INTERVAL_SECONDS, "games.sweep", "sweep due games"),
            (settings.REMINDER_INTERVAL_SECONDS, "games.reminders", "reminders and awards"),
            (settings.COMMUNITY_INTERVAL_SECONDS, "games.community", "community rules"),
            (settings.OUTBOX_INTERVAL_SECONDS, "games.outbox", "email outbox")):
        sender.add_periodic_task(seconds, sender.signature(task, options={"expires": max(seconds, 10)}),
                                 name=name)
