"""Fixtures of the review, awards, calendar and notification tests.

The toy rule set game (`game`, `players`, `gm`) comes from tests/service, the short 猫有n条命
game from tests/ninelives_web; `finish` plays the toy game to its end through the services.
"""

from __future__ import annotations

import pytest
from django.db.models.signals import post_save

from games import services
from tests.ninelives_web.conftest import nl_gm, nl_players, start_ninelives  # noqa: F401
from tests.service.conftest import game, gm, players, seat_user, toy_ruleset  # noqa: F401


@pytest.fixture
def eager_email(settings):
    """Celery runs the email task at once, so queued emails land in mail.outbox."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    from config.celery import app

    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


@pytest.fixture
def reply_signals():
    """The reply notifications connected (as GamesConfig.ready() will do), and put back as
    they were after the test."""
    from games import signals
    from messaging.models import Post

    was_connected = post_save.disconnect(sender=Post, dispatch_uid=signals.DISPATCH_UID)
    signals.connect()
    yield
    if not was_connected:
        post_save.disconnect(sender=Post, dispatch_uid=signals.DISPATCH_UID)


def wolf_seat(toy) -> int:
    return toy.state["secret"]["wolf"]


def night_kill(toy):
    """The wolf kills the first other seat; the night ends early. Returns the fresh toy."""
    wolf = seat_user(toy, "wolf")
    target = next(n for n in range(toy.seat_count) if n != wolf_seat(toy))
    services.submit_action(game_id=toy.pk, user=wolf, kind="kill", params={"target": target})
    toy.refresh_from_db()
    return toy


def finish(toy):
    """Night: the wolf kills; day: every living seat votes the wolf out (the wolf votes for
    someone else): the village wins. Returns the fresh, finished toy."""
    toy = night_kill(toy)
    wolf = wolf_seat(toy)
    for seat in toy.seats.filter(alive=True).order_by("number"):
        target = wolf if seat.number != wolf else next(
            s.number for s in toy.seats.filter(alive=True) if s.number != wolf)
        services.submit_action(game_id=toy.pk, user=seat.user, kind="vote",
                               params={"target": target})
    toy.refresh_from_db()
    assert toy.status == toy.Status.FINISHED, toy.status
    return toy
