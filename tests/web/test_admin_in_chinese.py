"""The admin pages a GM reads, one finding at a time (the whole admin is crawled in
tests/web/test_chinese_admin.py): the console's result, GM log and player's words; what a
Classic seat owes; a started game's settings as labelled values; the record lists by seat
and phase name, their raw data for superusers only; the sections' and models' names."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games import services
from games.admin.gm_steps import owed_texts
from games.models import Event
from tests.factories import fresh
from tests.factories.ninelives import MANIFESTO, act
from tests.web.test_chinese_pages import visible

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese")]


def page(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def test_what_a_classic_seat_owes_reads_in_its_own_words():
    # a speech, a vote that may be withheld (Classic has no proxy vote), the police's check
    # that may go with the team: never "speak", "abstain", "刀人" or "委托投票"
    assert owed_texts(["speak", "team_message"]) == ["发言"]
    assert owed_texts(["vote", "abstain"]) == ["投票（或弃票）"]
    assert owed_texts(["check", "defer", "team_message"]) == ["当夜的验人（或跟随队友的决定）"]
    assert owed_texts(["kill", "defer"]) == ["当夜的刀人（或跟随队友的决定）"]
    # 猫有n条命's day vote may be sent to the messenger as a proxy vote
    assert owed_texts(["vote", "proxy_vote"]) == ["投票（或委托投票）"]


def test_the_console_of_an_aborted_game_gives_the_result_in_chinese(
    client, start_ninelives, nl_gm, make_user
):
    game = start_ninelives()
    services.add_co_gm(game_id=game.pk, gm=nl_gm, user=make_user("副天神", staff=True))
    services.abort_game(game_id=game.pk, gm=nl_gm, reason="")
    client.force_login(nl_gm)
    html = page(client, reverse("admin:games_game_console", args=[game.pk]))
    text = visible(html)
    assert "本局无结果结束。" in text.split("事件记录")[0]
    assert "aborted" not in text
    log = text.split("事件记录")[1]
    assert "天神丙 任命了一位副天神。" in log and "天神丙 终止了游戏。" in log
    assert "add co gm" not in log and "GM action" not in log


def test_a_manifesto_reads_as_the_players_words_block(client, start_ninelives, nl_gm):
    game = start_ninelives()
    act(game, 0, "use_card", card="KILLER", target=3, manifesto=MANIFESTO)
    for seat in range(1, 5):
        act(game, seat, "pass")
    services.end_phase_now(game_id=game.pk, gm=nl_gm)
    client.force_login(nl_gm)
    html = page(client, reverse("admin:games_game_console", args=[game.pk]))
    log = html.split('id="events"')[1]
    assert '<blockquote class="player-words">' in log and MANIFESTO[:20] in log
    assert "~~~" not in log and "player-words 作者" not in visible(log)


def test_a_started_games_settings_are_labelled_values(client, start_ninelives, nl_gm, make_user):
    game = start_ninelives()
    host = make_user("主持人", staff=True, superuser=False)
    services.add_co_gm(game_id=game.pk, gm=nl_gm, user=host)
    client.force_login(host)
    text = visible(page(client, reverse("admin:games_game_change", args=[game.pk])))
    assert "夜：24 小时" in text
    assert "生死投票：12 小时" in text and "改动截止" in text and "截止前 10 分钟" in text
    assert "1号阿猫" in text and "第1夜" in text and "开始时间" in text
    for word in ("ninelives", "night", "{", "Board", "Started at", "存储的设置"):
        assert word not in text, word


def test_the_superuser_alone_gets_the_stored_data_as_a_verbatim_block(
    client, start_ninelives, nl_gm, make_user
):
    game = start_ninelives()
    event = Event.objects.filter(game=game, kind="hand_dealt").first()
    host = make_user("主持人", staff=True, superuser=False)
    root = make_user("站长", staff=True)
    for user in (host, root):
        services.add_co_gm(game_id=game.pk, gm=nl_gm, user=user)
    for user, raw in ((host, False), (root, True)):
        client.force_login(user)
        html = page(client, reverse("admin:games_event_change", args=[event.pk]))
        assert "1号阿猫" in visible(html)  # who may read it, by seat
        assert ('<pre lang="zxx"' in html) is raw
        assert "hand_dealt" not in visible(html) and "KILLER" not in visible(html)


def test_the_record_lists_name_seats_and_phases_for_a_host(
    client, start_ninelives, nl_gm, make_user
):
    game = start_ninelives()
    act(game, 2, "use_card", card="DIVINER", target=0)
    host = make_user("主持人", staff=True, superuser=False)
    services.add_co_gm(game_id=game.pk, gm=nl_gm, user=host)
    other = start_ninelives()  # the same GM's other game: not the host's
    client.force_login(host)
    for model in ("seat", "phase", "action", "event", "vote"):
        html = page(client, reverse(f"admin:games_{model}_changelist"))
        text = visible(html)
        assert "night" not in text and "{" not in text and "Game" not in text, model
        assert not re.search(
            r'class="field-(seat|by|voter_name|target_name|readers)">'
            r"[^<]*\b0\b",
            html,
        ), model
    seats = visible(page(client, reverse("admin:games_seat_changelist")))
    assert "1号阿猫" in seats and seats.count("九命局") == 5  # the host's game only
    steps = visible(page(client, reverse("admin:games_action_changelist")))
    assert "3号小白" in steps and "占卜" in steps and "第1夜" in steps
    assert client.get(
        reverse("admin:games_seat_change", args=[other.seats.first().pk])
    ).status_code in (302, 404)
    assert fresh(game).status == "running"


def test_the_sections_and_models_have_their_own_names(client, make_user):
    client.force_login(make_user("站长", staff=True))
    index = visible(page(client, reverse("admin:index")))
    assert "用户资料" in index and "账户" in index  # profiles, and allauth's addresses
    assert "帖子数" not in index and "帖子" in index
