"""Bookmarks, watching, reports and the pages' reach, walked in Chromium at 390 px as a
person does: bookmark a post and find it in 我的收藏; watch a thread, another player replies
three times, one grouped notice; report a post and the GM reads it in the console; Tab once
from page load reaches the skip link and Enter lands in the page's form (thread, vote
thread, act page); every link, button and radio row of those pages at least 24 x 24 px;
axe in the light and the dark theme (0 serious, 0 critical, the target-size rule on).
Screenshots under var/artifacts/reach/."""

from __future__ import annotations

import pytest
from django.urls import reverse

from messaging import services
from messaging.models import Bookmark, Notification, Report, Thread
from tests.browser.a11y import MEASURE, MIN, axe_findings, blocking
from tests.browser.shots import screenshot
from tests.factories import fresh
from tests.proof.crawl import end_current_phase

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def out(artifacts_dir):
    path = artifacts_dir / "reach"
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def phone(browser, live_server):
    """phone(user) -> a 390 px Chromium page signed in as `user`, able to run axe (the
    page's content security policy bypassed for the test's own script only)."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    def make(user):
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        context = browser.new_context(
            locale="zh-CN", bypass_csp=True, viewport=PHONE, timezone_id="Asia/Shanghai"
        )
        context.add_cookies(
            [
                {
                    "name": settings.SESSION_COOKIE_NAME,
                    "value": store.session_key,
                    "url": live_server.url,
                }
            ]
        )
        page = context.new_page()
        page.set_default_timeout(20_000)
        return page

    return make


def _axe(page, scheme: str) -> list[dict]:
    """axe's serious and critical violations of the page as shown in `scheme`."""
    return blocking(axe_findings(page, scheme))


def _ninelives_pages(start_ninelives):
    """A running 猫有n条命 game on its first day: (seated user, thread, vote thread, act path)."""
    game = start_ninelives()
    end_current_phase(game)
    game = fresh(game)
    seat = game.seats.get(number=1)
    vote = Thread.objects.get(board=game.board, key=f"vote-{game.current_phase.seq}")
    other = game.seats.get(number=2).user
    thread = services.start_thread(
        board=game.board,
        author=other,
        kind=Thread.Kind.ANALYSIS,
        title="第一天分析",
        body="我认为三号可疑，[理由见此](https://example.com/) 。",
        enforce_rate_limit=False,
    )
    for n in range(3):
        services.reply(thread=thread, author=other, body=f"补充{n}", enforce_rate_limit=False)
    return game, seat.user, thread, vote, reverse("game-act", args=[game.pk])


def test_bookmark_a_post_and_find_it_in_my_bookmarks(phone, live_server, make_user, out):
    alice, bob = make_user("阿丽"), make_user("阿博")
    board = services.create_board(slug="game-9", title="第九局")
    thread = services.start_thread(
        board=board, author=alice, kind=Thread.Kind.DISCUSSION, title="复盘", body="开头"
    )
    services.reply(thread=thread, author=alice, body="三号昨晚的发言前后矛盾。")
    page = phone(bob)
    page.goto(live_server.url + thread.get_absolute_url())
    page.click("#p2 .bookmark-link")
    page.click("#main-form button[type=submit]")
    page.wait_for_load_state()
    assert "已收藏" in page.inner_text(".messages")
    page.goto(live_server.url + reverse("messaging-notifications"))
    page.click("#bookmarks-link")
    page.wait_for_load_state()
    screenshot(page, out / "bookmarks.png", full_page=True)
    assert "三号昨晚的发言前后矛盾" in page.inner_text("#bookmarks")
    page.click("#bookmarks .bookmark a.title")
    page.wait_for_load_state()
    assert page.url.endswith("#p2")
    assert Bookmark.objects.filter(user=bob).count() == 1


def test_watch_a_thread_and_three_replies_are_one_notice(phone, live_server, make_user, out):
    alice, bob, carol = make_user("阿丽"), make_user("阿博"), make_user("小卡")
    board = services.create_board(slug="game-10", title="第十局")
    thread = services.start_thread(
        board=board, author=alice, kind=Thread.Kind.DISCUSSION, title="投票讨论", body="开头"
    )
    page = phone(bob)
    page.goto(live_server.url + thread.get_absolute_url())
    page.click("#watch-link")
    page.check("input[name=level][value=watching]")
    page.click("#main-form button[type=submit]")
    page.wait_for_load_state()
    assert "你已订阅这个主题" in page.inner_text(".messages")
    for text in ("我投三号", "我也投三号", "三号请解释"):
        services.reply(thread=thread, author=carol, body=text)
    page.goto(live_server.url + "/")
    assert page.inner_text("#notification-count") == "1"
    page.click("#bell")
    page.wait_for_load_state()
    screenshot(page, out / "grouped-notice.png", full_page=True)
    notices = page.locator("#notifications .notice")
    assert notices.count() == 1
    text = notices.first.inner_text()
    assert "“投票讨论”有 3 条新帖" in text and "三号请解释" in text
    page.click("#notifications .notice-text")
    page.wait_for_load_state()
    assert page.url.endswith("#p2")  # the first of the three new posts
    assert Notification.objects.get(user=bob).count == 3


