"""A staff member (a superuser, the strongest case) seated in a
猫有n条命 game sees exactly what a player without staff status sees in the same seat — the
same page texts on the game home, the act page, the announcement thread, today's vote thread
and the games list — and no GM link (console, GM board) of the game they play."""

from __future__ import annotations

import pytest
from django.urls import reverse

from messaging.models import Thread
from tests.browser.shots import screenshot
from tests.factories.ninelives import act, fresh

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("chinese")]

SEAT = 2
# Live countdowns tick between two loads; they are the only text that may differ.
TEXT_WITHOUT_CLOCKS = """() => {
  const main = document.querySelector('main').cloneNode(true);
  main.querySelectorAll('.countdown').forEach(e => e.remove());
  return main.innerText;
}"""


def test_a_seated_superuser_sees_what_a_plain_player_in_that_seat_sees(
        start_ninelives, nl_players, page_for, live_server, artifacts_dir):
    staff = nl_players[SEAT]
    staff.is_staff = staff.is_superuser = True
    staff.save()
    game = start_ninelives()
    from tests.services.ninelives.test_play import send_orders

    send_orders(game)
    act(game, 0, "pass")  # something for the night's announcement later
    game = fresh(game)
    announcements = Thread.objects.get(board=game.board, key="announcements")
    urls = [reverse("game-home", args=[game.pk]), reverse("game-act", args=[game.pk]),
            announcements.get_absolute_url(), reverse("game-list")]
    page = page_for(staff)
    page.set_viewport_size({"width": 390, "height": 844})

    def texts() -> list[str]:
        seen = []
        for url in urls:
            response = page.goto(live_server.url + url)
            assert response.status == 200, url
            seen.append(page.evaluate(TEXT_WITHOUT_CLOCKS))
            # no link of the page's own content leads to the admin (console, GM records)
            assert page.locator("main a[href*='/admin/']").count() == 0, url
        return seen

    as_staff = texts()
    screenshot(page, artifacts_dir / "staff-seated-games-390.png", full_page=True)
    staff.is_staff = staff.is_superuser = False
    staff.save()
    as_player = texts()
    for url, seen_by_staff, seen_by_player in zip(urls, as_staff, as_player, strict=True):
        assert seen_by_staff == seen_by_player, url
    home = as_staff[0]
    assert "天神控制台" not in home and "天神版块" not in home
    # ... and the seat's own hand is on its act page for both (it is their seat)
    from django.utils import translation

    from games.presenters.ninelives import card_name

    with translation.override("zh-hans"):
        names = [card_name(code) for code in game.state["private"][SEAT]["hand"]]
    assert names and all(name in as_staff[1] for name in names)
