"""`![ ](/games/2/act/)` in a post made every reader's
browser GET their action page, which cleared their unread results (2 -> 0, never seen)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.models import Seat
from messaging import services as forum

# The toy game of the service tests.

pytestmark = pytest.mark.django_db
IMAGE = {"HTTP_SEC_FETCH_MODE": "no-cors", "HTTP_SEC_FETCH_DEST": "image",
         "HTTP_ACCEPT": "image/avif,image/webp,*/*"}
PAGE = {"HTTP_SEC_FETCH_MODE": "navigate", "HTTP_SEC_FETCH_DEST": "document",
        "HTTP_ACCEPT": "text/html,*/*;q=0.8"}


def test_an_image_request_to_the_act_page_leaves_the_unread_results(client, game):
    seat = Seat.objects.filter(game=game).exclude(conversation=None).first()
    conversation = seat.conversation
    forum.send_as_messenger(conversation=conversation, body="结果一")
    forum.send_as_messenger(conversation=conversation, body="结果二")
    conversation.refresh_from_db()
    before = conversation.owner_unread
    assert before >= 2
    client.force_login(seat.user)
    url = reverse("game-act", args=[game.pk])
    assert client.get(url, **IMAGE).status_code == 200
    conversation.refresh_from_db()
    assert conversation.owner_unread == before
    assert client.get(url, **PAGE).status_code == 200
    conversation.refresh_from_db()
    assert conversation.owner_unread == 0
