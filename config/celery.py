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
    # on slower beats. Each is idempotent, so a duplicate beat or a redelivered message
    # changes nothing twice.
    sender.add_periodic_task(settings.SWEEP_INTERVAL_SECONDS, sender.signature("games.sweep"),
                             name="sweep due games")
    sender.add_periodic_task(settings.REMINDER_INTERVAL_SECONDS,
                             sender.signature("games.reminders"), name="reminders and awards")
    sender.add_periodic_task(settings.COMMUNITY_INTERVAL_SECONDS,
                             sender.signature("games.community"), name="community rules")
    # The email outbox: due rows (new, or waiting out a back-off) are sent from the database,
    # so an SMTP outage or a worker restart loses nothing (games/mail.py).
    sender.add_periodic_task(settings.OUTBOX_INTERVAL_SECONDS,
                             sender.signature("games.outbox"), name="email outbox")
