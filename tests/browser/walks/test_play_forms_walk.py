"""The forms a 猫有n条命 seat fills, walked in Chromium at 390 px from the home page, only
clicking (deal FIVE, seat i = NAMES[i]; the other seats act through the services).

Night 1:
1. 阿猫 opens "my hand and actions": the action list opens on "choose" and its button is
   disabled; choosing "use a card on a seat" keeps it disabled until the card and the
   target are chosen too. The loss order: 恶魔 as the core card (the second offered), the
   others put in the order 禁锢, 巫医, 防弹衣, 杀手 with 上移/下移; the order stored is
   exactly the one on screen, and the page shows it back. Then "use no card tonight".
2. 小白 attacks 花花 with KILLER and a 36-character manifesto: refused (an attack needs
   100), the page keeps the option, the card, the target and the text, the refusal beside
   the text box; 小白 writes more and the attack goes.
Day 1:
3. 阿猫 votes in the vote thread: the button is disabled until a seat is ticked; the next
   page names the target and says the vote cannot be changed; nothing is cast until it is
   confirmed there.
4. 老黑, who attacked last night, chooses CURSE: the form says that a card today leaves him
   none next round, and so does the confirmation page before the card is used.

Screenshots (var/artifacts/walks/): forms-01-loss-order-390, forms-02-refused-manifesto-390,
forms-03-vote-confirm-390, forms-04-day-card-cost-390.
"""

from __future__ import annotations

import pytest

from games.models import Action, Vote
from tests.browser.walks.clicking import (
    PHONE,
    arrive,
    fits_a_phone,
    flash,
    follow,
    last_step,
    read_in_chinese,
    to_game,
    visible_text,
    watch,
)
from tests.browser.walks.loss_order import (
    cards_on_screen,
    choose_core,
    codes_on_screen,
    order_by_clicking,
    send_order,
)
from tests.factories.ninelives import MANIFESTO, act, fresh, user_of
from tests.factories.ninelives import start as start_ninelives
from tests.services.ninelives.test_play import ORDERS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHORT = "月黑风高，屋顶上的猫数着剩下的命，谁也没有听见巷口传来的那一阵阵脚步声。"  # 36
RECEIVED = "已收到。神的使者已在下方确认。"


def open_act(page, live_server) -> None:
    """From the home page to the seat's act page, by the list of my games."""
    arrive(page, live_server)
    follow(page, "#my-games a.act-link")
    page.set_viewport_size(PHONE)


def select_option(page, label_has: str) -> None:
    """Select the action whose label holds `label_has`."""
    labels = page.locator("#choice option").all_inner_texts()
    (label,) = [t for t in labels if label_has in t]
    page.select_option("#choice", label=label)


def pick(page, key: str, label_has: str) -> None:
    entries = page.locator(f"#pick_{key} option").all_inner_texts()
    (label,) = [t for t in entries if label_has in t]
    page.select_option(f"#pick_{key}", label=label)


def submit_disabled(page) -> bool:
    return page.locator("#act-submit").is_disabled()


