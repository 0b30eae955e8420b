"""Other apps add to thread pages through registered panels, without messaging importing them."""

from __future__ import annotations

import copy

import pytest

from messaging import hooks, services
from messaging.models import Thread

pytestmark = pytest.mark.django_db


@pytest.fixture
def vote_panel(settings, tmp_path):
    (tmp_path / "panel.html").write_text(
        '<section id="test-panel">{{ thread.title }} · {{ who }}</section>')
    templates = copy.deepcopy(settings.TEMPLATES)
    templates[0]["DIRS"] = [*templates[0]["DIRS"], tmp_path]
    settings.TEMPLATES = templates

    def panel(request, thread):
        if not thread.key.startswith("vote-"):
            return None
        return "panel.html", {"thread": thread, "who": request.user.get_username()}

    hooks.register_thread_panel(panel)
    yield panel
    hooks.unregister_thread_panel(panel)


def test_registered_panel_shows_above_the_vote_thread_only(client, vote_panel, game_board, gm,
                                                           alice):
    vote = services.start_thread(board=game_board, author=gm, kind=Thread.Kind.VOTE,
                                 title="第1天投票", body="投票", key="vote-1")
    other = services.start_thread(board=game_board, author=gm, kind=Thread.Kind.DISCUSSION,
                                  title="闲聊", body="x")
    client.force_login(alice)
    html = client.get(vote.get_absolute_url()).content.decode()
    assert f'<section id="test-panel">第1天投票 · {alice.get_username()}</section>' in html
    assert html.index('id="test-panel"') < html.index('id="p1"')
    assert 'id="test-panel"' not in client.get(other.get_absolute_url()).content.decode()


def test_registering_twice_shows_the_panel_once(client, vote_panel, game_board, gm):
    hooks.register_thread_panel(vote_panel)
    vote = services.start_thread(board=game_board, author=gm, kind=Thread.Kind.VOTE,
                                 title="投票", body="投票", key="vote-2")
    assert client.get(vote.get_absolute_url()).content.decode().count('id="test-panel"') == 1
