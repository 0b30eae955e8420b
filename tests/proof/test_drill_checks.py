"""Canaries for the drills' verdicts (scripts/drills/checks.py, and through it the load test's
scripts/loadtest/check.py): each is fed database rows or mail counts that break the
property it guards, and must fail. No drill runs here; each test takes a second or two.

The properties:
1. every phase advanced once, at or after its deadline. Counting clock steps per phase row
   could not fail for a phase advanced twice: each advance opens a new row, so the second
   advance of one deadline ends the *next* phase, with one clock step of its own, long
   before that phase's deadline. The check now reads each phase's deadline;
2. some email was sent, and every outbox row's message arrived exactly once ("none twice"
   passed before with no email at all);
3. every seat's private results have their email, counted against the games' own result
   notices (before, nothing compared the notices with the emails).
"""

from __future__ import annotations

import datetime as dt
import importlib.util
from collections import Counter
from pathlib import Path

import pytest
import time_machine

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset")]

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


checks = load("drill_checks", SCRIPTS / "drills" / "checks.py")
loadtest_check = load("loadtest_check_for_canaries", SCRIPTS / "loadtest" / "check.py")

T0 = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)
LATE = dt.timedelta(seconds=5)  # after each deadline (past the sweep's grace) the clock ends it


def advance_at(game_id: int, at: dt.datetime) -> None:
    from games import services

    with time_machine.travel(at, tick=False):
        assert services.advance_phase(game_id=game_id, now=at)


def new_game(players, gm):
    """A toy game as the drills make them (one-minute phases, no early end), started at T0."""
    from games import services

    game = services.create_game(name="演练", ruleset="toy", gm=gm, seat_count=5,
                                durations={"night": 1, "day": 1}, early_end=False,
                                change_cutoff_minutes=0)
    with time_machine.travel(T0, tick=False):
        return services.start_game(game_id=game.pk, users=players, seed="drill-checks", now=T0)


@pytest.fixture
def played(players, gm):
    """The clock ends the night and then the day, each 5 s after its deadline."""
    from games.models import Game

    game = new_game(players, gm)
    for _ in range(2):
        game = Game.objects.get(pk=game.pk)
        advance_at(game.pk, game.deadline + LATE)
    return Game.objects.get(pk=game.pk)


def test_an_intact_game_passes(played):
    result = checks.check_games([played])
    assert result["problems"] == [] and result["bad"] == []
    assert (result["phases ended"], result["double advances"]) == (2, 0)
    assert checks.check_games([played], max_lag=LATE.total_seconds())["problems"] == []


def test_a_phase_advanced_twice_fails_though_each_row_has_one_clock_step(players, gm):
    """The second advance of one deadline, as a sweep that skipped the re-check inside the
    lock would make it: it ends the day that the first advance opened a moment before."""
    from django.db import transaction

    from games.models import Action
    from games.services.kernel import lock_game
    from games.services.lifecycle import advance_locked

    game = new_game(players, gm)
    night_end = game.deadline + LATE
    advance_at(game.pk, night_end)
    with time_machine.travel(night_end, tick=False), transaction.atomic():
        advance_locked(lock_game(game.pk), reason="deadline", now=night_end)
    per_row = Counter(Action.objects.filter(game_id=game.pk, actor="clock")
                      .values_list("phase_id", flat=True))
    assert set(per_row.values()) == {1}  # what counting per row saw: one clock step each
    for check in (checks.check_games([game.pk]),
                  loadtest_check.check_games([game.pk], [])):
        assert check["double advances"] == 0
        assert check["ended before the deadline"] == 1
        assert check["bad"] == [game.pk]
        assert any("phase 2 (day 1, deadline) ended" in p and "before its deadline" in p
                   for p in check["problems"]), check["problems"]


def test_a_phase_ended_before_its_deadline_fails(played):
    from games.models import Action

    night = played.phases.get(seq=1)
    early = night.deadline - dt.timedelta(seconds=30)
    played.phases.filter(pk=night.pk).update(ended_at=early)
    Action.objects.filter(game=played, phase=night, actor="clock").update(created=early)
    result = checks.check_games([played])
    assert result["ended before the deadline"] == 1 and result["bad"] == [played.pk]
    assert any("phase 1 (night 1, deadline) ended 30.0 s before its deadline" in p
               for p in result["problems"]), result["problems"]