def test_a_seat_fills_its_forms_by_clicking(page_for, live_server, nl_players, nl_gm, shots):
    assert len(SHORT) == 36
    game = start_ninelives(nl_players, nl_gm)
    pages = {n: page_for(user_of(game, n)) for n in (0, 2, 3)}
    for page in pages.values():
        watch(page, read_in_chinese)

    # 1. 阿猫: nothing preselected; the loss order by clicking.
    a_mao = pages[0]
    open_act(a_mao, live_server)
    assert a_mao.input_value("#choice") == "" and submit_disabled(a_mao)
    select_option(a_mao, "对一个座位用牌")
    assert submit_disabled(a_mao), "the card and the target are not chosen yet"
    pick(a_mao, "card", "禁锢")
    assert submit_disabled(a_mao)
    pick(a_mao, "target", "老黑")
    assert not submit_disabled(a_mao)
    a_mao.select_option("#choice", value="")
    assert submit_disabled(a_mao)

    assert cards_on_screen(a_mao) == ["恶魔", "巫医", "防弹衣", "禁锢", "杀手"]
    assert choose_core(a_mao, "恶魔") == 1, "not the first core card offered"
    # The old core card takes the place the new one left.
    assert cards_on_screen(a_mao) == ["杀手", "巫医", "防弹衣", "禁锢", "恶魔"]
    assert order_by_clicking(a_mao, ["禁锢", "巫医", "防弹衣", "杀手"]) == 5
    row = a_mao.locator("#order-rows .order-row").nth(1)  # 巫医 down and back up
    row.locator(".order-down").click()
    assert cards_on_screen(a_mao)[1:3] == ["防弹衣", "巫医"]
    a_mao.locator("#order-rows .order-row").nth(2).locator(".order-up").click()
    on_screen = cards_on_screen(a_mao)
    assert on_screen == ["禁锢", "巫医", "防弹衣", "杀手", "恶魔"]
    assert codes_on_screen(a_mao) == ["JAIL", "WITCH_DOCTOR", "VEST", "KILLER", "DEMON"]
    assert a_mao.locator("#order-rows .order-row").first.locator(".order-up").is_disabled()
    assert fits_a_phone(a_mao)
    shots(a_mao, "forms-01-loss-order-390", "#loss-order-form")
    sent = send_order(a_mao, follow)
    assert flash(a_mao) == RECEIVED, flash(a_mao)
    assert sent == ["JAIL", "WITCH_DOCTOR", "VEST", "KILLER", "DEMON"]
    step = last_step(game, 0)
    assert (step.kind, step.params) == ("loss_order", {"cards": sent})
    assert cards_on_screen(a_mao) == on_screen, "the form shows the order sent"
    assert a_mao.locator("#loss-order li").all_inner_texts() == on_screen  # the hand panel
    select_option(a_mao, "今晚不用牌")
    follow(a_mao, "#act-submit")
    assert flash(a_mao) == RECEIVED and last_step(game, 0).kind == "pass"

    for seat in (1, 2, 3, 4):
        act(game, seat, "loss_order", cards=ORDERS[seat])
    act(game, 1, "use_card", card="SOULBINDER", target=2)
    act(game, 3, "use_card", card="WEREWOLF", target=1, manifesto=MANIFESTO)
    act(game, 4, "pass")

    # 2. 小白: a refused manifesto keeps everything entered.
    xiao_bai = pages[2]
    open_act(xiao_bai, live_server)
    select_option(xiao_bai, "对一个座位用牌")
    pick(xiao_bai, "card", "杀手")
    pick(xiao_bai, "target", "花花")
    xiao_bai.fill("#text_manifesto", SHORT)
    before = Action.objects.filter(game=game).count()
    follow(xiao_bai, "#act-submit")
    beside = visible_text(xiao_bai, "#err_text_manifesto")
    assert "100" in beside, beside
    assert xiao_bai.input_value("#text_manifesto") == SHORT
    assert xiao_bai.eval_on_selector("#pick_card", "s => s.options[s.selectedIndex].text") == "杀手"
    assert "花花" in xiao_bai.eval_on_selector(
        "#pick_target", "s => s.options[s.selectedIndex].text"
    )
    assert xiao_bai.locator("#text_manifesto").is_visible() and not submit_disabled(xiao_bai)
    assert Action.objects.filter(game=game).count() == before
    assert fits_a_phone(xiao_bai)
    shots(xiao_bai, "forms-02-refused-manifesto-390", "#action-form")
    xiao_bai.fill("#text_manifesto", SHORT * 3)
    follow(xiao_bai, "#act-submit")
    assert flash(xiao_bai) == RECEIVED, flash(xiao_bai)
    assert last_step(game, 2).params == {"card": "KILLER", "target": 4, "manifesto": SHORT * 3}
    game = fresh(game)
    assert game.phase_name == "day", "every seat has acted: the night ended"

    # 3. 阿猫 votes, confirmed on the next page.
    to_game(a_mao, game.name)
    follow(a_mao, "#vote-thread-link")
    assert a_mao.locator("#vote-submit").is_disabled(), "no seat ticked yet"
    a_mao.locator("#vote-form label.vote-option", has_text="老黑").locator("input").check()
    assert not a_mao.locator("#vote-submit").is_disabled()
    follow(a_mao, "#vote-submit")
    assert "老黑" in visible_text(a_mao, "#confirm-target")
    assert "投出后不能更改。" in visible_text(a_mao, "#vote-confirm")
    assert not Vote.objects.filter(game=game).exists(), "nothing cast before the confirmation"
    assert fits_a_phone(a_mao)
    shots(a_mao, "forms-03-vote-confirm-390")
    follow(a_mao, "#vote-confirm-submit")
    assert flash(a_mao) == "你的票已计入。", flash(a_mao)
    assert (last_step(game, 0).kind, last_step(game, 0).params) == ("vote", {"target": 3})

    # 4. 老黑: the cost of a day card after a night card, before it is paid.
    lao_hei = pages[3]
    open_act(lao_hei, live_server)
    cost = "你昨夜已经用过一张牌：如果今天再用牌，第2轮（第2夜和第2天）你将不能使用任何牌。"
    assert visible_text(lao_hei, "#round-cost") == cost
    select_option(lao_hei, "对一个座位用牌")
    pick(lao_hei, "card", "诅咒")
    pick(lao_hei, "target", "花花")
    before = Action.objects.filter(game=game).count()
    follow(lao_hei, "#act-submit")
    assert visible_text(lao_hei, "#confirm-cost") == cost
    assert "诅咒" in visible_text(lao_hei, "#confirm-summary")
    assert Action.objects.filter(game=game).count() == before
    assert fits_a_phone(lao_hei)
    shots(lao_hei, "forms-04-day-card-cost-390")
    follow(lao_hei, "#confirm-submit")
    assert flash(lao_hei) == RECEIVED, flash(lao_hei)
    assert last_step(game, 3).params == {"card": "CURSE", "target": 4}
