"""Time in the reader's zone and the navigation of a long thread, in Chromium at 390 px:
a reader whose browser says America/New_York reads New York times with the zone named once;
the floor jump lands on floor 137; the 以下是新回复 divider and the 跳到第一条未读 link; the
只看这些作者 picker; the home page's 最新主题 within the first phone screen. Screenshots of
the thread page and the home page in Chinese."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from accounts.models import Profile
from messaging import services
from messaging.models import Post, Thread, ThreadReadState
from messaging.rendering import render_markdown
from tests.browser.shots import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"width": 390, "height": 844}
WRITTEN = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)  # 07:00 in New York, 20:00 Shanghai


def long_thread(alice, bob, posts=321) -> Thread:
    """`posts` posts, bob writing every third one from #3, all written at WRITTEN."""
    board = services.lobby_board()
    thread = services.start_thread(
        board=board,
        author=alice,
        kind=Thread.Kind.DISCUSSION,
        title="三百二十一楼的分析",
        body="一楼",
        enforce_rate_limit=False,
    )
    html = render_markdown("我的分析：三号像狼。")
    Post.objects.bulk_create(
        Post(thread=thread, number=i, author=bob if i % 3 == 0 else alice, body="x", html=html)
        for i in range(2, posts + 1)
    )
    last = thread.posts.order_by("-number").first()
    Post.objects.filter(thread=thread).update(created_at=WRITTEN)
    Thread.objects.filter(pk=thread.pk).update(
        last_number=posts, post_count=posts, last_post=last, last_post_at=WRITTEN
    )
    thread.refresh_from_db()
    return thread


def test_a_new_york_reader_sees_new_york_times_and_the_zone_once(
    page_for, live_server, make_user, artifacts_dir
):
    alice, bob = make_user("阿丽"), make_user("阿博")
    thread = long_thread(alice, bob, posts=60)
    Post.objects.filter(thread=thread, number=2).update(
        created_at=dt.datetime.now(dt.UTC) - dt.timedelta(hours=3, minutes=5)
    )
    page = page_for(bob, timezone_id="America/New_York")
    page.set_viewport_size(PHONE)
    with page.expect_response(lambda r: "/profile/timezone/" in r.url):
        page.goto(f"{live_server.url}{thread.get_absolute_url()}")
    # The browser's zone was kept and the page read again in it.
    page.wait_for_function(
        "document.getElementById('timezone-note').dataset.timezone === 'America/New_York'"
    )
    profile = Profile.objects.get(user=bob)
    assert (profile.timezone, profile.timezone_origin) == ("America/New_York", "browser")
    text = page.inner_text("body")
    assert text.count("纽约") == 1 and "America/New_York" not in text
    assert "UTC-05:00 美国（纽约）" in page.inner_text("#site-footer")
    first = page.locator("#p1 time").first
    assert first.inner_text() == "2026-01-01 07:00"
    # The relative hint after each time, in Chinese ("3 小时前").
    assert re.fullmatch(r" · 3 ?小时前", page.locator("#p2 .ago").first.inner_text())
    assert page.locator("#p1 .ago").first.inner_text() == " · 去年"
    screenshot(page, artifacts_dir / "thread-new-york-390.png", full_page=False)
    # Asked once: the next page asks nothing.
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/profile/timezone/" in r.url else None)
    page.goto(f"{live_server.url}{thread.get_absolute_url()}?page=2")
    page.wait_for_load_state("networkidle")
    assert asked == []


def test_a_reader_jumps_to_floor_137_and_to_the_first_unread_post(
    page_for, live_server, make_user, artifacts_dir
):
    alice, bob = make_user("阿丽"), make_user("阿博")
    thread = long_thread(alice, bob)
    ThreadReadState.objects.create(user=bob, thread=thread, last_read_number=60)
    page = page_for(bob)
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}{thread.get_absolute_url()}")
    screenshot(page, artifacts_dir / "thread-navigation-390.png", full_page=False)
    # Numbered pages, the current one marked, two navs labelled apart.
    labels = page.locator("nav.pagination").evaluate_all("n => n.map(e => e.ariaLabel)")
    assert labels == ["分页（上）", "分页（下）"]
    assert page.locator("nav.pagination").first.locator("[aria-current=page]").inner_text() == "1"
    # 跳到第一条未读: page 2, at the divider.
    page.click("#first-unread-link")
    page.wait_for_load_state()
    assert "page=2" in page.url
    page.click("#first-unread-link")  # on this page: the anchor
    divider = page.locator("#new")
    assert divider.inner_text() == "以下是新回复"
    box = divider.bounding_box()
    assert box is not None and -2 <= box["y"] < PHONE["height"]
    assert page.evaluate("document.getElementById('new').nextElementSibling.id") == "p61"
    screenshot(page, artifacts_dir / "thread-unread-divider-390.png", full_page=False)
    # 第 [137] 楼 → the page holding it, scrolled to it.
    page.fill("#jump-floor-1", "137")
    page.locator("#jump-floor-1").press("Enter")
    page.wait_for_load_state()
    assert page.url.endswith("?page=3#p137")
    box = page.locator("#p137").bounding_box()
    assert box is not None and -2 <= box["y"] < PHONE["height"]
    # 跳转到第 [5] 页
    page.fill("#jump-page-1", "5")
    page.locator("#jump-page-1").press("Enter")
    page.wait_for_load_state()
    assert "page=5" in page.url and page.locator("#p201").count() == 1


