"""The probe's classes of bad input (Unicode digits, deep
nesting, huge integers, overlong and bidi strings) in every query parameter any page reads,
GET, anonymous and signed in: never a 5xx."""

from __future__ import annotations

import pytest
from django.test import Client

from messaging import services as forum
from messaging.models import Thread

# The toy game of the service tests (a running game, its board and seats' conversations).
from .crawl import fill_route, known_routes

pytestmark = pytest.mark.django_db

# Every query parameter a page of the site reads.
PARAMS = ("page", "quote", "thread", "phase", "target", "nominee", "kind", "choice", "seat",
          "waiting", "q")
NASTY = ["²", "１", "٣", "9" * 40, str(2**64), "-1", "[" * 2000, "\u202e\u200b", "x" * 5000]


def _routes() -> list[str]:
    return [route for route, is_admin in known_routes() if not is_admin]


@pytest.mark.slow
def test_bad_query_parameters_never_give_a_server_error(game, players):
    thread = forum.start_thread(board=forum.lobby_board(), author=players[0],
                                kind=Thread.Kind.DISCUSSION, title="大家好", body="第一帖")
    post = thread.posts.get()
    conversation = forum.conversation_for(owner=players[0])
    ids = sorted({thread.pk, post.pk, conversation.pk, game.pk})
    slugs = [forum.lobby_board().slug, game.board.slug]
    anonymous, signed_in = Client(), Client()
    signed_in.force_login(players[0])
    failures = []
    for route in _routes():
        for url in fill_route(route, ids, slugs):
            for value in NASTY:
                for client in (anonymous, signed_in):
                    response = client.get(url, {name: value for name in PARAMS})
                    if response.status_code >= 500:
                        failures.append((url, value[:10], response.status_code))
    assert failures == []
