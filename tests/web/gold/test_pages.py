"""The seat's page for 谁偷了我的金币: the 'my hand' panel and the action form, in Chinese."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from django.urls import reverse

from games import services
from games.engine.gold.rules import CARD_NAMES_ZH, CARDS
from games.models import Action
from tests.factories.forms import Form
from tests.factories.gold import DURATIONS, act, fresh, pick_all, seed_where, user_of

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("response_context")]


def act_page(client, game, number: int) -> str:
    client.force_login(user_of(game, number))
    return unescape(client.get(reverse("game-act", args=[game.pk])).content.decode())


def panel(html: str) -> str:
    return html[html.index('id="gold-panel"'):html.index("</section>")]


def options(html: str) -> list[str]:
    """The action list's entries, after the "choose an action" it opens on."""
    select = html[html.index('<select name="choice"'):]
    return re.findall(r'<option value="[^"]+".*?>([^<]*)</option>',
                      select[:select.index("</select>")])


def test_the_panel_and_the_form_read_in_chinese(client, start_gold, chinese):
    seed, picks = seed_where(3, lambda s: not any(s))
    game = pick_all(start_gold(seed=seed), picks)
    laid = next(c for c in CARDS if c != picks[0])
    act(game, 0, "swap", card=laid)
    game = fresh(game)
    mine = panel(act_page(client, game, 0))
    assert "先手玩家" in mine and "我背面朝上盖下的牌" in mine and "只有我知道" in mine
    assert CARD_NAMES_ZH[laid] in mine
    # What the reader sees: the links to the rules page's anchors (#card-KILLER) are no text.
    seen = re.sub(r"<[^>]*>", " ", mine)
    assert not any(c in seen for c in CARDS), "card code names leak into the Chinese page"
    assert all(f'/games/rules/gold/#card-{c}"' in mine for c in game.state["private"][0]["hand"])
    page = act_page(client, game, 1)
    labels = options(page)
    assert "保持身份不变，不做其他操作" in labels
    assert "掀开1号金子背面朝上的身份牌" in labels
    assert any(label.startswith("把你的") for label in labels)
    assert "轮到你了" in panel(page) and "轮到你了" not in panel(act_page(client, game, 2))


def test_the_pick_form_marks_the_current_pick(client, start_gold, chinese):
    game = start_gold()
    act(game, 2, "pick", card="THIEF")
    labels = options(act_page(client, fresh(game), 2))
    assert labels == ["选择杀手", "选择刺客", "选择盗贼 （你目前的选择）"]
    assert "我秘密选择的身份" in panel(act_page(client, fresh(game), 2))


def test_after_the_game_the_panel_lists_every_round(client, start_gold):
    game = start_gold(players=2)
    for _round in range(2):
        game = pick_all(game, ["KILLER", "THIEF"])
        while fresh(game).status == "running" and fresh(game).phase_name != "pick":
            pub = fresh(game).state["public"]
            act(game, pub["turn"], "take_bonus" if game.phase_name == "priority" else "keep")
            game = fresh(game)
    assert game.status == "finished"
    results = act_page(client, game, 0)
    rows = re.findall(r"<tr><td>(\d+)</td>", results[results.index('id="gold-results"'):])
    assert rows == ["1", "2"]
    assert "id=\"action-form\"" not in results


def seat_rows(html: str) -> list[str]:
    table = html[html.index('<table id="seats"'):]
    table = table[:table.index("</table>")]
    return [re.sub(r"\s+", " ", row) for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]]


