"""The clock cannot be starved: its tasks go to a queue and a worker of their own, slow work to
another; every game a sweep finds due advances in that sweep, or a line with its game id
says why not."""

from __future__ import annotations

import datetime as dt
import logging
import sys
import threading
import time
from pathlib import Path

import pytest
import time_machine
from django.conf import settings
from django.db import connection, transaction

from games import services
from games.models import Game
from games.services import lifecycle

CLOCK = ("games.sweep", "games.reminders", "games.outbox", "games.community")
SLOW = ("games.winrates", "games.send_email")


def routed_queue(task: str) -> str:
    from config.celery import app

    return app.amqp.router.route({}, task)["queue"].name


def test_the_clocks_tasks_go_to_the_clock_queue_and_slow_work_to_the_slow_queue():
    assert settings.CLOCK_QUEUE.startswith("clock") and settings.SLOW_QUEUE.startswith("slow")
    assert {task: routed_queue(task) for task in CLOCK} == dict.fromkeys(
        CLOCK, settings.CLOCK_QUEUE)
    assert {task: routed_queue(task) for task in SLOW} == dict.fromkeys(
        SLOW, settings.SLOW_QUEUE)
    assert routed_queue("games.ping") == settings.CELERY_TASK_DEFAULT_QUEUE


def test_what_the_beat_sends_goes_to_the_clock_queue_and_expires_by_the_next_tick():
    from config.celery import app

    app.loader.import_default_modules()
    app.finalize()
    schedule = {entry["task"]: entry for entry in app.conf.beat_schedule.values()}
    assert set(schedule) == set(CLOCK)
    for task, entry in schedule.items():
        assert routed_queue(task) == settings.CLOCK_QUEUE
        assert entry["options"]["expires"] >= entry["schedule"]


def test_a_message_sent_by_name_lands_in_its_queue(monkeypatch):
    """config.broker.send (what games.mail and the win rates use) publishes by name; the
    routes still apply: the message is in the slow queue's Redis list, not the default's."""
    import redis

    from config import broker

    client = redis.Redis.from_url(settings.REDIS_URL)
    before = client.llen(settings.SLOW_QUEUE)
    assert broker.send("games.send_email", {"outbox_ids": []})
    assert client.llen(settings.SLOW_QUEUE) == before + 1
    client.delete(settings.SLOW_QUEUE)


def test_make_runs_supervisor_starts_a_clock_worker_and_a_slow_worker(tmp_path):
    from config import devstack

    children = devstack.supervised(sys.executable, "127.0.0.1", 8000, {}, Path(tmp_path))
    names = [c.name for c in children]
    assert names == ["web server", "Celery worker", "Celery clock worker", "Celery beat"]
    slow, clock = children[1].argv, children[2].argv
    assert clock[clock.index("-Q") + 1] == "clock"
    assert "--concurrency=2" in clock and "--prefetch-multiplier=1" in clock
    assert slow[slow.index("-Q") + 1] == "slow,celery"
    assert children[2].log.name == "clock.log" and children[1].log.name == "worker.log"
    # Each process's pool: a prefork child runs one task at a time.
    assert children[1].env["DB_POOL_MAX"] == children[2].env["DB_POOL_MAX"] == "1"


# --- every due game advances in the sweep that found it --------------------------------------

@pytest.fixture
def two_due_games(toy_ruleset, players, gm, make_user):
    others = [make_user(f"丙{i}") for i in range(5)]
    games = []
    for name, users in (("甲局", players), ("乙局", others)):
        g = services.create_game(name=name, ruleset="toy", gm=gm, seat_count=5,
                                 durations={"night": 60, "day": 60}, early_end=False)
        games.append(services.start_game(game_id=g.pk, users=users, seed=name))
    t = max(g.deadline for g in games) + dt.timedelta(seconds=settings.SWEEP_GRACE_SECONDS + 1)
    return games, t


def hold_row(game_id: int, seconds: float, held: threading.Event) -> threading.Thread:
    """A thread holding the game's row lock for `seconds` (what a player's step or vote in
    flight at the deadline does), on a connection of its own."""

    def hold():
        try:
            with transaction.atomic():
                Game.objects.select_for_update().get(pk=game_id)
                held.set()
                time.sleep(seconds)
        finally:
            connection.close()

    thread = threading.Thread(target=hold)
    thread.start()
    assert held.wait(10)
    return thread


