"""A vote at the deadline: what it costs while it holds the game's lock
does not depend on the number of seats, and a vote that reached the application after the
deadline is never counted."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Action, Game, Vote

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english")]


def _day(gm, users):
    """A toy game in its first day, with no early end: every living seat may vote."""
    g = services.create_game(name=f"投票{len(users)}", ruleset="toy", gm=gm,
                             seat_count=len(users), early_end=False,
                             durations={"night": 60, "day": 60})
    services.start_game(game_id=g.pk, users=users)
    services.end_phase_now(game_id=g.pk, gm=gm)  # night -> day
    return Game.objects.get(pk=g.pk)


def _locked_queries(client, game, voter, target, monkeypatch) -> list[str]:
    """The statements of the vote's service call from the game's lock on (the one question
    asked before it, whether the voter reads a running game's secrets, holds no lock)."""
    from games.web import play

    captured: list[str] = []
    submit = services.submit_action

    def watched(**kwargs):
        with CaptureQueriesContext(connection) as inside:
            result = submit(**kwargs)
        captured.extend(q["sql"] for q in inside.captured_queries)
        return result

    monkeypatch.setattr(play.services, "submit_action", watched)
    client.force_login(voter.user)
    response = client.post(reverse("game-vote", args=[game.pk]), {
        "target": target.number, "phase": game.current_phase.seq},
        HTTP_ACCEPT="application/json")
    assert response.status_code == 200, response.content
    monkeypatch.setattr(play.services, "submit_action", submit)
    # Transaction control is not a statement of the vote's (a test's transaction makes the
    # service's BEGIN and COMMIT a savepoint and its release).
    statements = [q for q in captured if q not in ("BEGIN", "COMMIT")
                  and not q.startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]
    first_lock = next(i for i, q in enumerate(statements) if "FOR UPDATE" in q)
    assert first_lock == 1 and '"games_watcher"' in statements[0], statements[:2]
    return statements[first_lock:]


def test_a_vote_holds_the_lock_for_the_same_statements_with_3_or_8_seats(client, gm,
                                                                          make_user,
                                                                          monkeypatch):
    counts = {}
    for seats in (3, 8):
        users = [make_user(f"投票者{seats}-{i}") for i in range(seats)]
        game = _day(gm, users)
        living = list(game.seats.filter(alive=True).order_by("number"))
        locked = _locked_queries(client, game, living[1], living[0], monkeypatch)
        counts[seats] = len(locked)
        assert Vote.objects.filter(game=game).count() == 1
        assert sum("games_seat" in q and q.startswith("SELECT") for q in locked) == 1, locked
    assert counts[3] == counts[8], counts
    # the game locked, its seats, whether this changes an earlier step, the step, its event,
    # the vote, 神的使者's receipt (its account, the conversation locked, the message, the
    # conversation's counter, the bell: its unread notice of this conversation looked up to
    # join, else a new one; the link to the step) and the game's new state
    assert counts[3] == 14, counts


def test_a_vote_that_reached_the_application_after_the_deadline_is_not_counted(
        client, gm, make_user, monkeypatch):
    from config.middleware import ReceivedAtMiddleware

    game = _day(gm, [make_user(f"迟到{i}") for i in range(5)])
    deadline = timezone.now() + dt.timedelta(seconds=30)
    Game.objects.filter(pk=game.pk).update(deadline=deadline)

    def arrived_late(self, request):
        request.received_at = deadline + dt.timedelta(milliseconds=1)
        return self.get_response(request)

    monkeypatch.setattr(ReceivedAtMiddleware, "__call__", arrived_late)
    living = list(game.seats.filter(alive=True).order_by("number"))
    client.force_login(living[1].user)
    response = client.post(reverse("game-vote", args=[game.pk]), {
        "target": living[0].number, "phase": game.current_phase.seq},
        HTTP_ACCEPT="application/json")
    assert response.status_code == 409 and response.json()["ok"] is False
    assert not Vote.objects.filter(game=game).exists()
    assert not Action.objects.filter(game=game, kind="vote").exists()
