"""The Celery app and the beat schedule. The tasks (games/tasks.py, found by autodiscovery)
stay thin: they call services. The schedule names them; nothing imports them. The broker's
two ends (publishing that never raises, a consumer that drops what it cannot read) are in
config/broker.py.

Workers and beat write the project's log lines (settings.LOGGING, config/logs.py: UTC with
its Z, level, logger, `game=<id>` on a line about a game), never Celery's: Celery leaves the
root logger alone (CELERY_WORKER_HIJACK_ROOT_LOGGER off), and the start-up banners it would
print apart from the log (beat's in the server's local time, without a zone) are one log
line each instead (`Worker`, `Beat` below)."""

import logging
import os

from celery import Celery, signals
from celery.apps.beat import Beat as CeleryBeat
from celery.apps.worker import Worker as CeleryWorker
from kombu.utils.objects import cached_property

from . import broker  # noqa: F401  (registers its Redis transport: a bad message is dropped)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
log = logging.getLogger(__name__)


class Worker(CeleryWorker):
    """`celery worker`, its banner one log line (name, queues, concurrency, broker), and its
    notice of a warm or cold shutdown (SIGTERM, SIGQUIT) one too (`_worker_stopping`)."""

    def emit_banner(self):
        pool = self.pool_cls if isinstance(self.pool_cls, str) else self.pool_cls.__module__
        log.info("worker %s starting: queues %s; concurrency %s (%s); broker %s",
                 self.hostname, ", ".join(sorted(self.app.amqp.queues.consume_from)),
                 self.concurrency, pool.rsplit(".", 1)[-1], self.app.connection().as_uri())

    def install_platform_tweaks(self, worker):
        from celery.apps import worker as program

        super().install_platform_tweaks(worker)
        program.install_worker_term_handler(worker, verbose=False)
        program.install_worker_term_hard_handler(worker, verbose=False)


@signals.worker_shutting_down.connect
def _worker_stopping(sender, sig, how, **kwargs):
    log.info("worker %s: %s shutdown (%s)", sender, how.lower(), sig)


class Beat(CeleryBeat):
    """`celery beat`, its banner one log line (`_beat_started`)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **dict(kwargs, quiet=True))


@signals.beat_init.connect
def _beat_started(sender, **kwargs):
    """Beat's banner as a line (the service's, so beat embedded in a worker says it too)."""
    log.info("beat starting: schedule %s; broker %s", sender.schedule_filename,
             sender.app.connection().as_uri())


class KillingGames(Celery):
    @cached_property
    def Worker(self):
        return self.subclass_with_self(Worker)

    @cached_property
    def Beat(self):
        return self.subclass_with_self(Beat)


app = KillingGames("killing_games")
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
