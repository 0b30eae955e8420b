"""The email outbox: a row per email in its cause's transaction, retried
with back-off until the server accepts it, sent once; headers and one-click unsubscribe."""

from __future__ import annotations

import datetime as dt
import smtplib

import pytest
from django.core import mail as django_mail
from django.db import transaction
from django.urls import reverse

from accounts.models import Profile
from accounts.unsubscribe import unsubscribe_url
from games import mail
from games.models import OutboxEmail

pytestmark = pytest.mark.django_db


def smtp_down(monkeypatch):
    def refuse(self, messages):
        raise ConnectionRefusedError(111, "Connection refused")

    monkeypatch.setattr("django.core.mail.backends.locmem.EmailBackend.send_messages", refuse)


def test_an_smtp_failure_leaves_the_row_unsent_with_a_later_attempt(monkeypatch, settings):
    settings.OUTBOX_RETRY_BASE_SECONDS = 60
    row = mail.queue_email(to="a@example.org", subject="s", body="b")
    smtp_down(monkeypatch)
    now = row.next_attempt_at
    assert mail.send_due(now=now) == {"sent": 0, "failed": 1}
    row.refresh_from_db()
    assert row.sent_at is None and row.failed_at is None and row.attempts == 1
    assert row.next_attempt_at == now + dt.timedelta(seconds=60)
    assert "ConnectionRefusedError" in row.last_error
    # Not due again before the back-off; due after it, and the wait doubles.
    assert mail.send_due(now=now + dt.timedelta(seconds=59)) == {"sent": 0, "failed": 0}
    later = now + dt.timedelta(seconds=60)
    assert mail.send_due(now=later) == {"sent": 0, "failed": 1}
    row.refresh_from_db()
    assert row.next_attempt_at == later + dt.timedelta(seconds=120) and row.attempts == 2
    assert django_mail.outbox == []


def test_the_back_off_is_capped_and_keeps_going_for_hours(settings):
    settings.OUTBOX_RETRY_BASE_SECONDS, settings.OUTBOX_RETRY_MAX_SECONDS = 60, 3600
    assert [mail.backoff(n).total_seconds() for n in (1, 2, 3, 7, 8, 40)] == [
        60, 120, 240, 3600, 3600, 3600]


def test_a_sent_row_is_sent_once(monkeypatch):
    row = mail.queue_email(to="a@example.org", subject="once", body="b")
    assert mail.send_due(now=row.next_attempt_at) == {"sent": 1, "failed": 0}
    assert mail.send_due(now=row.next_attempt_at + dt.timedelta(days=1)) == {"sent": 0,
                                                                            "failed": 0}
    assert mail.send_one(row.pk) is False
    row.refresh_from_db()
    assert row.sent_at is not None and row.attempts == 1
    assert [m.subject for m in django_mail.outbox] == ["once"]


def test_after_an_outage_the_row_is_sent_once(monkeypatch):
    row = mail.queue_email(to="a@example.org", subject="late", body="b")
    with monkeypatch.context() as m:
        smtp_down(m)
        mail.send_due(now=row.next_attempt_at)
    row.refresh_from_db()
    assert mail.send_due(now=row.next_attempt_at) == {"sent": 1, "failed": 0}
    assert mail.send_due(now=row.next_attempt_at + dt.timedelta(hours=5))["sent"] == 0
    assert [m.subject for m in django_mail.outbox] == ["late"]


def test_a_permanent_refusal_is_given_up_and_an_old_row_too(monkeypatch, settings):
    row = mail.queue_email(to="gone@example.org", subject="s", body="b")

    def refuse(self, messages):
        raise smtplib.SMTPRecipientsRefused({"gone@example.org": (550, b"no such user")})

    monkeypatch.setattr("django.core.mail.backends.locmem.EmailBackend.send_messages", refuse)
    mail.send_due(now=row.next_attempt_at)
    row.refresh_from_db()
    assert row.failed_at is not None and row.sent_at is None
    old = mail.queue_email(to="a@example.org", subject="s", body="b")
    smtp_down(monkeypatch)
    mail.send_due(now=old.created + dt.timedelta(hours=settings.OUTBOX_GIVE_UP_HOURS, seconds=1))
    old.refresh_from_db()
    assert old.failed_at is not None


def test_a_rolled_back_cause_writes_no_row():
    with pytest.raises(RuntimeError), transaction.atomic():
        mail.queue_email(to="a@example.org", subject="rolled back", body="-")
        raise RuntimeError
    assert not OutboxEmail.objects.filter(subject="rolled back").exists()


def test_while_smtp_is_down_the_batch_stops_at_the_first_connection_failure(monkeypatch):
    rows = [mail.queue_email(to=f"{n}@example.org", subject=str(n), body="-") for n in range(3)]
    smtp_down(monkeypatch)
    assert mail.send_due(now=max(r.next_attempt_at for r in rows)) == {"sent": 0, "failed": 1}


# --- headers, footer, unsubscribe ------------------------------------------------------------

def test_a_notification_carries_from_auto_submitted_unsubscribe_and_the_settings_link(
        make_user, settings):
    user = make_user("阿猫")
    row = mail.queue_email(to=user.email, subject="s", body="hello", kind="results", user=user)
    mail.send_due(now=row.next_attempt_at)
    [msg] = django_mail.outbox
    assert msg.from_email == settings.DEFAULT_FROM_EMAIL and "@localhost" not in msg.from_email
    assert msg.extra_headers["Auto-Submitted"] == "auto-generated"
    assert msg.extra_headers["List-Unsubscribe"] == f"<{unsubscribe_url(user, 'results')}>"
    assert msg.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert settings.SITE_URL + reverse("profile") in msg.body
    assert msg.body.startswith("hello\n")


def test_account_mail_has_the_settings_link_but_no_unsubscribe(settings):
    row = mail.queue_email(to="x@example.org", subject="verify", body="click")
    mail.send_due(now=row.next_attempt_at)
    [msg] = django_mail.outbox
    assert "List-Unsubscribe" not in msg.extra_headers
    assert settings.SITE_URL + reverse("profile") in msg.body


def test_the_one_click_post_turns_that_kind_off_without_a_csrf_token(make_user, settings):
    from django.test import Client

    user = make_user("阿猫")
    path = unsubscribe_url(user, "reminders").removeprefix(settings.SITE_URL)
    client = Client(enforce_csrf_checks=True)
    assert client.get(path).status_code == 200
    assert Profile.objects.get(user=user).reminder_hours == "6,1", "a GET changes nothing"
    response = client.post(path, {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    profile = Profile.objects.get(user=user)
    assert profile.reminder_hours == "" and profile.email_results is True


def test_a_forged_or_tampered_unsubscribe_link_is_a_404(make_user, settings):
    from django.test import Client

    user = make_user("阿猫")
    path = unsubscribe_url(user, "results").removeprefix(settings.SITE_URL)
    client = Client(enforce_csrf_checks=True)
    assert client.post(path.replace("/unsubscribe/", "/unsubscribe/x")).status_code == 404
    assert client.post(reverse("unsubscribe", args=["not-signed"])).status_code == 404
    assert Profile.objects.get(user=user).email_results is True


def test_sign_up_verification_mail_goes_through_the_outbox(client, eager_email):
    client.post(reverse("account_signup"), {
        "email": "new@example.org", "password1": "a-long-pass-9Q", "password2": "a-long-pass-9Q",
        "display_name": "新人"})
    assert OutboxEmail.objects.filter(to="new@example.org", kind="account").count() == 1
