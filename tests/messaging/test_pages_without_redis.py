"""With Redis away (the cache and the change feed pointed at a port where nothing listens),
every read page still answers 200 from the database, signed in and not, and a reply is
still posted: a cache that is down is a miss, never an error (config.cache)."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache as default_cache
from django.test import Client
from django.urls import reverse

from config import feed
from messaging import services
from messaging.models import Post, Thread

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset")]
NOWHERE = "redis://127.0.0.1:1/0"  # nothing listens on port 1
NAVIGATE = {"HTTP_SEC_FETCH_MODE": "navigate", "HTTP_SEC_FETCH_DEST": "document"}


@pytest.fixture
def redis_away(settings):
    """Every cache alias and the change feed on a Redis that is not there."""
    settings.CACHES = {alias: dict(conf, LOCATION=NOWHERE)
                       for alias, conf in django_settings.CACHES.items()}
    settings.REDIS_URL = NOWHERE
    feed._client.cache_clear()
    yield
    feed._client.cache_clear()


@pytest.fixture
def forum(game, players, gm, make_user):
    """A game's board with a thread of a few posts (one by the GM), the lobby with one."""
    thread = services.start_thread(board=game.board, author=players[0],
                                   kind=Thread.Kind.DISCUSSION, title="谁是狼",
                                   body="我先说", enforce_rate_limit=False)
    services.reply(thread=thread, author=players[1], body="我觉得三号", enforce_rate_limit=False)
    services.reply(thread=thread, author=gm, body="天神提醒：还有一天", enforce_rate_limit=False)
    lobby = services.start_thread(board=services.lobby_board(), author=make_user("路人"),
                                  kind=Thread.Kind.DISCUSSION, title="大厅闲聊", body="你好",
                                  enforce_rate_limit=False)
    return thread, lobby


def pages(game, thread, lobby_thread, user) -> list[str]:
    urls = [thread.get_absolute_url(), f"{thread.get_absolute_url()}?page=last",
            lobby_thread.get_absolute_url(), game.board.get_absolute_url(),
            reverse("messaging-board", args=[services.LOBBY_SLUG]), reverse("lobby"),
            reverse("game-home", args=[game.pk]),
            reverse("profile-public", args=[thread.author_id])]
    if user is not None:
        urls += [reverse("messaging-notifications"), reverse("profile")]
    return urls


def test_every_read_page_answers_200_without_redis(redis_away, game, players, gm, forum):
    thread, lobby_thread = forum
    assert default_cache.get_or_set("probe", lambda: "computed") == "computed"
    assert default_cache.get("probe") is None  # nothing was kept: the cache is away
    for user in (players[0], players[3], gm, None):
        client = Client()
        if user is not None:
            client.force_login(user)
        for url in pages(game, thread, lobby_thread, user):
            for _ in range(2):  # the second read finds nothing kept either
                response = client.get(url, **NAVIGATE)
                assert response.status_code == 200, (url, user, response.status_code)
        html = client.get(thread.get_absolute_url()).content.decode()
        assert "我觉得三号" in html and "天神提醒" in html


def test_a_reply_is_posted_and_shown_without_redis(redis_away, game, players, forum):
    thread, _lobby = forum
    client = Client()
    client.force_login(players[2])
    response = client.post(reverse("messaging-reply", args=[thread.pk]),
                           {"body": "断线了也能回帖"})
    assert response.status_code == 302
    assert Post.objects.filter(thread=thread, body="断线了也能回帖").exists()
    page = client.get(response["Location"], **NAVIGATE)
    assert page.status_code == 200 and "断线了也能回帖" in page.content.decode()
