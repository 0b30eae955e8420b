"""猫有n条命: the forms a seat fills, as a browser without a script sends them.

1. The loss order is chosen, never typed: one select per position and the core card among
   those the rules allow; the stored order is exactly the one chosen, and a card listed
   twice or left out is refused beside its position, the choices kept.
2. A refused form comes back with what was entered (the option, the card, the target, the
   manifesto) and the refusal beside its field.
3. Nothing is preselected in the action list: sent as the page gives it, the form is
   refused and changes nothing.
4. A day card after a night card says its cost (no card next round) before it is sent, on
   the form and on a confirmation page; a vote is cast only after a confirmation page that
   names the target and says it cannot be changed.

Deal FIVE (seat i = NAMES[i]): 阿猫 KILLER DEMON WITCH_DOCTOR VEST JAIL (killer camp);
小白 SNIPER DIVINER KILLER SORCERER SAINT; 老黑 DIVINER PROPHET WEREWOLF STRIKE CURSE (attacks
花花 on night 1 in play_night_1); 花花 PROPHET DEMON BLESS COUNTER_SNIPER BOMB (passes).
"""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from django.urls import reverse

from games.models import Action, Event, Game, Vote
from messaging.models import Message, Thread
from tests.factories.forms import Form
from tests.factories.ninelives import fresh, user_of
from tests.services.ninelives.test_play import play_night_1, send_orders

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese", "response_context")]

RECEIVED = "已收到。神的使者已在下方确认。"
# 36 characters: an attack needs at least 100 (§3.5.2).
SHORT_MANIFESTO = "月黑风高，屋顶上的猫数着剩下的命，谁也没有听见巷口传来的那一阵阵脚步声。"


def act_url(game: Game) -> str:
    return reverse("game-act", args=[game.pk])


def open_act(client, game: Game, seat: int) -> str:
    client.force_login(user_of(game, seat))
    response = client.get(act_url(game))
    assert response.status_code == 200
    return response.content.decode()


def stored(game: Game) -> tuple[int, int, int, int]:
    return (
        Action.objects.filter(game=game).count(),
        Event.objects.filter(game=game).count(),
        Vote.objects.filter(game=game).count(),
        Message.objects.count(),
    )


def last_step(game: Game) -> tuple[str, dict]:
    row = Action.objects.filter(game=game, actor__regex=r"^\d+$").order_by("-seq").first()
    return row.kind, row.params


