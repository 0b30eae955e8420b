"""What a visitor gets when the database is unreachable: a 503 page
with Retry-After, never a 500. scripts/drills/postgres_restart.py does it for real; these
tests fake the failure where it first strikes.
"""

from __future__ import annotations

import pytest
from django.db import OperationalError
from django.test import Client

pytestmark = pytest.mark.django_db


def unreachable(*args, **kwargs):
    raise OperationalError('connection to server at "127.0.0.1", port 5432 failed: '
                           "Connection refused")


def test_a_view_that_hits_a_dead_database_answers_503(monkeypatch):
    """The failure inside a view is what DatabaseUnavailableMiddleware catches today."""
    import games.web.pages

    monkeypatch.setattr(games.web.pages.Game.objects, "exclude", unreachable)
    response = Client(raise_request_exception=False).get("/games/")
    assert response.status_code == 503
    assert response["Retry-After"] == "30"


def test_a_signed_in_visitor_gets_503_when_the_database_is_down(make_user, monkeypatch):
    import django.contrib.auth

    client = Client(raise_request_exception=False)
    client.force_login(make_user("阿猫"))
    monkeypatch.setattr(django.contrib.auth, "get_user", unreachable)
    response = client.get("/games/")
    assert response.status_code == 503


def test_a_step_answers_normally_when_the_broker_is_down(make_user, monkeypatch,
                                                         transactional_db):
    import json

    from kombu.exceptions import OperationalError as BrokerDown

    from config.celery import app
    from games import services
    from games.models import Action
    from tests.engine.ninelives.deals import FIVE

    def broker_down(*args, **kwargs):
        raise BrokerDown("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    users = [make_user(n, email=f"p{n}@example.org") for n in "12345"]
    game = services.create_game(name="断线局", ruleset="ninelives", gm=users[0], seat_count=5,
                                config={"players": 5, "deal": FIVE}, early_end=False)
    game = services.start_game(game_id=game.pk, users=users, seed="broker")
    monkeypatch.setattr(app, "send_task", broker_down)
    client = Client(raise_request_exception=False)
    client.force_login(users[2])
    response = client.post(f"/games/{game.pk}/act/", {
        "choice": json.dumps({"kind": "use_card", "params": {"card": "DIVINER", "target": 0}}),
        "phase": str(game.current_phase.seq)})
    assert Action.objects.filter(game=game, kind="use_card").exists()  # it was stored...
    assert response.status_code == 302                                # ...say so