def test_the_home_page_lists_each_seats_public_facts(client, start_gold, make_user, chinese):
    game = start_gold()
    act(game, 1, "pick", card="THIEF")
    client.force_login(make_user("路人"))
    home = reverse("game-home", args=[game.pk])
    rows = seat_rows(unescape(client.get(home).content.decode()))
    assert ["尚未选择" in rows[0], "已选择" in rows[1], "尚未选择" in rows[2]] == [True] * 3
    assert not any(name in row for row in rows for name in CARD_NAMES_ZH.values())

    game = pick_all(game, ["KILLER", "THIEF", "ASSASSIN"])
    pub = game.state["public"]
    if game.phase_name == "priority":  # let every priority holder keep its token
        while fresh(game).phase_name == "priority":
            act(game, fresh(game).state["public"]["turn"], "take_bonus")
        pub = fresh(game).state["public"]
    swapper = pub["turn"]
    act(game, swapper, "swap", card=fresh(game).state["private"][swapper]["hand"][0])
    rows = seat_rows(unescape(client.get(home).content.decode()))
    for number, row in enumerate(rows):
        coins = fresh(game).state["public"]["coins"][number]
        assert f"{coins} 枚金币" in row
        shown = ["KILLER", "THIEF", "ASSASSIN"][number]
        assert f"亮出{CARD_NAMES_ZH[shown]}" in row
        assert ("背面朝上的牌：?" in row) == (number == swapper)


def test_the_replacement_is_one_option_with_a_card_and_a_virtual_player_picker(
        client, gold_players, gold_gm, chinese):
    """Replacing a virtual player's card takes two parts (a card of the hand, a virtual
    player): one option with two pickers, not one option per pair. A
    non-first card on a non-first virtual player is stored as picked; a pair not offered is
    refused in Chinese and stores nothing."""
    seed, picks = seed_where(3, lambda s: not any(s))
    game = services.create_game(name="金币局", ruleset="gold", gm=gold_gm, seat_count=3,
                                config={"lead": 0}, durations=dict(DURATIONS))
    game = services.start_game(game_id=game.pk, users=gold_players, seed=seed)  # the clock
    now = fresh(game).current_phase.started_at
    game = fresh(pick_all(game, picks, now=now))
    assert game.phase_name == "operation" and game.state["public"]["turn"] == 0
    client.force_login(user_of(game, 0))
    html = client.get(reverse("game-act", args=[game.pk])).content.decode()
    form = Form(html, "action-form")
    kinds = [json.loads(v)["kind"] for v, _l in form.options["choice"] if v]
    assert kinds.count("replace") == 1
    (value, label), = [(v, lab) for v, lab in form.options["choice"]
                       if v and json.loads(v)["kind"] == "replace"]
    assert json.loads(value) == {"kind": "replace", "params": {}, "picks": ["card", "virtual"]}
    assert label == "把一张手牌面朝下放到一名虚拟玩家的牌上：在下面选择牌和虚拟玩家"
    hand = list(dict.fromkeys(game.state["private"][0]["hand"]))
    shown = [v["shown"] for v in game.state["public"]["virtual"]]
    assert form.options["pick_card"] == [("", "—")] + [(c, CARD_NAMES_ZH[c]) for c in hand]
    assert form.options["pick_virtual"] == [("", "—")] + [
        (str(i), f"虚拟玩家 {i + 1}（现为{CARD_NAMES_ZH[c]}）") for i, c in enumerate(shown)]
    assert not any(c in unescape(re.sub(r"<[^>]*>", " ", html)) for c in CARDS)
    form.pick("choice", value=value)
    form.pick("pick_card", value=hand[-1])
    form.pick("pick_virtual", value=str(len(shown) - 1))
    before = Action.objects.filter(game=game).count()
    bad = dict(form.fields, pick_virtual="²")
    response = client.post(reverse("game-act", args=[game.pk]), bad, follow=True)
    assert response.status_code == 400
    assert [str(m) for m in response.context["messages"]] == [
        "所选的虚拟玩家不在列出的选项之中，请从列表中选择。"]
    assert Action.objects.filter(game=game).count() == before
    response = client.post(reverse("game-act", args=[game.pk]), form.fields, follow=True)
    assert [str(m) for m in response.context["messages"]] == ["已收到。神的使者已在下方确认。"]
    row = Action.objects.filter(game=game, actor="0").order_by("-seq").first()
    assert (row.kind, row.params) == ("replace", {"card": hand[-1], "virtual": len(shown) - 1})
    assert len(hand) >= 2 and len(shown) >= 2
