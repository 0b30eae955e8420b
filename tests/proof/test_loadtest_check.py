"""The load test's after-run checker (scripts/loadtest/check.py) on a tiny scripted game of
猫有n条命: it passes an intact game and reports each kind of loss the load test looks for.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
from pathlib import Path

import pytest
import time_machine

pytestmark = pytest.mark.django_db

CHECK = Path(__file__).resolve().parents[2] / "scripts" / "loadtest" / "check.py"
spec = importlib.util.spec_from_file_location("loadtest_check", CHECK)
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)

T0 = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)
LATE = dt.timedelta(seconds=7)  # how long after each deadline the scripted clock ends a phase


def choice_of(game, seat: int, kind: str):
    from games import services

    return next(c for c in services.ruleset_of(game).legal_actions(game.state, seat)
                if c.kind == kind)


@pytest.fixture
def played(make_user):
    """A game of 6 seats with one-minute phases: seat 1 passes at night, the clock ends the
    night 7 s after its deadline, seat 2 votes by day, the clock ends the day 7 s late. Returns the game
    and what the players were told was accepted."""
    from games import services
    from games.models import Game

    gm = make_user("天神", staff=True)
    users = [make_user(f"猫{i}") for i in range(6)]
    game = services.create_game(name="压测", ruleset="ninelives", gm=gm, seat_count=6,
                                durations={"night": 1, "day": 1, "runoff": 1},
                                early_end=False, change_cutoff_minutes=0)
    services.start_game(game_id=game.pk, users=users, seed="loadtest-check", now=T0)
    accepted = []
    for phase_kind, seat in (("pass", 0), ("vote", 1)):
        game = Game.objects.get(pk=game.pk)
        choice = choice_of(game, seat, phase_kind)
        services.submit_action(game_id=game.pk, user=users[seat], kind=choice.kind,
                               params=dict(choice.params), now=game.deadline - LATE)
        accepted.append({"game": game.pk, "seat": seat, "kind": choice.kind,
                         "params": dict(choice.params)})
        with time_machine.travel(game.deadline + LATE, tick=False):
            assert services.advance_phase(game_id=game.pk)
    return Game.objects.get(pk=game.pk), accepted


def test_an_intact_game_passes_and_its_phase_lag_is_measured(played):
    game, accepted = played
    result = check.check_games([game.pk], accepted)
    assert result["problems"] == []
    assert (result["accepted steps"], result["lost"]) == (2, 0)
    assert (result["phases ended"], result["by deadline"]) == (2, 2)
    assert check.phase_lag([game.pk]) == [LATE.total_seconds()] * 2


def test_an_accepted_step_missing_from_the_log_is_lost(played):
    game, accepted = played
    told_twice = accepted + [accepted[1]]  # told "counted" twice, logged once
    never_logged = accepted + [{"game": game.pk, "seat": 5, "kind": "vote",
                                "params": {"target": 0}}]
    for claims in (told_twice, never_logged):
        result = check.check_games([game.pk], claims)
        assert result["lost"] == 1
        assert any("not in the log" in p for p in result["problems"])


def test_a_phase_advanced_twice_is_reported(played):
    from games.models import Action

    game, accepted = played
    night = game.phases.get(seq=1)
    Action.objects.create(game=game, seq=game.steps + 1, phase=night, actor="clock",
                          kind="end_phase", params={})
    result = check.check_games([game.pk], accepted)
    assert result["double advances"] == 1
    assert any("phase 1 (night 1, deadline) has 2 clock steps" in p
               for p in result["problems"])


def test_a_stored_state_that_is_not_the_replay_of_the_log_is_reported(played):
    from games.models import Game

    game, accepted = played
    state = game.state
    state["public"]["phase"]["number"] += 1
    Game.objects.filter(pk=game.pk).update(state=state)
    assert any("replay" in p for p in check.check_games([game.pk], accepted)["problems"])


def test_a_version_that_is_not_the_number_of_advances_is_reported(played):
    from games.models import Game

    game, accepted = played
    Game.objects.filter(pk=game.pk).update(version=game.version + 1)
    problems = check.check_games([game.pk], accepted)["problems"]
    assert any(f"version {game.version + 1} but 2 advances" in p for p in problems)


def test_a_gap_in_the_phase_numbers_is_reported(played):
    game, accepted = played
    last = game.phases.order_by("seq").last()
    game.phases.filter(pk=last.pk).update(seq=last.seq + 1)
    problems = check.check_games([game.pk], accepted)["problems"]
    assert any("gap" in p for p in problems)


def test_the_typed_text_of_a_step_does_not_change_its_key():
    plain = check.step_key(1, 2, "use_card", {"card": "WEREWOLF", "target": 3})
    typed = check.step_key(1, 2, "use_card", {"card": "WEREWOLF", "target": 3,
                                              "manifesto": "长" * 120})
    other = check.step_key(1, 2, "use_card", {"card": "WEREWOLF", "target": 4})
    assert plain == typed != other


def test_percentiles_by_nearest_rank():
    values = [float(v) for v in range(100, 0, -1)]
    assert (check.percentile(values, 50), check.percentile(values, 99)) == (50.0, 99.0)
    assert check.percentile([4.0], 99) == 4.0
    assert check.percentile([], 50) is None
