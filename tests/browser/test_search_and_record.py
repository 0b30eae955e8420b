"""Search and a profile's record as a player uses them, in a real Chromium, at 390 px, in
Chinese: two words typed find the post holding both, with an excerpt around the hit far into
a long analysis and every hit marked; the author field filled by name keeps only that
player's posts; from a profile, 搜索该玩家的发言 lists the player's posts under a chip that
removes the filter; the profile's record (games, wins, win rate, fouls from the engine and
from the GM) and its finished games as stacked rows. Screenshots in the artifacts folder
(search-*.png, profile-record-390.png)."""

from __future__ import annotations

import pytest

from games import services
from messaging import services as forum
from messaging.models import Board
from tests.browser.shots import screenshot
from tests.factories import fresh, user_of
from tests.factories import ninelives as nl

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"width": 390, "height": 844}
FILLER = "今天天气很好，大家慢慢说。" * 125  # 1,625 characters before the hit


@pytest.fixture
def analyses(make_user):
    alice, bob, carol = make_user("阿丽"), make_user("阿博"), make_user("小卡")
    board = forum.create_board(slug="game-9", title="第九局", kind=Board.Kind.GAME)
    thread = forum.start_thread(board=board, author=bob, kind="discussion", title="第二天分析",
                                body=FILLER + "我怀疑三号拿着狼毒，二号是金水。" + FILLER,
                                enforce_rate_limit=False)
    forum.reply(thread=thread, author=alice, body="狼毒还在场上吗？", enforce_rate_limit=False)
    forum.reply(thread=thread, author=alice, body="阿博说二号是金水，我不信。",
                enforce_rate_limit=False)
    forum.reply(thread=thread, author=bob, body="今晚我先睡了。", enforce_rate_limit=False)
    return alice, bob, carol, thread


def test_two_words_and_an_author_found_as_a_player_types_them(page_for, live_server,
                                                              analyses, artifacts_dir):
    alice, bob, carol, thread = analyses
    page = page_for(carol)
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/")
    page.click("#search-link")
    page.wait_for_load_state()
    page.fill("#search-q", "狼毒 金水")
    page.click("#search-form button[type=submit]")
    page.wait_for_load_state()
    results = page.locator("#search-results > li.result")
    assert results.count() == 1  # only 阿博's analysis holds both words
    first = results.first
    assert first.locator("a.title").inner_text() == "第二天分析 #1"
    excerpt = first.locator(".excerpt")
    assert "我怀疑三号拿着狼毒，二号是金水。" in excerpt.inner_text()
    assert excerpt.inner_text().startswith("…")
    assert excerpt.locator("mark").all_inner_texts() == ["狼毒", "金水"]
    # The excerpt and its marks are on the screen, not cut off below a fold.
    assert first.locator("mark").first.is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, artifacts_dir / "search-two-words-390.png", full_page=True)

    # One word, then the author field by name: 阿丽's posts only, not 阿博's that mention her.
    page.fill("#search-q", "金水")
    page.fill("#search-by", "阿丽")
    page.click("#search-form button[type=submit]")
    page.wait_for_load_state()
    titles = page.locator("#search-results a.title").all_inner_texts()
    assert titles == ["第二天分析 #3"]
    assert "阿丽" in page.inner_text("#chip-author")
    screenshot(page, artifacts_dir / "search-author-390.png", full_page=True)


