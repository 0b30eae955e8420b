"""The review's deal table on a phone (Chromium, 390 px, Chinese): one stacked block per seat
(the rule set's headings as labels: 座位, 阵营, 牌, 秘密属性 for 猫有n条命), no cell squeezed
to a character a line and no sideways scroll of the page, for a finished 猫有n条命 and Classic game. Screenshots in the artifacts
folder (deal-table-*.png)."""

from __future__ import annotations

import pytest

from tests.browser.shots import screenshot
from tests.browser.test_phone_tables import MEASURE, PHONE, squeezed
from tests.web.test_players_see_no_engine_data import play_finished

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("ruleset", ["ninelives", "classic"])
def test_the_deal_table_fits_a_phone(
    ruleset, page_for, live_server, chinese, artifacts_dir
):
    game = play_finished(ruleset)
    page = page_for(game.seats.get(number=0).user)
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/games/{game.pk}/review/")
    page.wait_for_load_state()
    cells = page.evaluate(MEASURE, "#deal")
    screenshot(page.locator("#deal"), artifacts_dir / f"deal-table-{ruleset}.png")
    assert cells and not squeezed(cells), squeezed(cells)
    assert {"ninelives": "秘密属性", "classic": "暗中的变化"}[ruleset] in page.locator(
        "#deal").inner_text()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page scrolls sideways: {width}px"
