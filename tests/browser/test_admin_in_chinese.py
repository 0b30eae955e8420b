"""The 天神's admin at phone width (390 px), in Chinese: the console and the settings page of
a running 猫有n条命 game and the list of its steps, read by a GM who is a plain host; the
pages are photographed to var/artifacts/admin-zh/ and read for English, engine keys, JSON
and 0-based seats (the checks of tests/web/test_chinese_admin.py)."""

import pytest

from games import services
from tests.browser.shots import screenshot
from tests.factories.ninelives import MANIFESTO, act
from tests.web.test_chinese_admin import engine_keys, findings_of

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("chinese"),
]

PHONE = {"width": 390, "height": 844}


def test_the_console_settings_and_steps_read_in_chinese_at_390_px(
    page_for, live_server, start_ninelives, nl_gm, make_user, artifacts_dir
):
    from config import health

    health.record_sweep_completed()
    game = start_ninelives()
    act(game, 0, "use_card", card="KILLER", target=3, manifesto=MANIFESTO)
    act(game, 2, "use_card", card="DIVINER", target=0)
    for seat in (1, 3, 4):
        act(game, seat, "pass")
    services.end_phase_now(game_id=game.pk, gm=nl_gm)  # the dawn, with the manifesto
    act(game, 0, "vote", target=1)
    host = make_user("主持人", staff=True, superuser=False)
    services.add_co_gm(game_id=game.pk, gm=nl_gm, user=host)

    out = artifacts_dir / "admin-zh"
    out.mkdir(exist_ok=True)
    page = page_for(host)
    page.set_viewport_size(PHONE)
    keys = engine_keys()
    for name, url in (
        ("console", f"/admin/games/game/{game.pk}/console/"),
        ("settings", f"/admin/games/game/{game.pk}/change/"),
        ("steps", "/admin/games/action/"),
    ):
        page.goto(live_server.url + url)
        screenshot(page, out / f"{name}-390.png", full_page=True)
        # and in screen-high slices, to be read at full size
        height = page.evaluate("document.documentElement.scrollHeight")
        for i, top in enumerate(range(0, min(height, 4 * 844), 844)):
            screenshot(page, out / f"{name}-390-{i + 1}.png", full_page=True,
                clip={"x": 0, "y": top, "width": 390, "height": min(844, height - top)})
        assert findings_of(url, page.content(), keys) == [], name
        # nothing wider than the phone but the tables that scroll
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= 390 + 1 or name == "steps", (name, wide)
