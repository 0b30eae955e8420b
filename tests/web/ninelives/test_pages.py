"""The act page of each seat ("my hand" panel + action form + conversation): its own hand,
loss order and results, in Chinese; never another seat's cards, order or results. The home
page's public facts come from `seat_facts`."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse
from django.utils import translation

from games.presenters import ninelives as P
from tests.factories.forms import Form
from tests.factories.ninelives import FIVE, SIX, act, fresh, user_of
from tests.services.ninelives.test_play import ORDERS, ZH, play_night_1, send_orders

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese")]


def act_page(client, game, seat: int) -> str:
    client.force_login(user_of(game, seat))
    response = client.get(reverse("game-act", args=[game.pk]))
    assert response.status_code == 200
    return unescape(response.content.decode())


def results_of(page: str) -> str:
    """The panel's list of the seat's results."""
    block = page[page.index('<ol id="results">'):]
    return block[:block.index("</ol>")]


def hand_on_page(page: str) -> list[str]:
    block = page[page.index('<ul id="hand">'):]
    block = block[:block.index("</ul>")]
    return re.findall(r'<li class="card[^"]*" data-card="(\w+)"', block)


def order_on_page(page: str) -> list[str]:
    block = page[page.index('<ol id="loss-order">'):]
    block = block[:block.index("</ol>")]
    return re.findall(r'data-card="(\w+)"', block)


def sequences(cards: list[str]) -> list[str]:
    """Ways a page could spell a list of cards: codes or Chinese names, with any separator."""
    out = []
    for names in (cards, [ZH[c] for c in cards]):
        for sep in (", ", "、", " → ", " / ", " · ", '", "'):
            out.append(sep.join(names))
    return out


def assert_shows_only_its_own(page: str, state: dict, seat: int) -> None:
    """The page shows this seat's hand and loss order exactly, and no other seat's."""
    mine = state["private"][seat]
    assert sorted(hand_on_page(page)) == sorted(mine["hand"])
    assert set(re.findall(r'data-card="(\w+)"', page)) <= set(mine["hand"])
    if mine["loss_order"]:
        assert order_on_page(page) == mine["loss_order"]
    for other, priv in enumerate(state["private"]):
        if other == seat:
            continue
        for key in ("hand", "loss_order"):
            cards = priv.get(key) or []
            if cards and cards != mine.get(key):
                for spelled in sequences(cards):
                    assert spelled not in page, f"seat {seat + 1} sees seat {other + 1}'s {key}"
    for taint in state["secret"]["taints"].values():
        for spelled in sequences(list(taint)):
            assert spelled not in page


def test_night_1_pages_show_each_hand_in_chinese_and_no_other(start_ninelives, client):
    game = start_ninelives()
    for seat, entry in enumerate(FIVE["seats"]):
        page = act_page(client, game, seat)
        assert_shows_only_its_own(page, fresh(game).state, seat)
        for code in entry["cards"]:
            assert f'data-card="{code}"' in page and f"#card-{code}\">{ZH[code]}</a></li>" in page
        assert 'id="loss-order-missing"' in page, "no order sent yet"
        assert "本阶段还没有选择用牌" in page
    send_orders(game)
    for seat in range(5):
        page = act_page(client, game, seat)
        assert order_on_page(page) == ORDERS[seat]
        assert f"<strong>{ZH[ORDERS[seat][-1]]}</strong>" in page
        assert "第1夜结束时固定" in page
        assert_shows_only_its_own(page, fresh(game).state, seat)


def test_day_1_pages_show_own_results_and_pending_choices_only(start_ninelives, client):
    game = play_night_1(start_ninelives())
    act(game, 3, "use_card", card="CURSE", target=0)
    act(game, 4, "proxy_vote", target=1)
    game = fresh(game)
    pages = {seat: act_page(client, game, seat) for seat in range(5)}
    for seat, page in pages.items():
        assert_shows_only_its_own(page, game.state, seat)
    investigation = "你用占卜查验1号阿猫是否持有杀手，结果：<strong>是</strong>"
    assert investigation in results_of(pages[2])
    assert all("查验" not in pages[s] for s in (0, 1, 3, 4))
    assert "你丢了反狙击手（中立阵营）" in pages[4]
    assert all("你丢了" not in pages[s] for s in (0, 1, 2, 3))
    assert "你遭到攻击但被保护" in results_of(pages[2])  # the save, told to 小白
    assert "3号小白 遭到攻击" not in results_of(pages[2]), "no public sentence repeated"
    assert "你丢了反狙击手（中立阵营）" in results_of(pages[4])
    assert '<p id="pending">本阶段： 使用 诅咒 → 1号阿猫</p>' in pages[3]
    assert "诅咒 → 1号" not in pages[0] + pages[1] + pages[2] + pages[4]
    assert '<p id="proxy">我的委托投票（由神的使者代投）： 投票给 2号阿狗</p>' in pages[4]
    assert all('id="proxy"' not in pages[s] for s in range(4))
    # the form offers each seat its own cards only, with Chinese labels
    assert "使用 诅咒 → 1号阿猫" in pages[3]
    form = Form(pages[3], "action-form")  # a day card: STRIKE, picked with its target
    assert form.options["pick_card"] == [("", "—"), ("STRIKE", "必杀"), ("CURSE", "诅咒")]
    assert ("4", "5 · 花花") in form.options["pick_target"]
    assert "必杀" not in pages[0]


def test_the_round_ban_and_the_day_card_show_on_the_panel(start_ninelives, client):
    """老黑 used WEREWOLF on night 1 and CURSE on day 1: no card at night 2 (§3.5.3)."""
    game = play_night_1(start_ninelives())
    act(game, 3, "use_card", card="CURSE", target=0)
    for voter, target in ((0, 1), (1, 1), (3, 1), (4, 0)):
        act(game, voter, "vote", target=target)
    game = fresh(game)
    assert game.phase_name == "night"
    page = act_page(client, game, 3)
    assert 'id="round-ban"' in page and "本轮不能用牌" in page
    assert all('id="round-ban"' not in act_page(client, game, s) for s in (0, 2, 4))


def test_the_free_agent_sees_its_status_and_camp_choices(start_ninelives, client):
    game = start_ninelives(deal=SIX)
    page = act_page(client, game, 5)
    assert 'data-camp="free_agent"' in page and "尚未选择阵营" in page
    assert "今晚从以下阵营中选择" in page and "加入杀手阵营（不可更改）" in page
    assert_shows_only_its_own(page, fresh(game).state, 5)
    act(game, 5, "choose_camp", camp="wolf")
    page = act_page(client, game, 5)
    assert 'data-camp="wolf"' in page and "自选立场者，选择不可更改" in page
    assert "你加入了狼人阵营；选择不可更改。" in page
    assert "你加入了狼人阵营" not in act_page(client, game, 0)


def test_the_home_page_facts_read_from_the_public_view(start_ninelives, client):
    game = play_night_1(start_ninelives())
    from games.engine.base import SPECTATOR
    from games.services import ruleset_of

    view = ruleset_of(game).view(game.state, SPECTATOR)
    with translation.override("zh-hans"):
        assert P.seat_facts(view, 4) == "已丢：中立 · 存活"
        assert P.seat_facts(view, 2) == "未丢牌 · 存活 · 目前不能投票"
        assert P.seat_facts(view, 0) == "未丢牌 · 存活"
    client.logout()
    home = unescape(client.get(reverse("game-home", args=[game.pk])).content.decode())
    assert "已丢：中立 · 存活" in home and "未丢牌 · 存活 · 目前不能投票" in home