def test_a_phase_ended_by_anything_but_its_deadline_fails_where_no_early_end_is_allowed(
        played):
    played.phases.filter(seq=1).update(end_reason="gm")
    assert any("not ended by its deadline" in p
               for p in checks.check_games([played])["problems"])
    assert loadtest_check.check_games([played.pk], [], early_allowed=True)["problems"] == []


def test_a_phase_ended_too_long_after_its_deadline_fails_with_a_bound(played):
    result = checks.check_games([played], max_lag=1)
    assert result["late"] == 2
    assert any("5.0 s after its deadline (at most 1 s)" in p for p in result["problems"])


# --- emails ----------------------------------------------------------------------------------

ROW = ("a@example.org", "【演练】还剩 30 分钟")
OTHER = ("b@example.org", "【演练】神的使者发来的私密结果")


def test_emails_each_arrived_once_pass():
    result = checks.check_emails(Counter([ROW, OTHER]), Counter([ROW, OTHER]))
    assert result["problems"] == [] and result["emails"] == 2


def test_no_email_at_all_fails():
    """"None twice" holds trivially when nothing was sent: the drill must not pass then."""
    result = checks.check_emails(Counter(), Counter())
    assert result["problems"] == ["no email arrived at all"]


def test_an_email_that_arrived_twice_fails():
    result = checks.check_emails(Counter([ROW, OTHER]), Counter([ROW, ROW, OTHER]))
    assert result["twice"] == 1 and len(result["problems"]) == 1


def test_an_email_that_never_arrived_or_had_no_row_fails():
    missing = checks.check_emails(Counter([ROW, OTHER]), Counter([ROW]))
    assert missing["missing"] == 1 and missing["problems"]
    stray = checks.check_emails(Counter([ROW]), Counter([ROW, OTHER]))
    assert stray["unexpected"] == 1 and stray["problems"]


# --- private results against their emails ----------------------------------------------------

@pytest.fixture
def dealt(players, gm, django_capture_on_commit_callbacks):
    """A toy game just dealt: every seat got its private results from 神的使者 (a result
    notice each), and every player wants them by email. Returns the game and what arrived
    at a sink that got every outbox row once."""
    from accounts.models import Profile
    from games import services
    from games.models import OutboxEmail

    Profile.objects.filter(user__in=players).update(email_results=True)
    game = services.create_game(name="演练", ruleset="toy", gm=gm, seat_count=5,
                                durations={"night": 60, "day": 60})
    with django_capture_on_commit_callbacks(execute=False):
        game = services.start_game(game_id=game.pk, users=players, seed="drill-checks")
    arrived = checks.outbox_counter(OutboxEmail.objects.all())
    return game, arrived


def test_every_seat_s_results_arrived_once_passes(dealt):
    game, arrived = dealt
    result = checks.check_result_notices([game], arrived)
    assert result["problems"] == []
    assert result["result notices"] == result["result emails"] == result["arrived"] == 5


def test_a_result_email_never_written_fails(dealt):
    from games.models import OutboxEmail

    game, arrived = dealt
    OutboxEmail.objects.filter(kind="results").first().delete()
    result = checks.check_result_notices([game], arrived)
    assert any("1 result notices but 0 result emails" in p for p in result["problems"])


def test_a_result_email_that_did_not_arrive_or_arrived_twice_fails(dealt):
    from games.models import OutboxEmail

    game, arrived = dealt
    row = OutboxEmail.objects.filter(kind="results").first()
    for changed in (arrived - Counter([(row.to, row.subject)]),
                    arrived + Counter([(row.to, row.subject)])):
        result = checks.check_result_notices([game], changed)
        assert any("result emails but" in p for p in result["problems"]), result["problems"]


def test_a_seat_without_any_private_result_fails(dealt):
    from messaging.models import Notification

    game, arrived = dealt
    seat = game.seats.get(number=0)
    Notification.objects.filter(kind="result", conversation=seat.conversation).delete()
    result = checks.check_result_notices([game], arrived)
    assert any(f"seat {seat.number}: no private result at all" in p
               for p in result["problems"]), result["problems"]
