"""Two players in a real Chromium: they post, quote and mention each other in a board; one
reads the bell, jumps to the first unread floor, uses 只看该作者 on the other, searches a
two-character Chinese word and opens the other's profile. Screenshots at 390 px."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from messaging import services
from messaging.models import Post, ThreadReadState
from tests.browser.shots import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"width": 390, "height": 844}
BOX = "#reply-form textarea[name=body]"


def _write(page, text):
    page.fill("#reply-form textarea[name=body]", text)
    page.click("#reply-form button[type=submit]")
    page.wait_for_load_state()


def test_two_players_argue_and_one_catches_up(page_for, live_server, make_user, artifacts_dir):
    alice = make_user("阿丽")
    bob = make_user("阿博")
    board = services.create_board(slug="game-7", title="第七局")
    url = live_server.url

    # 阿丽 opens a thread; 阿博 quotes her and mentions her; 阿丽 answers with a mention.
    a = page_for(alice)
    a.set_viewport_size(PHONE)
    a.goto(f"{url}/b/{board.slug}/new/")
    a.fill("input[name=title]", "第一天讨论")
    a.fill("textarea[name=body]", "我是金水，昨晚验了三号。")
    a.click("#new-thread-form button[type=submit]")
    a.wait_for_load_state()
    thread = Post.objects.get(body__startswith="我是金水").thread
    b = page_for(bob)
    b.set_viewport_size(PHONE)
    b.goto(f"{url}/t/{thread.pk}/")
    # 引用 writes the quote into the open box (the page is not left; tests/browser/
    # test_drafts_and_notices.py walks it), and 阿博 writes under it.
    b.click("#p1 .quote-button")
    expect(b.locator(BOX)).to_have_value(re.compile(r"/p/[0-9]+/"))
    quoted = b.input_value(BOX)
    # The preview shows the post as it will be (the mention already a link), without posting.
    b.fill("#reply-form textarea[name=body]", "@阿丽 你不是**金水**")
    b.click("#reply-form button[data-preview-url]")
    b.wait_for_selector("#preview strong")
    assert b.inner_text("#preview strong") == "金水"
    assert b.locator("#preview a").first.inner_text() == "@阿丽"
    assert Post.objects.filter(thread=thread).count() == 1
    _write(b, quoted + "@阿丽 你不是金水，别骗人。")
    _write(a, "@阿博 我有验人记录，请看 https://example.com/log 。")
    assert ThreadReadState.objects.get(user=alice, thread=thread).last_read_number == 3

    # 阿博 writes three more floors while 阿丽 is away, quoting and mentioning her.
    for text in ["我再说一次：三号是好人。", "@阿丽 解释一下你的金水。", "大家投阿丽。"]:
        _write(b, text)
    b.click("#p3 .quote-button")
    expect(b.locator(BOX)).to_have_value(re.compile(r"/p/[0-9]+/"))
    _write(b, b.input_value(BOX) + "这个链接是假的。")

    # 阿丽 sees the bell, reads her notifications.
    a.goto(f"{url}/")
    count = int(a.inner_text("#notification-count"))
    assert count >= 3  # quote, mentions, replies in her thread (one per post)
    a.click("#bell")
    a.wait_for_load_state()
    assert "提到了你" in a.inner_text("#notifications")
    assert "引用了你的发言" in a.inner_text("#notifications")
    screenshot(a, artifacts_dir / "forum-notifications-390.png", full_page=True)

    # The board marks the thread new; its link jumps to the first unread floor (#4).
    a.goto(f"{url}/b/{board.slug}/")
    row = a.locator(f'[data-thread="{thread.pk}"]')
    assert "4 条新帖" in row.inner_text()
    screenshot(a, artifacts_dir / "forum-board-unread-390.png", full_page=True)
    row.locator("a.title").click()
    a.wait_for_load_state()
    assert a.url.endswith("#p4")
    assert ThreadReadState.objects.get(user=alice, thread=thread).last_read_number == 7
    a.goto(f"{url}/b/{board.slug}/")
    assert a.locator(f'[data-thread="{thread.pk}"] .new-mark').count() == 0
    a.goto(f"{url}/")
    assert a.locator("#notification-count").count() == 0  # reading the thread read them

    # 只看该作者 on 阿博: only his five floors, with their numbers.
    a.goto(f"{url}/t/{thread.pk}/")
    a.locator("#p2 .iso-link").click()
    a.wait_for_load_state()
    floors = [int(n) for n in re.findall(r"p(\d+)", " ".join(
        a.locator("ol.posts > li").evaluate_all("els => els.map(e => e.id)")))]
    assert floors == [2, 4, 5, 6, 7]
    assert "阿博" in a.inner_text("#iso-banner")
    screenshot(a, artifacts_dir / "forum-thread-iso-390.png", full_page=True)

    # A two-character word; the result leads to the post.
    a.click("#search-link")
    a.wait_for_load_state()
    a.fill("#search-q", "金水")
    a.click("#search-form button[type=submit]")
    a.wait_for_load_state()
    results = a.inner_text("#search-results")
    assert "第一天讨论 #1" in results and "第一天讨论 #2" in results
    assert "第一天讨论 #5" in results

    # 阿博's profile, from his name on a post.
    a.goto(f"{url}/t/{thread.pk}/")
    a.locator("#p2 .author a").click()
    a.wait_for_load_state()
    assert a.inner_text("#profile-name") == "阿博"
    assert a.inner_text("#post-count") == "5 帖"
