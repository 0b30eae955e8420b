"""A reminder says what the seat still owes: a 猫有n条命 seat that passed on night 1 and owes
only its loss order is told to send its loss order, not that it has "not acted or voted";
a seat that owes both hears both; by day, the vote (or a proxy vote)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core import mail

from games import reminders
from tests.factories import fresh, user_of
from tests.factories import ninelives as nl

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese", "eager_email")]


def reminded(game, django_capture_on_commit_callbacks) -> dict[str, str]:
    """Send the reminders due half an hour before the deadline: email address -> subject and
    body."""
    game = fresh(game)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        reminders.send_due_reminders(now=game.deadline - dt.timedelta(minutes=30))
    return {m.to[0]: m.subject + "\n" + m.body for m in mail.outbox}


def test_a_seat_that_passed_but_owes_its_loss_order_is_told_just_that(
        start_ninelives, django_capture_on_commit_callbacks):
    game = start_ninelives()
    orders = nl.default_orders(nl.FIVE)
    nl.act(game, 0, "pass")  # no loss order yet
    for seat in (1, 2, 3):
        nl.act(game, seat, "loss_order", cards=orders[seat])
        nl.act(game, seat, "pass")
    # seat 5 owes both its loss order and its card use
    texts = reminded(game, django_capture_on_commit_callbacks)
    first = texts[user_of(game, 0).email]
    assert "你还需要提交丢牌顺序。" in first
    assert "你还需要提交丢牌顺序" in first.splitlines()[0]  # the subject too
    assert "没有行动或投票" not in first and "使用一张牌" not in first
    both = texts[user_of(game, 4).email]
    assert "你还需要提交丢牌顺序、使用一张牌，或声明今晚不用牌。" in both
    assert set(texts) == {user_of(game, 0).email, user_of(game, 4).email}


def test_by_day_the_vote_is_owed(start_ninelives, django_capture_on_commit_callbacks):
    game = start_ninelives()
    for seat, order in nl.default_orders(nl.FIVE).items():
        nl.act(game, seat, "loss_order", cards=order)
        nl.act(game, seat, "pass")
    game = fresh(game)
    assert game.phase_name == "day"
    nl.act(game, 1, "vote", target=0)
    texts = reminded(game, django_capture_on_commit_callbacks)
    assert user_of(game, 1).email not in texts
    body = texts[user_of(game, 0).email]
    assert "你还需要投票（或委托投票）。" in body


def test_a_reminder_queued_without_a_seat_keeps_the_general_sentence(
        start_ninelives, django_capture_on_commit_callbacks):
    """A reminder written before emails carried their seat (or for a rule set whose steps
    have no phrase) says what it always said."""
    game = fresh(start_ninelives())
    context = {"game": game.pk, "name": game.name, "phase": game.current_phase_id,
               "ruleset": game.ruleset, "phase_name": game.phase_name,
               "phase_number": game.phase_number, "round": None,
               "deadline": game.deadline.isoformat(), "left": 1800}
    subject, body = reminders.reminder_text(context)
    assert "你还没有行动或投票" in body and "你还需要" not in body
    subject, body = reminders.reminder_text({**context, "seat": 2})
    assert "你还需要提交丢牌顺序、使用一张牌，或声明今晚不用牌。" in body
