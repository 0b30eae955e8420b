"""Races on real PostgreSQL: concurrent sweepers and a vote racing the deadline."""

import datetime as dt
import threading
import time

import pytest
from django.db import close_old_connections, connection

from games import services
from games.models import Action, Game, Phase

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("toy_ruleset", "english")]


def run_together(fns):
    """Run callables at once in threads (each with its own connection); return results."""
    barrier = threading.Barrier(len(fns))
    results = [None] * len(fns)

    def wrap(i, fn):
        try:
            barrier.wait()
            results[i] = fn()
        except Exception as exc:  # surfaced to the test
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=wrap, args=(i, fn)) for i, fn in enumerate(fns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    close_old_connections()
    return results


def test_concurrent_sweepers_advance_each_phase_exactly_once(game):
    later = game.deadline + dt.timedelta(seconds=5)
    results = run_together([lambda: services.sweep(now=later) for _ in range(6)])
    assert all(isinstance(r, int) for r in results), results
    assert sum(results) == 1
    game.refresh_from_db()
    assert game.version == 1 and game.phase_name == "day"
    assert Phase.objects.filter(game=game).count() == 2
    assert Action.objects.filter(game=game, actor="clock").count() == 1


def test_concurrent_gm_and_sweeper_do_not_double_advance(game, gm):
    later = game.deadline + dt.timedelta(seconds=5)
    results = run_together([
        lambda: services.advance_phase(game_id=game.pk, expected_version=0, now=later),
        lambda: services.advance_phase(game_id=game.pk, expected_version=0, now=later),
        lambda: services.sweep(now=later),
    ])
    assert sum(int(r) for r in results) == 1, results
    game.refresh_from_db()
    assert game.version == 1


def test_votes_racing_the_deadline_are_never_lost_nor_late(game):
    from tests.factories.toy import seat_user

    wolf = seat_user(game, "wolf")
    villager = next(s for s in game.seats.all() if s.user != wolf)
    services.submit_action(game_id=game.pk, user=wolf, kind="kill",
                           params={"target": villager.number})
    game.refresh_from_db()
    deadline = game.deadline
    voters = [s for s in game.seats.order_by("number") if s.alive]
    target = voters[0].number

    def vote(seat, when):
        def go():
            try:
                services.submit_action(game_id=game.pk, user=seat.user, kind="vote",
                                       params={"target": target}, now=when)
                return "ok"
            except services.GameError as exc:
                return exc.message
        return go

    early = deadline - dt.timedelta(seconds=1)
    late = deadline + dt.timedelta(seconds=1)
    fns = [vote(s, early if i % 2 == 0 else late) for i, s in enumerate(voters)]
    after_grace = late + services.grace()

    def sweeper():
        # The sweep races the votes still coming, once one has been taken: a race that the
        # sweep always won before any vote would prove nothing about votes.
        for _ in range(600):
            if Action.objects.filter(game=game, kind="vote").exists():
                break
            time.sleep(0.05)
        return services.sweep(now=after_grace)

    fns.append(sweeper)
    results = run_together(fns)
    game.refresh_from_db()
    # Every vote was answered: taken, or refused with a sentence (never an error).
    assert all(isinstance(r, str) for r in results[:-1]), results
    accepted = [voters[i].number for i, r in enumerate(results[:-1]) if r == "ok"]
    on_time = [voters[i].number for i in range(len(voters)) if i % 2 == 0]
    assert accepted, results                        # the race took votes
    assert set(accepted) <= set(on_time)           # nothing after the deadline counted
    # every accepted vote is in the log, before the clock step of that phase
    day = Phase.objects.get(game=game, seq=2)
    logged = list(Action.objects.filter(game=game, phase=day, kind="vote")
                  .values_list("seat__number", flat=True))
    assert sorted(logged) == sorted(accepted)
    # A sweeper that found the row locked by a voter skipped it; the next tick finishes.
    services.sweep(now=after_grace)
    services.sweep(now=after_grace)
    assert Game.objects.get(pk=game.pk).version == 2  # night (early) + day (sweeper), once each
    assert Action.objects.filter(game=game, phase=day, actor="clock").count() == 1