def test_report_a_post_and_the_gm_reads_it_in_the_console(phone, live_server, start_ninelives, out):
    game, player, thread, _vote, _act = _ninelives_pages(start_ninelives)
    page = phone(player)
    page.goto(live_server.url + thread.get_absolute_url())
    page.click("#p2 .report-link")
    page.fill("#report-reason", "在分析帖里公开了私密结果。")
    page.click("#main-form button[type=submit]")
    page.wait_for_load_state()
    told = page.inner_text("main")
    assert "举报已发送给天神" in told
    assert game.gm.profile.display_name not in told
    screenshot(page, out / "report-sent.png", full_page=True)
    gm_page = phone(game.gm)
    gm_page.goto(live_server.url + reverse("admin:games_game_console", args=[game.pk]))
    reports = gm_page.inner_text("#reports")
    assert "在分析帖里公开了私密结果。" in reports and "第一天分析 #2" in reports
    screenshot(gm_page, out / "console-reports.png", full_page=True)
    gm_page.click("#reports input[type=submit]")
    gm_page.wait_for_load_state()
    assert Report.objects.get().handled_by == game.gm


def test_tab_once_reaches_the_skip_link_and_enter_lands_in_the_form(
    phone, live_server, start_ninelives
):
    _game, player, thread, vote, act = _ninelives_pages(start_ninelives)
    page = phone(player)
    for path, form in (
        (thread.get_absolute_url(), "reply-form"),
        (vote.get_absolute_url(), "vote-form"),
        (act, "action-form"),
    ):
        page.goto(live_server.url + path)
        page.keyboard.press("Tab")
        focused = page.evaluate(
            "() => [document.activeElement.id, document.activeElement.innerText]"
        )
        assert focused == ["skip-link", "跳到表单"], (path, focused)
        box = page.locator("#skip-link").bounding_box()
        assert box["y"] >= 0 and box["height"] >= MIN and box["width"] >= MIN  # seen when focused
        page.keyboard.press("Enter")
        page.keyboard.press("Tab")
        inside = page.evaluate(f"() => !!document.activeElement.closest('#{form}')")
        assert inside, (path, page.evaluate("() => document.activeElement.outerHTML"))


def test_every_target_is_at_least_24_px_at_390(phone, live_server, start_ninelives, out):
    _game, player, thread, vote, act = _ninelives_pages(start_ninelives)
    page = phone(player)
    small = {}
    for path, name in (
        (thread.get_absolute_url(), "thread"),
        (vote.get_absolute_url(), "vote"),
        (act, "act"),
    ):
        page.goto(live_server.url + path)
        sizes = page.evaluate(MEASURE)
        assert len(sizes) > 10, name
        small[name] = [s for s in sizes if s["width"] < MIN or s["height"] < MIN]
    assert small == {"thread": [], "vote": [], "act": []}


@pytest.mark.slow(seconds=12)
def test_forum_pages_pass_axe_in_both_themes(phone, live_server, start_ninelives, out):
    game, player, thread, vote, act = _ninelives_pages(start_ninelives)
    post = thread.posts.get(number=2)
    page = phone(player)
    page.goto(live_server.url + reverse("messaging-post-bookmark", args=[post.pk]))
    page.click("#main-form button[type=submit]")
    page.wait_for_load_state()
    pages = [
        (thread.get_absolute_url(), "thread"),
        (vote.get_absolute_url(), "vote"),
        (act, "act"),
        (reverse("messaging-notifications"), "notifications"),
        (reverse("messaging-bookmarks"), "bookmarks"),
        (reverse("messaging-post-report", args=[post.pk]), "report"),
        (reverse("messaging-thread-watch", args=[thread.pk]), "watch"),
        (reverse("messaging-search") + "?q=三号", "search"),
        (game.board.get_absolute_url(), "board"),
        ("/", "home"),
    ]
    failing = {}
    for path, name in pages:
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            response = page.goto(live_server.url + path)
            assert response.status == 200, (path, response.status)
            if name == "thread":
                screenshot(page, out / f"thread-{scheme}.png", full_page=True)
                # The theme follows the system: a dark page in the dark scheme.
                background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
                dark = background == "rgb(22, 21, 24)"
                assert dark == (scheme == "dark"), (scheme, background)
            blocking = _axe(page, scheme)
            if blocking:
                failing[f"{name} ({scheme})"] = blocking
    assert not failing, failing
