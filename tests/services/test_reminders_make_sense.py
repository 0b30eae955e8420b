"""Reminders that make sense when they arrive: none for a phase that ended between the sweep
and the send, the time left as it is when the email leaves, marks scaled to the phase's
length (never more than half the phase before its deadline), and activity warnings written
in the reader's language with the reminders' one-click unsubscribe."""

import datetime as dt

import pytest
import time_machine
from django.core import mail, signing

from accounts.models import Profile
from accounts.unsubscribe import SALT
from games import mail as outbox
from games import reminders, services
from games.models import OutboxEmail, ReminderSent
from tests.factories.toy import seat_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english")]


@pytest.fixture
def queued(settings):
    """The worker is not eager: a sweep's emails wait in the outbox until `outbox.send_*`."""
    from config.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = False
    app.conf.task_always_eager = False


def game_of(players, gm, minutes: int):
    g = services.create_game(
        name="提醒局",
        ruleset="toy",
        gm=gm,
        seat_count=5,
        durations={"night": minutes, "day": minutes},
        change_cutoff_minutes=min(10, minutes // 2),
    )
    game = services.start_game(game_id=g.pk, users=players)
    Profile.objects.filter(user__in=players).update(language="en")
    return game


def reminder_rows():
    return list(OutboxEmail.objects.filter(kind="reminders").order_by("pk"))


# --- checked again when the email leaves ------------------------------------------------------


def test_a_reminder_for_a_phase_that_ended_before_it_left_is_dropped(players, gm, queued):
    game = game_of(players, gm, 24 * 60)
    assert reminders.send_due_reminders(now=game.deadline - dt.timedelta(minutes=30)) == 1
    services.end_phase_now(game_id=game.pk, gm=gm)  # the night ends before the worker sends
    outbox.send_due(now=game.deadline - dt.timedelta(minutes=29))
    assert not [m for m in mail.outbox if "left" in m.subject]
    [row] = reminder_rows()
    assert row.sent_at is None and row.failed_at is not None and row.attempts == 0
    assert row.last_error == outbox.DROPPED and row.subject == ""


def test_a_reminder_still_unsent_at_its_deadline_is_dropped(players, gm, queued):
    """The night was not yet swept away (the game sweep comes every few seconds), but its
    deadline has passed: 45 s late, the email would arrive after the phase ended."""
    game = game_of(players, gm, 24 * 60)
    reminders.send_due_reminders(now=game.deadline - dt.timedelta(minutes=30))
    [row] = reminder_rows()
    assert not outbox.send_one(row.pk, now=game.deadline + dt.timedelta(seconds=45))
    row.refresh_from_db()
    assert row.last_error == outbox.DROPPED and not mail.outbox


def test_a_reminder_sent_late_states_the_time_left_when_it_leaves(players, gm, queued):
    game = game_of(players, gm, 24 * 60)
    reminders.send_due_reminders(now=game.deadline - dt.timedelta(minutes=10))
    [row] = reminder_rows()
    assert outbox.send_one(row.pk, now=game.deadline - dt.timedelta(minutes=3, seconds=30))
    [email] = mail.outbox
    assert email.subject == f"[{game.name}] 3 min left: you have not acted yet"


def test_a_reminder_follows_a_deadline_the_gm_moved_after_the_sweep(players, gm, queued):
    game = game_of(players, gm, 24 * 60)
    reminders.send_due_reminders(now=game.deadline - dt.timedelta(minutes=10))
    game = services.extend_deadline(game_id=game.pk, gm=gm, minutes=60)
    [row] = reminder_rows()
    assert outbox.send_one(row.pk, now=game.deadline - dt.timedelta(minutes=70))
    [email] = mail.outbox
    assert email.subject == f"[{game.name}] 1 h 10 min left: you have not acted yet"
    local = game.deadline.astimezone(dt.timezone(dt.timedelta(hours=8)))
    assert local.strftime("%Y-%m-%d %H:%M") in email.body


# --- the marks scaled to the phase ---------------------------------------------------------


def test_a_ten_minute_phase_is_not_told_at_its_start_that_it_ends(
    players, gm, django_capture_on_commit_callbacks
):
    """With the default marks (6 h and 1 h) every mark fell due at once at the start of a
    10-minute phase: "10 min left" in the first sweep. Now the one reminder of such a phase
    comes a quarter of the phase before its deadline."""
    game = game_of(players, gm, 10)
    started = game.current_phase.started_at
    with django_capture_on_commit_callbacks(execute=True):
        assert reminders.send_due_reminders(now=started + dt.timedelta(seconds=5)) == 0
        assert reminders.send_due_reminders(now=game.deadline - dt.timedelta(minutes=3)) == 0
        assert reminders.send_due_reminders(now=game.deadline - dt.timedelta(minutes=2)) == 1
        assert reminders.send_due_reminders(now=game.deadline - dt.timedelta(minutes=1)) == 0
    [row] = ReminderSent.objects.all()
    assert (row.first_hours, row.hours) == (0, 0)


def test_a_mark_longer_than_half_the_phase_is_not_sent(
    players, gm, django_capture_on_commit_callbacks
):
    """A 3-hour phase: the 6-hour mark would fall due at its start; the 1-hour mark is kept."""
    game = game_of(players, gm, 3 * 60)
    started = game.current_phase.started_at
    with django_capture_on_commit_callbacks(execute=True):
        assert reminders.send_due_reminders(now=started + dt.timedelta(seconds=5)) == 0
        assert reminders.send_due_reminders(now=game.deadline - dt.timedelta(minutes=59)) == 1
    [row] = ReminderSent.objects.all()
    assert (row.first_hours, row.hours) == (1, 1)


def test_the_sweep_looks_at_a_short_phase_again_at_its_scaled_mark(players, gm):
    game = game_of(players, gm, 10)
    reminders.send_due_reminders(now=game.current_phase.started_at + dt.timedelta(seconds=5))
    look = game.reminder_look
    look.refresh_from_db()
    assert look.at == game.deadline - dt.timedelta(minutes=2, seconds=30)


def test_the_marks_scale_to_the_phase_length():
    hours = [(6, dt.timedelta(hours=6)), (1, dt.timedelta(hours=1))]
    assert reminders.scaled_marks(hours, dt.timedelta(hours=24)) == hours
    assert reminders.scaled_marks(hours, dt.timedelta(hours=2)) == hours[1:]
    assert reminders.scaled_marks(hours, dt.timedelta(minutes=10)) == [
        (0, dt.timedelta(minutes=2, seconds=30))
    ]
    assert reminders.scaled_marks([], dt.timedelta(minutes=10)) == []  # reminders off


# --- activity warnings ----------------------------------------------------------------------


@pytest.fixture
def unchecked(players, gm):
    """A running game whose first seat never checked in (the others did)."""
    game = game_of(players, gm, 24 * 60)
    for user in players[1:]:
        services.check_in(game_id=game.pk, user=user)
    return game


@pytest.fixture
def warn(django_capture_on_commit_callbacks, eager_email):
    def warn(game):
        later = game.started_at + dt.timedelta(hours=25)
        with (
            time_machine.travel(later, tick=False),
            django_capture_on_commit_callbacks(execute=True),
        ):
            game.refresh_from_db()
            return services.check_activity(game=game, now=later)

    return warn


def test_an_activity_warning_is_written_in_the_reader_s_language_with_an_unsubscribe_link(
    unchecked, players, warn
):
    """The sweep runs in English here; the warned player reads Chinese."""
    absent = players[0]
    Profile.objects.filter(user=absent).update(language="zh-hans")
    assert [w.reason for w in warn(unchecked)] == ["no_check_in"]
    [email] = [m for m in mail.outbox if m.to == [absent.email]]
    assert email.subject == f"【{unchecked.name}】活跃度提醒", email.subject
    assert email.body.startswith("神的使者提醒："), email.body
    link = email.extra_headers["List-Unsubscribe"].strip("<>")
    assert link in email.body  # the footer's "stop this kind of email" line
    token = link.rstrip("/").rsplit("/", 1)[1]
    assert signing.loads(token, salt=SALT) == {"u": absent.pk, "k": "reminders"}
    message = unchecked.seats.get(user=absent).conversation.messages.last().body
    assert message.startswith("神的使者提醒："), message


def test_an_english_reader_is_warned_in_english(unchecked, players, warn):
    from django.utils import translation

    with translation.override("zh-hans"):  # the sweep's language is not the reader's
        warn(unchecked)
    [email] = [m for m in mail.outbox if m.to == [players[0].email]]
    assert email.subject == f"[{unchecked.name}] Activity warning"
    assert email.body.startswith("Warning from 神的使者:")


def test_a_player_who_turned_reminders_off_gets_the_message_but_no_email(unchecked, players, warn):
    Profile.objects.filter(user=players[0]).update(reminder_hours="")
    assert [w.reason for w in warn(unchecked)] == ["no_check_in"]
    assert not [m for m in mail.outbox if m.to == [players[0].email]]
    message = unchecked.seats.get(user=players[0]).conversation.messages.last().body
    assert message.startswith("Warning from 神的使者:")


def test_the_wolf_is_the_seat_reminded(players, gm, queued):
    """(The toy game's night awaits its wolf only: the rows above are the wolf's.)"""
    game = game_of(players, gm, 24 * 60)
    reminders.send_due_reminders(now=game.deadline - dt.timedelta(minutes=30))
    assert [r.user for r in reminder_rows()] == [seat_user(game, "wolf")]
