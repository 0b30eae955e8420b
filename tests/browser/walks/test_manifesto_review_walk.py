"""A GM-reviewed manifesto, walked in Chromium (seed 002 §3.5.2, §5.7).

The night is built through the services (a five-seat 猫有n条命 game with early ends off, as
the forum-standard preset makes it; every loss order in; 阿猫 attacks 小白 with KILLER and a
manifesto; the others act). The night does not end although everyone has acted. The GM, on
a phone (390 px), opens the console from the header's link: it says 所有人都已行动 and lists
the manifesto waiting for review; the GM rejects it with a typed reason; 阿猫 reads the
reason from 神的使者 and sends a second manifesto (through the service); the GM approves it,
ends the night with 立即结束本阶段 and its confirmation, and the dawn announcement, followed
from the game's page, carries the approved manifesto and not the rejected one. Screenshots:
var/artifacts/walks/console-manifestos.png (the console's review at 390 px, also
docs/img/gm-manifestos.png) and console-everyone-acted.png (the notice above it).
"""

from __future__ import annotations

import pytest

from games import services
from games.models import Game
from tests.browser.walks.clicking import (
    PHONE,
    arrive,
    fits_a_phone,
    follow,
    open_console,
    read_in_chinese,
)
from tests.factories.ninelives import MANIFESTO, act, fresh
from tests.services.ninelives.test_manifesto_review import ORDERS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SECOND = "第二份宣言：月光照在湖面上，猫沿着屋脊慢慢走过，没有回头看一眼那些熟睡的人。" * 4
REASON = "与剧情无关，请按昨夜的剧情重写。"


def test_the_gm_reviews_a_manifesto_then_ends_the_night(
    page_for, live_server, start_ninelives, nl_gm, nl_players, shots, docs_screenshots
):
    game = start_ninelives()
    services.update_settings(game_id=game.pk, changes={"early_end": False})
    for seat, order in ORDERS.items():
        act(game, seat, "loss_order", cards=order)
    act(game, 0, "use_card", card="KILLER", target=2, manifesto=MANIFESTO)
    act(game, 1, "use_card", card="SOULBINDER", target=2)
    act(game, 2, "use_card", card="DIVINER", target=0)
    act(game, 3, "pass")
    act(game, 4, "pass")
    assert fresh(game).phase_name == "night"  # everyone has acted; the night waits

    gm = page_for(nl_gm)
    gm.set_viewport_size(PHONE)
    open_console(gm, live_server, game.name)
    notice = read_in_chinese(gm, "#everyone-acted")
    assert "所有人都已行动" in notice and "还有1份杀人宣言等待你审核" in notice
    review = read_in_chinese(gm, "#manifestos")
    assert "1号阿猫" in review and "3号小白" in review and "待审核" in review
    assert MANIFESTO[:15] in review
    assert fits_a_phone(gm)
    shots(gm, "console-manifestos", "#manifestos")
    shots(gm, "console-everyone-acted", "#everyone-acted")

    gm.fill("#manifestos form.reject-manifesto textarea[name=reason]", REASON)
    follow(gm, "#manifestos form.reject-manifesto input[type=submit]")
    assert gm.locator(".messagelist li.success").inner_text() == "已完成。"
    assert gm.locator("#manifestos").count() == 0  # nothing left to review
    assert gm.locator("#everyone-acted").count() == 0  # 阿猫 owes an attack again

    killer = page_for(nl_players[0])
    arrive(killer, live_server)
    follow(killer, "#my-games a.act-link")
    assert REASON in killer.inner_text("main")  # from 神的使者
    act(game, 0, "use_card", card="KILLER", target=2, manifesto=SECOND)

    follow(gm, "#end-phase-link")  # the GM looks at what ending now would do
    assert "1号阿猫" in read_in_chinese(gm, "#unreviewed")
    follow(gm, "先去审核", within="#end-phase")
    assert SECOND[:15] in read_in_chinese(gm, "#manifestos")
    follow(gm, "#manifestos form.approve-manifesto input[type=submit]")
    assert "✓ 已通过" in gm.inner_text("#manifestos")
    follow(gm, "#end-now")
    assert gm.locator("#unreviewed").count() == 0  # every manifesto reviewed
    follow(gm, "#confirm-end-phase")
    game = fresh(game)
    assert (game.phase_name, game.phase_number) == ("day", 1)
    assert game.status == Game.Status.RUNNING

    follow(gm, f"a[href='/games/{game.pk}/']", within="#console")
    follow(gm, "第1夜结束", within="main")
    dawn = read_in_chinese(gm, "main")
    assert SECOND[:15] in dawn and MANIFESTO[:15] not in dawn
