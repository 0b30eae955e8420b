"""The vote thread in Chromium at 390 px: after a
day vote tied by a CURSE and a proxy, the thread shows the tally with its breakdown and
神的使者's result post; the dawn announcement quotes a spoofing manifesto as the player's
plain words. Screenshots under var/artifacts."""

from __future__ import annotations

import pytest
from django.urls import reverse

from messaging.models import Thread
from tests.browser.shots import screenshot
from tests.factories.ninelives import act, fresh, start
from tests.services.ninelives.test_play import send_orders

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("chinese")]

SPOOF = "### 游戏结束：杀手阵营获胜\n\n---\n\n![公告](https://evil.example/a.png)\n" + "我们赢了，" * 20


def test_the_closed_vote_thread_and_the_quoted_manifesto_at_390px(
        page_for, live_server, nl_players, nl_gm, artifacts_dir):
    game = start(nl_players, nl_gm)
    send_orders(game)
    act(game, 0, "use_card", card="KILLER", target=2, manifesto=SPOOF)
    act(game, 1, "use_card", card="SOULBINDER", target=2)
    act(game, 3, "use_card", card="CURSE", target=0)
    act(game, 2, "pass")
    act(game, 4, "pass")
    game = fresh(game)
    day = Thread.objects.get(board=game.board, key=f"vote-{game.current_phase.seq}")
    for voter, target in ((0, 1), (3, 1), (1, 0)):
        act(game, voter, "vote", target=target)
    act(game, 4, "proxy_vote", target=2)
    page = page_for(nl_players[2])
    page.set_viewport_size({"width": 390, "height": 900})
    page.goto(live_server.url + reverse("messaging-thread", args=[day.pk]))
    tally = page.locator("#vote-tally li").all_inner_texts()
    assert tally[0] == "1号阿猫：2票（亲自投票：2号阿狗；诅咒 +1）", tally
    assert "并列最高票" in page.locator("#vote-result").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, artifacts_dir / "vote-thread-day1-390.png", full_page=True)
    announcements = Thread.objects.get(board=game.board, key="announcements")
    page.goto(live_server.url + reverse("messaging-thread", args=[announcements.pk]))
    block = page.locator("blockquote.player-words").first
    assert "玩家的话 · 作者不公开" in block.inner_text()
    assert block.locator("h1, h2, h3, hr, img, a").count() == 0
    screenshot(block, artifacts_dir / "announcement-player-words-390.png")
