"""The development outbox (issue 14 item 10): staff read the emails the site sent, on a
development server only."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.models import OutboxEmail

pytestmark = pytest.mark.django_db


@pytest.fixture
def mail(db):
    return OutboxEmail.objects.create(to="a@example.com", subject="第1夜结果",
                                      body="你验了3号：平民。\nhttp://127.0.0.1:8000/games/1/")


def test_staff_read_the_emails_on_a_development_server(client, settings, make_user, mail):
    settings.DEBUG = True
    client.force_login(make_user("天神甲", staff=True))
    html = client.get(reverse("dev-outbox")).content.decode()
    assert "第1夜结果" in html and "你验了3号：平民。" in html and "a@example.com" in html


def test_nobody_else_and_never_in_production(client, settings, make_user, mail):
    settings.DEBUG = True
    assert client.get(reverse("dev-outbox")).status_code == 404
    client.force_login(make_user("阿猫"))
    assert client.get(reverse("dev-outbox")).status_code == 404
    settings.DEBUG = False
    client.force_login(make_user("天神乙", staff=True))
    assert client.get(reverse("dev-outbox")).status_code == 404
