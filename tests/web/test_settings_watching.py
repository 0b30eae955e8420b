"""A started game's settings page shows its watching (观战) under a heading of its own: who
of the outsiders may watch (editable while the game runs, as games/services/watching.py
lets the GM change it; with the risk box where the roles never change), and how far behind
watchers follow (fixed since the start). Once the game is over the choice is a fact: its
review is open to everyone, nobody watches then."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games import services
from games.models import Game
from tests.factories import fresh

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese")]


def watching_part(html: str) -> str:
    """The settings page's 观战 fieldset."""
    found = re.search(r'<fieldset[^>]*>\s*<h2[^>]*>观战</h2>(.*?)</fieldset>', html, re.S)
    assert found, "no 观战 fieldset"
    return found.group(1)


def settings_page(client, game) -> str:
    return client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()


def save(client, game, **changes):
    """The started game's settings form, posted with its current values and `changes`."""
    game = fresh(game)
    data = {"name": game.name, "gm": game.gm_id, "early_end": "on" if game.early_end else "",
            "hold_announcements": "on" if game.hold_announcements else "",
            "manifesto_review_minutes": game.manifesto_review_minutes,
            "outsiders": game.outsiders,
            "watch_risk_accepted": "on" if game.watch_risk_accepted else "", "_save": "1"}
    data.update(changes)
    return client.post(reverse("admin:games_game_change", args=[game.pk]),
                       {k: v for k, v in data.items() if v != ""})


def test_a_running_games_watching_is_shown_and_editable(client, start_gold, gold_gm):
    game = start_gold()
    client.force_login(gold_gm)
    part = watching_part(settings_page(client, game))
    assert 'name="outsiders"' in part and 'name="watch_risk_accepted"' in part  # gold: fixed
    assert "局外人观战" in part and "观战进度" in part and "落后一个阶段" in part
    response = save(client, game, outsiders="request")
    assert response.status_code == 302
    assert fresh(game).outsiders == Game.Outsiders.REQUEST


def test_the_risk_box_shows_only_where_the_roles_never_change(client, start_ninelives, nl_gm):
    game = start_ninelives()
    client.force_login(nl_gm)
    part = watching_part(settings_page(client, game))
    assert 'name="outsiders"' in part and 'name="watch_risk_accepted"' not in part


@pytest.mark.parametrize("changes, refusal", [
    ({"outsiders": "everyone"}, "选择一个有效的选项"),
    ({"outsiders": "open"}, "必须勾选“我明白……”"),  # gold's roles never change: the risk box is needed
])
def test_a_bad_watching_choice_is_refused_and_nothing_changes(
        client, start_gold, gold_gm, changes, refusal):
    game = start_gold()
    client.force_login(gold_gm)
    before = fresh(game)
    response = save(client, game, **changes)
    assert response.status_code == 200
    errors = re.findall(r"<ul class=\"errorlist[^\"]*\"[^>]*>(.*?)</ul>", response.content.decode(), re.S)
    assert any(refusal in e for e in errors), errors
    after = fresh(game)
    assert (after.outsiders, after.watch_risk_accepted, after.name) == (
        before.outsiders, before.watch_risk_accepted, before.name)


def test_once_the_game_is_over_the_choice_is_a_fact(client, start_gold, gold_gm):
    game = start_gold()
    services.update_settings(game_id=game.pk, changes={"outsiders": Game.Outsiders.REQUEST})
    services.abort_game(game_id=game.pk, gm=gold_gm, reason="")
    client.force_login(gold_gm)
    part = watching_part(settings_page(client, game))
    assert 'name="outsiders"' not in part and 'name="watch_risk_accepted"' not in part
    assert "局外人申请，由天神逐一批准（游戏已结束：复盘对所有人公开）" in re.sub(r"<[^>]+>", "", part)
    save(client, game, outsiders="off")  # not a field of the form any more: ignored
    assert fresh(game).outsiders == Game.Outsiders.REQUEST
