"""The sweeper backs off a game whose advance raises: the other due games
go on, the failure is logged once per back-off step with the game id, its GM is told once
per step, and the game is retried after the wait."""

from __future__ import annotations

import datetime as dt
import logging

import pytest

from games import services
from games.models import AdvanceBackoff, OutboxEmail
from games.services import lifecycle
from messaging.models import Notification

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset")]


class Broken:
    def __getattr__(self, name):
        raise RuntimeError("engine exploded")


@pytest.fixture
def two_games(players, gm, make_user):
    others = [make_user(f"乙{i}") for i in range(5)]
    games = []
    for name, users in (("坏局", players), ("好局", others)):
        g = services.create_game(name=name, ruleset="toy", gm=gm, seat_count=5,
                                 durations={"night": 60, "day": 60})
        games.append(services.start_game(game_id=g.pk, users=users, seed=name))
    return games


def break_engine(monkeypatch, game_id):
    real = lifecycle.ruleset_of
    monkeypatch.setattr(lifecycle, "ruleset_of",
                        lambda game: Broken() if game.pk == game_id else real(game))


def failures_logged(caplog, game_id):
    return [r for r in caplog.records if r.levelno == logging.ERROR
            and getattr(r, "game_id", None) == game_id]


def test_a_broken_game_is_backed_off_logged_once_per_step_and_retried(
        two_games, gm, monkeypatch, caplog, settings):
    settings.SWEEP_RETRY_BASE_SECONDS, settings.SWEEP_RETRY_MAX_SECONDS = 60, 3600
    bad, good = two_games
    break_engine(monkeypatch, bad.pk)
    t0 = max(bad.deadline, good.deadline) + dt.timedelta(seconds=settings.SWEEP_GRACE_SECONDS + 1)
    caplog.set_level(logging.INFO)

    assert lifecycle.sweep(now=t0) == 1, "the good game advances despite the broken one"
    good.refresh_from_db()
    assert good.phase_number == 1 and good.phase_name == "day"
    row = AdvanceBackoff.objects.get(game=bad)
    assert (row.failures, row.retry_at) == (1, t0 + dt.timedelta(seconds=60))
    assert "engine exploded" in row.last_error
    assert len(failures_logged(caplog, bad.pk)) == 1

    # Inside the back-off: not tried, not logged again.
    for seconds in (1, 20, 59):
        assert lifecycle.sweep(now=t0 + dt.timedelta(seconds=seconds)) == 0
    assert len(failures_logged(caplog, bad.pk)) == 1
    assert AdvanceBackoff.objects.get(game=bad).failures == 1

    # After it: tried once more, the wait doubles, one more line.
    t1 = t0 + dt.timedelta(seconds=60)
    assert lifecycle.sweep(now=t1) == 0
    row.refresh_from_db()
    assert (row.failures, row.retry_at) == (2, t1 + dt.timedelta(seconds=120))
    assert len(failures_logged(caplog, bad.pk)) == 2

    # The GM was told once per step: a notice from 神的使者 and an email each.
    notices = Notification.objects.filter(user=gm, kind="messenger")
    assert notices.count() == 2 and "坏局" in notices.first().text
    assert OutboxEmail.objects.filter(to=gm.email).count() == 2

    # Mended: the next try after the wait advances it and the back-off is gone.
    monkeypatch.undo()
    assert lifecycle.sweep(now=t1 + dt.timedelta(seconds=119)) == 0
    assert lifecycle.sweep(now=t1 + dt.timedelta(seconds=120)) == 1
    bad.refresh_from_db()
    assert bad.phase_name == "day" and not AdvanceBackoff.objects.filter(game=bad).exists()


def test_a_phase_advance_logs_its_game_id_and_the_line_shows_it(game, caplog):
    from config.logs import UTCFormatter

    caplog.set_level(logging.INFO)
    at = game.deadline + dt.timedelta(seconds=30)
    assert lifecycle.sweep(now=at) == 1
    [record] = [r for r in caplog.records if r.getMessage().startswith("phase advanced")]
    assert record.game_id == game.pk
    formatter = UTCFormatter("%(asctime)s %(levelname)s %(name)s %(game)s%(message)s")
    assert f" game={game.pk} phase advanced" in formatter.format(record)
    plain = logging.LogRecord("x", logging.INFO, __file__, 1, "no game here", None, None)
    assert "game=" not in formatter.format(plain)


def test_a_gm_act_logs_its_game_id(game, gm, caplog):
    caplog.set_level(logging.INFO)
    services.end_phase_now(game_id=game.pk, gm=gm)
    assert [r for r in caplog.records if r.getMessage().startswith("gm act end_phase_now")
            and r.game_id == game.pk]
