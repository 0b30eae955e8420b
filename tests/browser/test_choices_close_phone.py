"""The line of a poison night's act page that says when the night's choices close (the
same for every seat: docs/rules/classic.md, "The extra check stays the police's"), on a
phone (Chromium, 390 px, Chinese), before and after the close. Screenshots in the artifacts
folder (choices-close-*.png)."""

from __future__ import annotations

import datetime as dt

import pytest

from games import services
from tests.browser.shots import screenshot
from tests.browser.test_phone_tables import PHONE
from tests.factories.classic import players  # noqa: F401
from tests.services.classic.test_extra_check_secret import BANDITS, POISON, night_choices, twin

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_choices_close_line_on_a_phone(
    page_for,
    live_server,
    players,  # noqa: F811
    gm,
    chinese,
    artifacts_dir,
):
    game = night_choices(twin(players, gm), POISON)
    page = page_for(game.seats.get(number=BANDITS[0]).user)
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/games/{game.pk}/act/")
    line = page.locator("#choices-close")
    assert "今晚的选择截止于" in line.inner_text()
    screenshot(page, artifacts_dir / "choices-close-open.png")
    services.sweep(now=game.choices_close_at + dt.timedelta(seconds=30))
    page.reload()
    assert line.inner_text() == "今晚的选择已截止。"
    screenshot(page, artifacts_dir / "choices-close-closed.png")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page scrolls sideways: {width}px"
