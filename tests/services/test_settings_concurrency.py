"""An admin save of a running game racing the sweeper on real PostgreSQL: both land."""

import datetime as dt

import pytest

from games import services
from games.models import Game
from tests.services.test_concurrency import run_together

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("toy_ruleset", "english")]


def test_settings_saved_during_a_sweep_never_undo_it(game, gm):
    for round_ in range(3):
        before = Game.objects.get(pk=game.pk)
        later = before.deadline + services.grace() + dt.timedelta(seconds=5)
        results = run_together([
            lambda t=later: services.sweep(now=t),
            lambda n=round_: services.update_settings(
                game_id=game.pk, changes={"name": f"第{n}轮", "early_end": bool(n % 2)}),
        ])
        assert isinstance(results[1], Game), results
        # A sweep that found the row locked by the save skips it (skip_locked); the next
        # tick advances it. Either way the phase advances once and the save stays.
        advanced = results[0] + (services.sweep(now=later) if results[0] == 0 else 0)
        assert advanced == 1, results
        after = Game.objects.get(pk=game.pk)
        assert after.version == before.version + 1
        assert after.name == f"第{round_}轮" and after.early_end == bool(round_ % 2)
        assert after.deadline > before.deadline and after.state != before.state