def test_a_reader_picks_two_authors(page_for, live_server, make_user, artifacts_dir):
    alice, bob = make_user("阿丽"), make_user("阿博")
    carol = make_user("阿卡")
    thread = long_thread(alice, bob, posts=40)
    Post.objects.filter(thread=thread, number__in=[5, 10]).update(author=carol)
    thread.refresh_from_db()
    Thread.objects.filter(pk=thread.pk).update(version=thread.version + 1)
    page = page_for(carol)
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}{thread.get_absolute_url()}")
    page.click("#iso-picker summary")
    page.get_by_label("阿博").check()
    page.get_by_label("阿卡").check()
    screenshot(page, artifacts_dir / "thread-author-picker-390.png", full_page=False)
    page.click("#iso-picker button[type=submit]")
    page.wait_for_load_state()
    assert f"author={bob.pk}&author={carol.pk}" in page.url
    banner = page.inner_text("#iso-banner")
    assert "阿博" in banner and "阿卡" in banner and "阿丽" not in banner
    numbers = [int(n) for n in re.findall(r"#(\d+)", page.inner_text("ol.posts"))]
    assert 5 in numbers and 3 in numbers and 1 not in numbers


def test_the_home_page_shows_latest_threads_on_the_first_phone_screen(
    page_for, live_server, make_user, gm, toy_ruleset, artifacts_dir
):
    from games import services as games

    player = make_user("阿丽")
    others = [make_user(f"玩家{i}") for i in range(16)]
    for i in range(3):  # three running games the player sits in, each with its board
        game = games.create_game(name=f"第{i + 1}局", ruleset="toy", gm=gm, seat_count=5)
        games.start_game(
            game_id=game.pk, users=[player, *others[i * 4 : i * 4 + 4]], seed="fixed-seed"
        )
    for i in range(2):  # two games open for sign-up
        game = games.create_game(name=f"报名局{i + 1}", ruleset="toy", gm=gm, seat_count=5)
        games.open_signups(game_id=game.pk, gm=gm)
    board = services.lobby_board()
    for i in range(12):
        services.create_board(slug=f"old-game-{i}", title=f"旧局{i + 1}")
        services.start_thread(
            board=board,
            author=others[i],
            kind=Thread.Kind.DISCUSSION,
            title=f"讨论{i}",
            body="内容",
            enforce_rate_limit=False,
        )
    page = page_for(player)
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/")
    screenshot(page, artifacts_dir / "lobby-390.png", full_page=False)
    heading = page.locator("#latest-title")
    assert heading.inner_text() == "最新主题"
    box = heading.bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE["height"]
    first_row = page.locator("#latest .thread-row").first.bounding_box()
    assert first_row is not None and first_row["y"] + first_row["height"] <= PHONE["height"]


def test_a_reader_not_signed_in_gets_their_zone_and_language_from_a_kept_page(
    browser, live_server, make_user, artifacts_dir
):
    """A page read without signing in is kept whole and holds nothing of its reader: the
    browser's zone becomes a cookie written by the page's script (the page is read again in
    New York time), and the language menu, a GET, switches to English and back to the same
    page; neither asks the server for a token."""
    alice, bob = make_user("阿丽"), make_user("阿博")
    thread = long_thread(alice, bob, posts=60)
    context = browser.new_context(locale="zh-CN", timezone_id="America/New_York")
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.set_viewport_size(PHONE)
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/profile/timezone/" in r.url else None)
    page.goto(f"{live_server.url}{thread.get_absolute_url()}?page=2")
    page.wait_for_selector("#timezone-note[data-timezone='America/New_York']", state="attached")
    assert asked == []  # the zone is a cookie the script writes
    assert page.locator("html").get_attribute("lang") == "zh-hans"
    assert page.locator("#p51 time").first.inner_text() == "2026-01-01 07:00"
    assert "UTC-05:00 美国（纽约）" in page.inner_text("#site-footer")
    assert page.locator("input[name=csrfmiddlewaretoken]").count() == 0
    screenshot(page, artifacts_dir / "thread-anonymous-new-york-390.png")
    # The language menu: English is not the first option; choosing does not submit.
    page.select_option("select[name=language]", "en")
    assert page.url.endswith("?page=2")
    page.click(".lang button[type=submit]")
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("lang") == "en"
    assert page.url == f"{live_server.url}{thread.get_absolute_url()}?page=2"
    assert page.locator("#p51").count() == 1  # the same page, in English
    assert page.locator("select[name=language]").input_value() == "en"  # kept selected
    page.select_option("select[name=language]", "zh-hans")
    page.click(".lang button[type=submit]")
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("lang") == "zh-hans"
    context.close()
