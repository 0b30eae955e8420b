"""games.mail: the one way to queue an email (on commit) and to read a reader's locale."""

from __future__ import annotations

import pytest
from django.core import mail as outbox
from django.db import transaction

from games import mail

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_user_without_a_profile_is_written_to_in_the_sites_defaults(settings):
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(username="bare", email="bare@example.org")
    locale = mail.user_locale(user)
    assert (locale.language, locale.timezone) == (settings.LANGUAGE_CODE,
                                                 settings.DEFAULT_USER_TIMEZONE)
    assert mail.user_locale(None).language == settings.LANGUAGE_CODE


def test_a_profile_gives_its_language_and_timezone(make_user):
    user = make_user("阿猫", timezone="Europe/Madrid")
    user.profile.language = "en"
    user.profile.save()
    assert mail.user_locale(user) == mail.Locale(language="en", timezone="Europe/Madrid")


@pytest.fixture
def eager():
    from config.celery import app

    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


def test_an_email_leaves_only_when_the_transaction_commits(eager):
    with pytest.raises(RuntimeError), transaction.atomic():
        mail.queue_email(to="a@example.org", subject="rolled back", body="-")
        raise RuntimeError
    with transaction.atomic():
        mail.queue_email(to="a@example.org", subject="kept", body="-")
        assert outbox.outbox == []
    assert [m.subject for m in outbox.outbox] == ["kept"]


def test_without_a_broker_the_row_waits_for_the_beat(monkeypatch):
    from config.celery import app
    from games.models import OutboxEmail

    def broker_down(*args, **kwargs):
        raise OSError("connection refused")

    monkeypatch.setattr(app, "send_task", broker_down)
    mail.queue_email(to="b@example.org", subject="later", body="-")
    assert outbox.outbox == []
    assert mail.send_due()["sent"] == 1
    assert [m.subject for m in outbox.outbox] == ["later"]
    assert OutboxEmail.objects.get(subject="later").sent_at is not None
