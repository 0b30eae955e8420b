"""A player writing a long reply in a real Chromium at 390 px, in Chinese: she quotes two
posts without leaving the page, reloads, is refused, opens the thread on a second device,
posts, and the box is empty everywhere after; without script the quote button keeps her text
too; a new thread refused for its empty title keeps its text. Then notices: 14 mentions on
pages 1-6, and opening only the last page reads only that page's four (the bell and the list
agree). Screenshots in var/artifacts/drafts-*.png."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from playwright.sync_api import expect

from messaging import notifications, services
from messaging.models import Draft, Notification, Post, Thread
from tests.browser.shots import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"width": 390, "height": 844}
BOX = "#reply-form textarea[name=body]"
ANALYSIS = (
    "我整理了一下第二天的票型。三号和七号在投票前后的说法对不上，"
    "尤其是三号说自己昨晚没有行动，但今天又说知道五号的身份。"
) * 6


def _context(browser, live_server, user, *, script=True):
    """A signed-in Chromium context of `user` (a device of theirs), in Chinese."""
    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    context = browser.new_context(locale="zh-CN", viewport=PHONE, java_script_enabled=script)
    context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": store.session_key, "url": live_server.url}]
    )
    page = context.new_page()
    page.set_default_timeout(20_000)
    return page


def _saved(page):
    """Wait for the box's server save (the status line says so)."""
    page.wait_for_selector("#draft-status:has-text('草稿已保存')")


@pytest.fixture
def thread(make_user):
    alice, bob, carol = make_user("阿丽"), make_user("阿博"), make_user("小卡")
    board = services.create_board(slug="game-9", title="第九局")
    thread = services.start_thread(
        board=board,
        author=bob,
        kind=Thread.Kind.DISCUSSION,
        title="第二天分析",
        body="我是预言家，昨晚验了三号，是好人。",
    )
    services.reply(
        thread=thread, author=carol, body="我不信，三号昨天的发言很可疑。", enforce_rate_limit=False
    )
    return thread, alice, bob, carol


def test_a_long_reply_survives_quotes_reloads_a_refusal_and_another_device(
    browser, live_server, thread, artifacts_dir
):
    thread, alice, bob, carol = thread
    url = f"{live_server.url}/t/{thread.pk}/"
    first, second = thread.posts.order_by("number")
    a = _context(browser, live_server, alice)
    a.goto(url)
    a.fill(BOX, ANALYSIS)
    a.type(BOX, "先说结论：")  # typed key by key, as a person does

    # 引用 on #2, then #1: inserted into the open box, the page not left.
    a.click("#p2 .quote-button")
    expect(a.locator(BOX)).to_have_value(re.compile(f"/p/{second.pk}/"))
    a.click("#p1 .quote-button")
    expect(a.locator(BOX)).to_have_value(re.compile(f"/p/{first.pk}/"))
    assert a.url == url
    text = a.input_value(BOX)
    assert text.startswith(ANALYSIS + "先说结论：")
    assert f"> [小卡 在 #2 写道：](/p/{second.pk}/)\n> 我不信，三号昨天的发言很可疑。" in text
    assert f"> [阿博 在 #1 写道：](/p/{first.pk}/)\n> 我是预言家" in text
    a.type(BOX, "三号是狼。")
    _saved(a)
    assert Draft.objects.get(user=alice, thread=thread).body == a.input_value(BOX)
    screenshot(a.locator("#reply"), artifacts_dir / "drafts-reply-box-390.png")
    screenshot(a, artifacts_dir / "drafts-thread-390.png", full_page=True)

    # Reload: still there.
    written = a.input_value(BOX)
    a.reload()
    assert a.input_value(BOX) == written

    # A refused post (too long): the page comes back with the text in the box.
    too_long = written + "补充" * 10_000
    a.fill(BOX, too_long)
    a.click("#reply-form button[type=submit]")
    a.wait_for_selector("#reply-form .refusal")
    assert "20000" in a.inner_text("#reply-form .refusal")
    assert a.input_value(BOX) == too_long
    assert Post.objects.filter(thread=thread).count() == 2

    # Another device: the server copy is in its box.
    other = _context(browser, live_server, alice)
    other.goto(url)
    assert other.input_value(BOX) == too_long

    # Posted: the box is empty after, on reload, and on the other device.
    a.fill(BOX, written)
    a.click("#reply-form button[type=submit]")
    a.wait_for_selector(".messages .draft-posted")
    assert a.input_value(BOX) == ""
    a.reload()
    assert a.input_value(BOX) == ""
    assert not Draft.objects.filter(user=alice).exists()
    assert a.evaluate(f"localStorage.getItem('forum-draft:u{alice.pk}:t{thread.pk}')") is None
    other.reload()
    assert other.input_value(BOX) == ""
    posted = Post.objects.get(thread=thread, number=3)
    assert posted.body == written.rstrip()
    # Each quoted author was told.
    assert set(
        Notification.objects.filter(post=posted, kind="quote").values_list("user_id", flat=True)
    ) == {bob.pk, carol.pk}


