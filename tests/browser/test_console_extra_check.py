"""The 天神 console on a poison night, clicked (Chromium, Chinese): the police checked the
poison, so the console says the extra check is still due and offers both answers; the GM
ends the night without it in one click, and the event log says so. (Every answer through
the Django test client: tests/web/classic/test_console_poison_night.py.) Screenshot in the
artifacts folder (console-extra-check-due.png)."""

from __future__ import annotations

import pytest

from tests.factories.classic import (
    players,  # noqa: F401
    pub,
)
from tests.services.classic.test_extra_check_secret import POISON, night_choices, twin

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_gm_ends_a_poison_night_without_the_extra_check_in_one_click(
    page_for,
    live_server,
    players,  # noqa: F811
    gm,
    chinese,
    artifacts_dir,
):
    game = night_choices(twin(players, gm), POISON)
    page = page_for(gm)
    page.goto(f"{live_server.url}/admin/games/game/{game.pk}/console/")
    notice = page.locator("#inner-phase").inner_text()
    assert "还有一次追加验人" in notice and "警察验到了毒药" in notice, notice
    assert page.locator("#end-wait-inner").get_attribute("value") == "等待追加验人"
    page.screenshot(path=str(artifacts_dir / "console-extra-check-due.png"), full_page=True)
    page.click("#end-skip-inner")
    page.wait_for_load_state()
    assert pub(game)["phase"] in ("last_words", "speech")
    assert page.locator("#inner-phase").count() == 0
    assert "没有等待追加验人" in page.locator("#events").inner_text()