def flashes(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def error_beside(html: str, field: str) -> str:
    """The refusal shown beside `field` (its span#err_<field>), as read."""
    found = re.search(
        rf'<span class="errorlist field-error" id="err_{field}">(.*?)</span>', html, re.S
    )
    assert found, f"no refusal beside {field}"
    return unescape(found.group(1)).strip()


# --- 1. the loss order, chosen by position ---------------------------------------------------


def test_the_loss_order_is_chosen_by_position_with_the_allowed_core_cards(start_ninelives, client):
    game = start_ninelives()
    html = open_act(client, game, 0)
    form = Form(html, "loss-order-form")
    hand = [
        ("KILLER", "杀手"),
        ("DEMON", "恶魔"),
        ("WITCH_DOCTOR", "巫医"),
        ("VEST", "防弹衣"),
        ("JAIL", "禁锢"),
    ]
    for n in range(1, 5):
        assert form.options[f"order_{n}"] == hand, n
    assert "order_5" not in form.fields
    assert form.options["core"] == [("KILLER", "杀手"), ("DEMON", "恶魔")], (
        "the killer camp's cards only"
    )
    # The order shown first is the engine's first offered one; nothing is typed.
    assert [form.fields[f"order_{n}"] for n in range(1, 5)] == [
        "DEMON",
        "WITCH_DOCTOR",
        "VEST",
        "JAIL",
    ]
    assert form.fields["core"] == "KILLER"
    assert 'name="list_cards"' not in html
    action = Form(html, "action-form")
    assert not any(
        v and json.loads(v)["kind"] == "loss_order" for v, _l in action.options["choice"]
    ), "one place to set the order"
    assert 'src="/static/js/play-forms.js"' in html


def test_the_loss_order_stored_is_exactly_the_one_chosen(start_ninelives, client):
    """The order of the finding, on this hand: 禁锢, 巫医, 防弹衣, 杀手 and the core card 恶魔
    (not the first one offered). Before, a typed order was silently reordered around the
    option's core card; now the stored order is the one on screen."""
    game = start_ninelives()
    form = Form(open_act(client, game, 0), "loss-order-form")
    chosen = ["JAIL", "WITCH_DOCTOR", "VEST", "KILLER"]
    for n, card in enumerate(chosen, start=1):
        form.pick(f"order_{n}", value=card)
    form.pick("core", value="DEMON")
    response = client.post(act_url(game), form.fields, follow=True)
    assert flashes(response) == [RECEIVED]
    assert last_step(game) == ("loss_order", {"cards": [*chosen, "DEMON"]})
    assert fresh(game).state["private"][0]["loss_order"] == [*chosen, "DEMON"]
    # The page shows the order sent, as the positions to change it from.
    again = Form(open_act(client, game, 0), "loss-order-form")
    assert [again.fields[f"order_{n}"] for n in range(1, 5)] + [again.fields["core"]] == [
        *chosen,
        "DEMON",
    ]


@pytest.mark.parametrize(
    ("positions", "core", "field", "beside", "missing"),
    [
        # 禁锢 twice: refused beside the second, 恶魔 missing.
        (
            ["JAIL", "JAIL", "VEST", "WITCH_DOCTOR"],
            "KILLER",
            "order_2",
            "禁锢已经排在第1张",
            "恶魔",
        ),
        # The core card also listed at a position.
        (["JAIL", "DEMON", "VEST", "KILLER"], "DEMON", "order_2", "恶魔已经排在底牌", "巫医"),
    ],
)
def test_a_card_listed_twice_is_refused_beside_its_position_and_the_choices_kept(
    start_ninelives, client, positions, core, field, beside, missing
):
    game = start_ninelives()
    form = Form(open_act(client, game, 0), "loss-order-form")
    for n, card in enumerate(positions, start=1):
        form.pick(f"order_{n}", value=card)
    form.pick("core", value=core)
    before = stored(game)
    response = client.post(act_url(game), form.fields)
    assert response.status_code == 400
    html = response.content.decode()
    assert error_beside(html, field).startswith(beside), error_beside(html, field)
    assert f"顺序中缺少：{missing}。" in unescape(html)
    assert flashes(response) == ["丢牌顺序没有发送：请看标出的位置。"]
    kept = Form(html, "loss-order-form")
    assert [kept.fields[f"order_{n}"] for n in range(1, 5)] == positions
    assert kept.fields["core"] == core
    assert stored(game) == before and fresh(game).state["private"][0]["loss_order"] is None


def test_a_core_card_the_rules_do_not_allow_is_refused_beside_it(start_ninelives, client):
    game = start_ninelives()
    form = Form(open_act(client, game, 0), "loss-order-form")
    fields = dict(
        form.fields,
        order_1="KILLER",
        order_2="DEMON",
        order_3="WITCH_DOCTOR",
        order_4="JAIL",
        core="VEST",
    )  # 防弹衣 is not of the killer camp
    before = stored(game)
    response = client.post(act_url(game), fields)
    assert response.status_code == 400
    assert error_beside(response.content.decode(), "core") == "底牌必须是列出的牌之一。"
    assert stored(game) == before


def test_a_loss_order_after_night_1_is_refused_by_the_rules(start_ninelives, client):
    """No form once the window has closed; a stale page's post gets the rules' reason."""
    game = start_ninelives()
    fields = Form(open_act(client, game, 0), "loss-order-form").fields
    game = play_night_1(game)
    assert 'id="loss-order-form"' not in open_act(client, game, 0)
    before = stored(game)
    fields["phase"] = str(game.current_phase.seq)
    response = client.post(act_url(game), fields, follow=True)
    (shown,) = flashes(response)
    assert "丢牌顺序" in shown and shown != RECEIVED, shown
    assert stored(game) == before


# --- 2. a refused form keeps what was entered ------------------------------------------------


def attack_form(client, game: Game, manifesto: str) -> Form:
    """小白's attack: "use a card on a seat", KILLER, 花花, and `manifesto`."""
    form = Form(open_act(client, game, 2), "action-form")
    (value,) = [
        v
        for v, _l in form.options["choice"]
        if v and json.loads(v).get("picks") == ["card", "target"]
    ]
    form.pick("choice", value=value)
    form.pick("pick_card", value="KILLER")
    form.pick("pick_target", value="4")
    form.fill("text_manifesto", manifesto)
    return form


def test_a_refused_manifesto_keeps_the_card_the_target_and_the_text(start_ninelives, client):
    game = start_ninelives()
    send_orders(game)
    assert len(SHORT_MANIFESTO) == 36
    form = attack_form(client, game, SHORT_MANIFESTO)
    before = stored(game)
    response = client.post(act_url(game), form.fields)
    assert response.status_code == 200  # the rules' refusal: the form again
    html = response.content.decode()
    beside = error_beside(html, "text_manifesto")
    assert "100" in beside and flashes(response) == [beside]
    kept = Form(html, "action-form")
    assert kept.fields["choice"] == form.fields["choice"]
    assert (kept.fields["pick_card"], kept.fields["pick_target"]) == ("KILLER", "4")
    assert kept.fields["text_manifesto"] == SHORT_MANIFESTO
    assert 'aria-invalid="true" aria-describedby="err_text_manifesto"' in html
    assert stored(game) == before
    # Written out, the same form goes through.
    kept.fill("text_manifesto", SHORT_MANIFESTO * 3)
    assert flashes(client.post(act_url(game), kept.fields, follow=True)) == [RECEIVED]
    assert last_step(game) == (
        "use_card",
        {"card": "KILLER", "target": 4, "manifesto": SHORT_MANIFESTO * 3},
    )


def test_a_target_not_offered_is_refused_beside_the_target_the_rest_kept(start_ninelives, client):
    game = start_ninelives()
    send_orders(game)
    form = attack_form(client, game, SHORT_MANIFESTO * 3)
    form.fields["pick_target"] = "9"
    before = stored(game)
    response = client.post(act_url(game), form.fields)
    assert response.status_code == 400
    html = response.content.decode()
    assert error_beside(html, "pick_target") == "所选的目标不在列出的选项之中，请从列表中选择。"
    kept = Form(html, "action-form")
    assert kept.fields["pick_card"] == "KILLER"
    assert kept.fields["text_manifesto"] == SHORT_MANIFESTO * 3
    assert stored(game) == before


# --- 3. nothing preselected ------------------------------------------------------------------


def test_no_action_is_preselected_and_the_form_as_given_changes_nothing(start_ninelives, client):
    """By day 阿猫 holds no day card: the action list holds only proxy votes. Before, the
    first (a proxy vote for 阿狗) was selected, and one click sent it."""
    game = play_night_1(start_ninelives())
    html = open_act(client, game, 0)
    form = Form(html, "action-form")
    assert form.options["choice"][0] == ("", "— 请选择操作 —")
    assert form.fields["choice"] == ""
    assert {json.loads(v)["kind"] for v, _l in form.options["choice"][1:]} == {"proxy_vote"}
    before = stored(game)
    response = client.post(act_url(game), form.fields)
    assert response.status_code == 400
    assert error_beside(response.content.decode(), "choice") == "请先选择一项操作。"
    assert flashes(response) == ["请先选择一项操作。"]
    assert stored(game) == before
    assert fresh(game).state["private"][0]["proxy"] is None


# --- 4. the cost before it is paid -----------------------------------------------------------


def day_card_form(client, game: Game, seat: int, card: str, target: str) -> tuple[str, Form]:
    html = open_act(client, game, seat)
    form = Form(html, "action-form")
    (value,) = [
        v
        for v, _l in form.options["choice"]
        if v and json.loads(v).get("picks") == ["card", "target"]
    ]
    form.pick("choice", value=value)
    form.pick("pick_card", value=card)
    form.pick("pick_target", value=target)
    return html, form


COST = "你昨夜已经用过一张牌：如果今天再用牌，第2轮（第2夜和第2天）你将不能使用任何牌。"


def test_a_day_card_after_a_night_card_says_its_cost_and_waits_for_a_confirmation(
    start_ninelives, client
):
    game = play_night_1(start_ninelives())  # 老黑 used WEREWOLF last night
    html, form = day_card_form(client, game, 3, "CURSE", "4")
    assert unescape(re.search(r'id="round-cost">(.*?)</p>', html).group(1)) == COST
    before = stored(game)
    response = client.post(act_url(game), form.fields)
    assert response.status_code == 200
    raw = response.content.decode()
    page = unescape(raw)
    assert re.search(r'id="confirm-cost"[^>]*>(.*?)</p>', page).group(1) == COST
    assert "诅咒" in re.search(r'id="confirm-summary">(.*?)</strong>', page).group(1)
    assert stored(game) == before, "nothing is sent before the confirmation"
    confirm = Form(raw, "confirm-form")
    assert {k: v for k, v in confirm.fields.items() if k != "csrfmiddlewaretoken"} == {
        k: v for k, v in form.fields.items() if k != "csrfmiddlewaretoken"
    }
    # "Back": the form again as it was, nothing sent.
    back = client.post(act_url(game), dict(confirm.fields, back="1"))
    kept = Form(back.content.decode(), "action-form")
    assert (kept.fields["choice"], kept.fields["pick_card"], kept.fields["pick_target"]) == (
        form.fields["choice"],
        "CURSE",
        "4",
    )
    assert stored(game) == before
    # Confirmed: sent, exactly as chosen.
    response = client.post(act_url(game), dict(confirm.fields, confirmed="1"), follow=True)
    assert flashes(response) == [RECEIVED]
    assert last_step(game) == ("use_card", {"card": "CURSE", "target": 4})


def test_a_day_card_without_a_night_card_costs_nothing_more_and_goes_at_once(
    start_ninelives, client
):
    game = play_night_1(start_ninelives())  # 花花 passed last night
    html, form = day_card_form(client, game, 4, "BLESS", "2")
    assert 'id="round-cost"' not in html
    response = client.post(act_url(game), form.fields, follow=True)
    assert flashes(response) == [RECEIVED]
    assert last_step(game) == ("use_card", {"card": "BLESS", "target": 2})


def vote_box(client, game: Game, seat: int) -> Form:
    game = fresh(game)
    thread = Thread.objects.get(board=game.board, key=f"vote-{game.current_phase.seq}")
    client.force_login(user_of(game, seat))
    return Form(
        client.get(reverse("messaging-thread", args=[thread.pk])).content.decode(), "vote-form"
    )


def test_a_vote_is_cast_only_after_a_confirmation_that_names_the_target(start_ninelives, client):
    game = play_night_1(start_ninelives())
    form = vote_box(client, game, 0)
    assert "target" not in form.fields, "no seat is ticked"
    form.check("target", "3")
    before = stored(game)
    response = client.post(reverse("game-vote", args=[game.pk]), form.fields)
    assert response.status_code == 200
    raw = response.content.decode()
    page = unescape(raw)
    assert re.search(r'id="confirm-target">(.*?)</strong>', page).group(1) == "4号老黑"
    assert "老黑" in re.search(r'id="confirm-summary">(.*?)</strong>', page).group(1)
    assert "投出后不能更改。" in page
    assert stored(game) == before and not Vote.objects.filter(game=game).exists()
    confirm = Form(raw, "vote-confirm-form")
    assert confirm.fields["confirmed"] == "1" and confirm.fields["target"] == "3"
    back = re.search(r'<a href="([^"]+)" id="vote-confirm-back"', page).group(1)
    assert back == reverse("messaging-thread", args=[form.fields["thread"]])
    response = client.post(reverse("game-vote", args=[game.pk]), confirm.fields, follow=True)
    assert flashes(response) == ["你的票已计入。"]
    assert last_step(game) == ("vote", {"target": 3})
    assert Vote.objects.get(game=game).target.number == 3


def test_a_vote_the_rules_do_not_offer_gets_their_reason_without_a_confirmation(
    start_ninelives, client
):
    """小白 was saved by a SOULBINDER and may not vote: no confirmation page, the rules'
    reason, nothing stored."""
    game = play_night_1(start_ninelives())
    form = vote_box(client, game, 0)
    form.check("target", "3")
    client.force_login(user_of(game, 2))
    before = stored(game)
    response = client.post(reverse("game-vote", args=[game.pk]), form.fields, follow=True)
    assert b'id="vote-confirm-form"' not in response.content
    (shown,) = flashes(response)
    assert any("\u4e00" <= ch <= "\u9fff" for ch in shown) and shown != "你的票已计入。"
    assert stored(game) == before