def test_searching_a_players_posts_from_the_profile(page_for, live_server, analyses,
                                                    artifacts_dir):
    alice, bob, carol, thread = analyses
    page = page_for(carol)
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/u/{bob.pk}/")
    page.click("#profile-search")  # 搜索该玩家的发言
    page.wait_for_load_state()
    # The filter is shown and the player's posts are listed at once.
    assert "阿博" in page.inner_text("#chip-author")
    assert page.input_value("#search-by") == "阿博"
    assert page.locator("#search-results a.title").all_inner_texts() == [
        "第二天分析 #4", "第二天分析 #1"]
    screenshot(page, artifacts_dir / "search-profile-link-390.png", full_page=True)

    # A word within the player's posts, then the chip removed: every author again.
    page.fill("#search-q", "金水")
    page.click("#search-form button[type=submit]")
    page.wait_for_load_state()
    assert page.locator("#search-results a.title").all_inner_texts() == ["第二天分析 #1"]
    page.click("#chip-author .chip-remove")
    page.wait_for_load_state()
    assert page.locator("#chip-author").count() == 0
    assert page.input_value("#search-by") == ""
    assert page.locator("#search-results a.title").all_inner_texts() == [
        "第二天分析 #3", "第二天分析 #1"]


def test_a_profiles_record_and_stacked_games_at_390(page_for, live_server, start_ninelives,
                                                    nl_gm, artifacts_dir):
    """Day 1 ends without votes: the engine puts out the seats that owed one; the GM puts
    out the rest of the killers and wolves. The profile counts the engine's foul."""
    game = start_ninelives()
    for seat, order in nl.default_orders(nl.FIVE).items():
        nl.act(game, seat, "loss_order", cards=order)
    for seat in range(5):
        nl.act(game, seat, "pass")
    services.end_phase_now(game_id=game.pk, gm=nl_gm)
    for seat in (0, 1):
        current = fresh(game)
        if current.status == current.Status.RUNNING and current.seats.get(number=seat).alive:
            services.gm_step(game_id=game.pk, gm=nl_gm, kind="foul_out",
                             params={"seat": seat, "reason": "两天没发言"})
    game = fresh(game)
    assert game.status == game.Status.FINISHED
    player = user_of(game, 4)

    page = page_for(user_of(game, 2))
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/u/{player.pk}/")
    assert page.inner_text("#overall-games") == "1"
    assert page.inner_text("#overall-fouls") == "1"
    assert page.inner_text("#overall-rate").endswith("%")
    row = page.locator(f"#games-played tr[data-game='{game.pk}']")
    assert row.locator('td[data-label="犯规"]').inner_text() == "1"
    # Stacked rows: each cell a line of its own, as wide as the row; nothing wider than
    # the phone.
    cells = row.locator("td:visible")
    boxes = [cells.nth(i).bounding_box() for i in range(cells.count())]
    assert len({round(b["x"]) for b in boxes}) == 1
    assert all(later["y"] >= earlier["y"] + earlier["height"] - 1
               for earlier, later in zip(boxes, boxes[1:], strict=False))
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page.locator("#profile-games"), artifacts_dir / "profile-record-390.png")
    screenshot(page, artifacts_dir / "profile-record-page-390.png", full_page=True)


def test_search_with_chips_and_marks_passes_axe(browser, live_server, analyses):
    """The search page with results, marks and a chip, and the profile with its record:
    no serious or critical finding of axe-core (vendored), at 390 px."""
    from pathlib import Path

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    alice, bob, carol, thread = analyses
    store = SessionStore()
    store[SESSION_KEY] = str(carol.pk)
    store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    store[HASH_SESSION_KEY] = carol.get_session_auth_hash()
    store.create()
    context = browser.new_context(locale="zh-CN", bypass_csp=True, viewport=PHONE)
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": store.session_key,
                          "url": live_server.url}])
    page = context.new_page()
    axe = (Path(__file__).resolve().parent / "vendor" / "axe.min.js").read_text("utf-8")
    for path in (f"/search/?q=狼毒+金水&by=阿博&board={thread.board.slug}",
                 f"/search/?author={bob.pk}", f"/u/{bob.pk}/"):
        assert page.goto(live_server.url + path).status == 200
        page.add_script_tag(content=axe)
        found = page.evaluate("""async () => (await axe.run(document,
            {resultTypes: ["violations"]})).violations.map(v => [v.id, v.impact])""")
        assert not [v for v in found if v[1] in ("serious", "critical")], (path, found)
    context.close()
