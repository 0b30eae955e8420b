"""The home page puts 最新主题 before the boards and lists the games' boards one line each,
the most recently active first, at most LOBBY_GAME_BOARDS of them: it does not grow with
every game."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from messaging import services
from messaging.models import Board, Thread
from messaging.views import LOBBY_GAME_BOARDS

pytestmark = pytest.mark.django_db


def test_latest_threads_come_before_a_dozen_game_boards(client, lobby, alice):
    services.start_thread(
        board=lobby,
        author=alice,
        kind=Thread.Kind.DISCUSSION,
        title="欢迎新人",
        body="你好",
        enforce_rate_limit=False,
    )
    now = timezone.now()
    for i in range(12):
        board = services.create_board(slug=f"game-{i}", title=f"第{i}局", kind=Board.Kind.GAME)
        Board.objects.filter(pk=board.pk).update(last_post_at=now - dt.timedelta(hours=i))
    html = client.get(reverse("lobby")).content.decode()
    assert html.index('id="latest"') < html.index('id="boards"')
    assert "欢迎新人" in html[html.index('id="latest"') : html.index('id="boards"')]
    games = html[html.index('id="game-boards"') :]
    listed = [f"第{i}局" for i in range(12) if f">第{i}局<" in games]
    assert listed == [f"第{i}局" for i in range(LOBBY_GAME_BOARDS)]  # the most recent first
    assert 'id="more-game-boards"' in games and str(12 - LOBBY_GAME_BOARDS) in games
    # the site's own boards keep their cards
    assert 'class="card board kind-lobby"' in html
    assert 'class="card board kind-game"' not in html
