"""The real clock: Celery beat and a worker end a phase at its deadline, once."""

import time

import pytest

from games import services
from games.models import Action, Game, Phase

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("toy_ruleset", "english")]


def test_beat_ends_a_phase_at_its_deadline(celery_worker_and_beat, players, gm):
    g = services.create_game(name="快局", ruleset="toy", gm=gm, seat_count=5,
                             durations={"night": 0.05, "day": 60}, change_cutoff_minutes=0,
                             early_end=False)
    game = services.start_game(game_id=g.pk, users=players)
    assert game.phase_name == "night"
    for _ in range(120):
        time.sleep(0.5)
        game.refresh_from_db()
        if game.phase_name == "day":
            break
    assert game.phase_name == "day", "beat did not advance the phase"
    night = Phase.objects.get(game=game, seq=1)
    assert night.end_reason == "deadline" and night.ended_at >= night.deadline
    time.sleep(3)  # a few more beats: nothing advances twice
    assert Game.objects.get(pk=game.pk).version == 1
    assert Action.objects.filter(game=game, actor="clock").count() == 1
