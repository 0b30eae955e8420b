"""The real clock, the one test that runs it: a Celery worker with its embedded beat (the
`celery_worker_and_beat` fixture of tests/conftest.py) takes a task over the configured broker
in a process of its own, and the beat's sweep ends a phase at its deadline, once.

Every other test moves time instead of waiting for it: the sweep the beat runs
(`services.sweep()`, games/tasks.py) with a `now` past the deadline, or time-machine, or the
GM's "end phase now". This one costs the worker's start-up (a few seconds) and a phase of
two seconds; it waits on the wall clock because the clock is what it tests."""

import os
import re
import time

import pytest
from django.conf import settings

from games import services
from games.models import Action, Game, Phase

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("toy_ruleset", "english")]


def sweeps_done(log) -> int:
    """How many sweeps the worker has finished, read from its log."""
    return len(re.findall(r"Task games\.sweep\[[^]]+\] succeeded", log.read_text()))


def wait_until(condition, *, seconds: float, what: str) -> None:
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, f"{what} within {seconds} s"
        time.sleep(0.2)


def test_the_worker_runs_tasks_and_its_beat_ends_a_phase_at_its_deadline_once(
        celery_worker_and_beat, players, gm, tmp_path):
    from games.tasks import ping

    g = services.create_game(name="快局", ruleset="toy", gm=gm, seat_count=5,
                             durations={"night": 2 / 60, "day": 60}, change_cutoff_minutes=0,
                             early_end=False)
    game = services.start_game(game_id=g.pk, users=players)
    assert game.phase_name == "night"

    # A task over the broker, run in the worker's process (not this one, not eagerly).
    assert not settings.CELERY_TASK_ALWAYS_EAGER
    token = f"hello-{time.time_ns()}"
    reply = ping.delay(token).get(timeout=90)
    assert reply["pong"] == token
    assert reply["pid"] == celery_worker_and_beat.pid != os.getpid()

    # The beat's sweep ends the night once its deadline (and the grace) has passed.
    wait_until(lambda: Game.objects.get(pk=game.pk).phase_name == "day", seconds=60,
               what="the beat advances the phase")
    night = Phase.objects.get(game=game, seq=1)
    assert night.end_reason == "deadline" and night.ended_at >= night.deadline

    # Two more sweeps: nothing advances twice.
    log = tmp_path / "celery.log"
    done = sweeps_done(log)
    wait_until(lambda: sweeps_done(log) >= done + 2, seconds=30, what="two more sweeps")
    assert Game.objects.get(pk=game.pk).version == 1
    assert Action.objects.filter(game=game, actor="clock").count() == 1
