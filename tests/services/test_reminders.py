"""Reminder emails: N hours before a deadline, only to those who still owe a move, once."""

import datetime as dt

import pytest
from django.core import mail

from games import reminders, services
from games.models import ReminderSent
from tests.factories.toy import seat_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english", "eager_email")]


@pytest.fixture
def long_game(players, gm):
    g = services.create_game(name="长局", ruleset="toy", gm=gm, seat_count=5,
                             durations={"night": 24 * 60, "day": 24 * 60})
    return services.start_game(game_id=g.pk, users=players)


def test_no_reminder_before_the_first_window(long_game, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        sent = reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(hours=7))
    assert sent == 0 and not mail.outbox


def test_only_the_seat_that_owes_a_move_is_reminded_once(long_game,
                                                          django_capture_on_commit_callbacks):
    wolf = seat_user(long_game, "wolf")
    at = long_game.deadline - dt.timedelta(hours=5)
    with django_capture_on_commit_callbacks(execute=True):
        assert reminders.send_due_reminders(now=at) == 1
        assert reminders.send_due_reminders(now=at + dt.timedelta(minutes=1)) == 0
    assert [m.to for m in mail.outbox] == [[wolf.email]]
    assert f"/games/{long_game.pk}/act/" in mail.outbox[0].body
    assert "Asia/Shanghai" in mail.outbox[0].body


def test_the_one_hour_reminder_follows_and_then_nothing(long_game,
                                                        django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(hours=5))
        reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(minutes=50))
        reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(minutes=10))
    assert len(mail.outbox) == 2
    assert ReminderSent.objects.exclude(hours=reminders.NOTICE_HOURS).count() == 2


def test_a_late_first_sweep_sends_only_the_nearest_reminder(long_game,
                                                            django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(minutes=30))
    assert len(mail.outbox) == 1 and "1" in mail.outbox[0].subject
    assert set(ReminderSent.objects.exclude(hours=reminders.NOTICE_HOURS)
               .values_list("hours", flat=True)) == {6, 1}


def test_a_seat_that_acted_is_not_reminded(long_game, django_capture_on_commit_callbacks):
    long_game.early_end = False
    long_game.save()
    wolf = seat_user(long_game, "wolf")
    target = next(s.number for s in long_game.seats.all() if s.user != wolf)
    services.submit_action(game_id=long_game.pk, user=wolf, kind="kill",
                           params={"target": target})
    with django_capture_on_commit_callbacks(execute=True):
        assert reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(hours=2)) == 0


def test_users_choose_their_hours_or_none(long_game, django_capture_on_commit_callbacks):
    wolf = seat_user(long_game, "wolf")
    wolf.profile.reminder_hours = ""
    wolf.profile.save()
    with django_capture_on_commit_callbacks(execute=True):
        assert reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(minutes=5)) == 0
    wolf.profile.reminder_hours = "12"
    wolf.profile.save()
    with django_capture_on_commit_callbacks(execute=True):
        assert reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(hours=11)) == 1


def test_the_database_refuses_a_second_reminder_row(long_game):
    from django.db import IntegrityError, transaction

    user = long_game.seats.first().user
    ReminderSent.objects.create(phase=long_game.current_phase, user=user, hours=6)
    with pytest.raises(IntegrityError), transaction.atomic():
        ReminderSent.objects.create(phase=long_game.current_phase, user=user, hours=6)