@pytest.mark.django_db(transaction=True)
def test_two_due_games_both_advance_in_one_sweep_though_one_row_is_locked(two_due_games,
                                                                          caplog):
    """Before, the sweep skipped a locked row without a word (skip_locked) and the game
    advanced at the next sweep, SWEEP_INTERVAL_SECONDS later."""
    (first, second), t = two_due_games
    caplog.set_level(logging.INFO)
    held = threading.Event()
    holder = hold_row(second.pk, 1.0, held)
    try:
        started = time.monotonic()
        assert lifecycle.sweep(now=t, lock_wait=10) == 2
        assert time.monotonic() - started < 10
    finally:
        holder.join(20)
    for game in (first, second):
        game.refresh_from_db()
        assert (game.phase_name, game.version) == ("day", 1)
    assert not [r for r in caplog.records if "not advanced" in r.getMessage()]


@pytest.mark.django_db(transaction=True)
def test_a_due_game_whose_row_stays_locked_is_logged_with_its_id(two_due_games, caplog):
    (first, second), t = two_due_games
    caplog.set_level(logging.INFO)
    held = threading.Event()
    holder = hold_row(second.pk, 3.0, held)
    try:
        assert lifecycle.sweep(now=t, lock_wait=0.3) == 1
    finally:
        holder.join(20)
    [line] = [r for r in caplog.records if "not advanced" in r.getMessage()]
    assert line.game_id == second.pk and line.levelno == logging.WARNING
    assert "stayed locked" in line.getMessage()
    from config.logs import UTCFormatter

    text = UTCFormatter("%(asctime)s %(levelname)s %(name)s %(game)s%(message)s").format(line)
    assert f"game={second.pk} not advanced by this sweep" in text
    assert lifecycle.sweep(now=t) == 1  # the lock is gone: the next sweep advances it
    second.refresh_from_db()
    assert second.version == 1


@pytest.mark.django_db
def test_a_due_game_advanced_meanwhile_is_logged_not_advanced_twice(two_due_games, caplog,
                                                                    monkeypatch, gm):
    """A GM's "end phase now" between the sweep's read and its advance: the sweep says so."""
    (first, second), t = two_due_games
    caplog.set_level(logging.INFO)
    real = lifecycle.advance_phase

    def gm_first(*, game_id, **kwargs):
        if game_id == second.pk:
            services.end_phase_now(game_id=second.pk, gm=gm)
        return real(game_id=game_id, **kwargs)

    monkeypatch.setattr(lifecycle, "advance_phase", gm_first)
    assert lifecycle.sweep(now=t) == 1
    [line] = [r for r in caplog.records if "not advanced" in r.getMessage()]
    assert line.game_id == second.pk and "advanced meanwhile" in line.getMessage()
    second.refresh_from_db()
    assert second.version == 1


@pytest.mark.django_db
def test_a_sweep_reads_every_due_game_whatever_its_batch_size(toy_ruleset, gm, make_user):
    games = []
    for i in range(5):
        g = services.create_game(name=f"批{i}", ruleset="toy", gm=gm, seat_count=5,
                                 durations={"night": 60, "day": 60}, early_end=False)
        users = [make_user(f"批{i}-{n}") for n in range(5)]
        games.append(services.start_game(game_id=g.pk, users=users, seed=str(i)))
    t = max(g.deadline for g in games) + dt.timedelta(seconds=settings.SWEEP_GRACE_SECONDS + 1)
    assert lifecycle.sweep(now=t, limit=2) == 5
    assert lifecycle.sweep(now=t, limit=2) == 0  # each once a sweep: the day is not due


@pytest.mark.django_db(transaction=True)
def test_a_sweep_while_another_runs_leaves_the_due_games_to_it(two_due_games, caplog):
    """The second sweep neither advances nor waits: it finds the first's advisory lock. The
    beat's task then records no heartbeat (a hung sweep must still show on /readyz)."""
    from django.core.cache import caches

    from config.health import SWEEP_KEY
    from games import tasks

    (first, second), t = two_due_games
    caplog.set_level(logging.INFO)
    held, done = threading.Event(), threading.Event()

    def other_sweep():
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_lock(%s)", [lifecycle.SWEEP_LOCK])
                held.set()
                done.wait(20)
                cursor.execute("SELECT pg_advisory_unlock(%s)", [lifecycle.SWEEP_LOCK])
        finally:
            connection.close()

    thread = threading.Thread(target=other_sweep)
    thread.start()
    try:
        assert held.wait(10)
        assert lifecycle.sweep_alone(now=t) is None
        assert lifecycle.sweep(now=t) == 0
        caches["default"].delete(SWEEP_KEY)
        with time_machine.travel(t, tick=False):
            assert tasks.sweep() == {"advanced": 0, "another_sweep_running": True}
        assert caches["default"].get(SWEEP_KEY) is None
    finally:
        done.set()
        thread.join(20)
    assert "another sweep is running: 2 due games" in caplog.text
    assert lifecycle.sweep(now=t) == 2