def test_copies_that_differ_are_both_kept(browser, live_server, thread, artifacts_dir):
    """This browser's copy and a newer server copy (another device) that share nothing: the
    newer goes into the box, the other is offered beside it and can be added."""
    thread, alice, _bob, _carol = thread
    url = f"{live_server.url}/t/{thread.pk}/"
    a = _context(browser, live_server, alice)
    a.goto(url)
    a.fill(BOX, "这台手机上写的")
    _saved(a)
    # Meanwhile on the laptop: a different text, saved later.
    Draft.objects.filter(user=alice, thread=thread).update(body="笔记本上写的")
    a.reload()
    assert a.input_value(BOX) == "笔记本上写的"
    assert a.is_visible("#draft-conflict")
    assert "这台手机上写的" in a.inner_text("#draft-conflict")
    screenshot(a.locator("#reply"), artifacts_dir / "drafts-two-copies-390.png")
    a.click("#draft-conflict button:has-text('加到末尾')")
    assert a.input_value(BOX) == "笔记本上写的\n\n这台手机上写的"


def test_without_script_the_quote_button_keeps_the_text(browser, live_server, thread):
    thread, alice, _bob, _carol = thread
    second = thread.posts.get(number=2)
    a = _context(browser, live_server, alice, script=False)
    a.goto(f"{live_server.url}/t/{thread.pk}/")
    a.fill(BOX, ANALYSIS)
    a.click("#p2 .quote-button")
    a.wait_for_load_state()
    assert a.url.endswith("#reply")
    text = a.input_value(BOX)
    assert text.startswith(ANALYSIS) and f"(/p/{second.pk}/)" in text
    a.goto(f"{live_server.url}/t/{thread.pk}/")
    assert a.input_value(BOX) == text


def test_a_new_thread_refused_for_its_title_keeps_its_text(browser, live_server, thread):
    _thread, alice, _bob, _carol = thread
    a = _context(browser, live_server, alice)
    a.goto(f"{live_server.url}/b/game-9/new/")
    a.fill("#new-thread-form textarea[name=body]", ANALYSIS)
    _saved(a)
    a.click("#new-thread-form button[type=submit]")
    a.wait_for_selector("#new-thread-form .refusal")
    assert a.input_value("#new-thread-form textarea[name=body]") == ANALYSIS
    a.reload()
    assert a.input_value("#new-thread-form textarea[name=body]") == ANALYSIS
    a.fill("input[name=title]", "第三天的票型")
    a.click("#new-thread-form button[type=submit]")
    a.wait_for_selector(".messages .draft-posted")
    a.goto(f"{live_server.url}/b/game-9/new/")
    assert a.input_value("#new-thread-form textarea[name=body]") == ""


def test_only_the_notices_of_the_page_seen_are_read(browser, live_server, make_user, artifacts_dir):
    alice, bob = make_user("阿丽"), make_user("阿博")
    board = services.create_board(slug="game-10", title="第十局")
    thread = services.start_thread(
        board=board, author=bob, kind=Thread.Kind.DISCUSSION, title="321 楼的分析", body="第一楼"
    )
    for n in range(2, 301):
        services.reply(thread=thread, author=bob, body=f"第{n}楼", enforce_rate_limit=False)
    mentioned = [3, 40, 60, 99, 120, 149, 151, 170, 200, 230, 260, 275, 290, 300]
    for post in thread.posts.filter(number__in=mentioned):
        notifications.notify(
            user=alice, kind=Notification.Kind.MENTION, actor=bob, thread=thread, post=post
        )
    a = _context(browser, live_server, alice)
    a.goto(f"{live_server.url}/t/{thread.pk}/?page=last")
    assert a.inner_text("#notification-count") == "10"
    a.click("#bell")
    a.wait_for_load_state()
    assert a.locator("#notifications .notice.unread").count() == 10
    assert a.inner_text("#notification-count") == "10"
    screenshot(a, artifacts_dir / "drafts-notices-after-last-page-390.png", full_page=True)
    unread = set(
        Notification.objects.filter(user=alice, read_at__isnull=True).values_list(
            "post__number", flat=True
        )
    )
    assert unread == {3, 40, 60, 99, 120, 149, 151, 170, 200, 230}
    # Following one notice reads it (its page's others too), nothing else.
    a.locator("#notifications .notice.unread a.notice-text").last.click()
    a.wait_for_load_state()
    assert re.search(r"#p3$", a.url)
    assert a.inner_text("#notification-count") == "8"  # page 1 held the mentions in 3 and 40
