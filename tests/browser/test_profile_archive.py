"""After a game ends, a player (in a real Chromium, at 390 px, in Chinese) opens the seat
table's posts link of another seat, then that player's profile: the finished game is there
with its camp and result; the archive lists it. Screenshots in the artifacts folder."""

from __future__ import annotations

import pytest

from games import services
from messaging import services as forum
from messaging.models import Thread
from tests.browser.shots import screenshot
from tests.factories.toy import finish, seat_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("toy_ruleset")]
PHONE = {"width": 390, "height": 844}


def test_a_player_reads_anothers_profile_after_the_game(page_for, live_server, players, gm,
                                                       artifacts_dir):
    g = services.create_game(name="终局", ruleset="toy", gm=gm, seat_count=5,
                             durations={"night": 60, "day": 60})
    game = services.start_game(game_id=g.pk, users=players, seed="fixed-seed")
    wolf = seat_user(game, "wolf")
    forum.start_thread(board=game.board, author=wolf, kind=Thread.Kind.DISCUSSION,
                       title="狼的发言", body="我是好人，相信我。", enforce_rate_limit=False)
    game = finish(game)
    reader = next(u for u in players if u != wolf)
    wolf_number = game.seats.get(user=wolf).number + 1
    url = live_server.url

    page = page_for(reader)
    page.set_viewport_size(PHONE)
    page.goto(f"{url}{game.get_absolute_url()}")
    page.click(f"#seats a[href='/games/{game.pk}/seat/{wolf_number}/posts/']")
    page.wait_for_load_state()
    assert "我是好人，相信我。" in page.inner_text(".posts")
    page.click("#seat-holders a")
    page.wait_for_load_state()
    assert page.url.endswith(f"/u/{wolf.pk}/")

    row = page.locator(f"#games-played tr[data-game='{game.pk}']")
    assert row.locator(".camp").inner_text() == "wolf"
    assert row.locator(".won").inner_text() == "负"
    assert "The wolf is dead." in row.inner_text()
    assert page.locator("#games-camps").inner_text().count("wolf") == 1
    # Nothing overflows the phone's width but the scrolling table itself.
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    screenshot(page, artifacts_dir / "profile-games-390.png", full_page=True)

    page.click("#profile-archive")
    page.wait_for_load_state()
    assert "终局" in page.inner_text("#archive")
    screenshot(page, artifacts_dir / "archive-390.png", full_page=True)
