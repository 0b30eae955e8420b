"""A dead player follows a toy game a phase behind while the living play it, in Chromium at
390 px in Chinese, over ASGI with the real change feed: from the game home's link, told
first that watching ends their short replies, then the watch page; the night being played
never shows on it, and when the GM ends a phase the page brings the phase that ended
without a reload."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from games import services
from games.models import Game
from tests.browser.shots import screenshot
from tests.factories.toy import seat_user, wolf_seat

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("toy_ruleset")]

PHONE = {"width": 390, "height": 844}
PLANS = "#watch li.event[data-kind=kill_planned]"


def plan_kill(game, target: int) -> Game:
    services.submit_action(game_id=game.pk, user=seat_user(game, "wolf"), kind="kill",
                           params={"target": target})
    return Game.objects.get(pk=game.pk)


@pytest.mark.slow(seconds=12)
def test_a_dead_player_follows_the_night_a_phase_behind(asgi_server, asgi_page_for, gm,
                                                         players, artifacts_dir):
    draft = services.create_game(name="观战局", ruleset="toy", gm=gm, seat_count=5,
                                 durations={"night": 60, "day": 60}, early_end=False)
    game = services.start_game(game_id=draft.pk, users=players, seed="fixed-seed")
    wolf = wolf_seat(game)
    first, second = [n for n in range(5) if n != wolf][:2]
    game = plan_kill(game, first)
    services.end_phase_now(game_id=game.pk, gm=gm)  # night 1 ends: seat `first` is dead
    dead = game.seats.get(number=first).user

    page = asgi_page_for(dead)
    page.set_viewport_size(PHONE)
    page.goto(asgi_server.url + reverse("game-home", args=[game.pk]))
    page.click("#watch-link")
    assert "不能在本局版块发帖" in page.locator("#gives-up-dead-talk").inner_text()
    screenshot(page, artifacts_dir / "watch-confirm-390.png", full_page=True)
    page.click("#start-watching")
    page.wait_for_selector("#watched-phase")
    assert "第1轮夜晚" in page.locator("#watched-phase").inner_text()
    assert page.locator(PLANS).count() == 1
    wolf_row = page.locator(f"#seats tr[data-seat='{wolf}']").inner_text()
    assert "wolf" in wolf_row or "狼" in wolf_row
    page.wait_for_selector("body[data-live=open]")
    page.evaluate("window.__notReloaded = true")

    # The living play day 1 and night 2; the wolf's second plan is made in night 2.
    services.end_phase_now(game_id=game.pk, gm=gm)  # day 1 ends: night 2
    page.locator("#watched-phase", has_text="白天").wait_for(timeout=10_000)
    game = plan_kill(Game.objects.get(pk=game.pk), second)
    # Night 2 is being played: the watch view does not show its plan (the page opened
    # afresh in another tab, as the open page would fetch it), nor does the open page.
    fresh = page.context.new_page()
    fresh.goto(page.url)
    expect(fresh.locator("#watched-phase")).to_contain_text("白天")
    assert fresh.locator(PLANS).count() == 1
    fresh.close()
    assert page.locator(PLANS).count() == 1
    screenshot(page, artifacts_dir / "watch-night-2-390.png", full_page=True)

    services.end_phase_now(game_id=game.pk, gm=gm)  # night 2 ends: now it shows
    expect(page.locator(PLANS)).to_have_count(2, timeout=10_000)
    assert page.evaluate("window.__notReloaded === true")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, artifacts_dir / "watch-day-2-390.png", full_page=True)
