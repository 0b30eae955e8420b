"""A newcomer in a real Chromium: sign up, verify by email, post in the lobby, write to 神的使者."""

import re

import pytest
from django.core import mail

from messaging.models import Message, Post
from tests.browser.shots import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_newcomer_signs_up_posts_and_messages_the_messenger(browser, live_server,
                                                             artifacts_dir, settings):
    settings.ACCOUNT_RATE_LIMITS = False
    from messaging import services as forum

    forum.lobby_board()
    page = browser.new_page(locale="zh-CN", timezone_id="Asia/Shanghai")
    page.set_default_timeout(20_000)
    page.goto(live_server.url + "/accounts/signup/")
    page.fill("input[name=email]", "newcat@example.com")
    page.fill("input[name=display_name]", "新来的猫")
    page.fill("input[name=password1]", "a-long-browser-pass-77")
    page.fill("input[name=password2]", "a-long-browser-pass-77")
    page.click("main form button[type=submit]")
    page.wait_for_load_state()

    from games.mail import send_due

    send_due()  # the verification mail is an outbox row; the beat would send it
    assert len(mail.outbox) == 1
    link = re.search(r"https?://\S+/accounts/confirm-email/\S+", mail.outbox[0].body).group(0)
    page.goto(live_server.url + "/" + link.split("://", 1)[1].split("/", 1)[1])
    page.click("main form button[type=submit]")
    page.wait_for_load_state()

    page.goto(live_server.url + "/accounts/login/")
    if page.locator("input[name=login]").count():
        page.fill("input[name=login]", "newcat@example.com")
        page.fill("input[name=password]", "a-long-browser-pass-77")
        page.click("main form button[type=submit]")
        page.wait_for_load_state()
    assert "新来的猫" in page.inner_text("header")

    page.goto(live_server.url + "/b/lobby/new/")
    page.fill("input[name=title]", "大家好")
    page.fill("textarea[name=body]", "我是**新来的猫**，<script>alert(1)</script>请多关照")
    page.click("main form button[type=submit]")
    page.wait_for_load_state()
    assert "新来的猫" in page.content()
    assert page.locator(".post-body strong").first.inner_text() == "新来的猫"
    assert page.locator(".post-body script").count() == 0
    post = Post.objects.get(thread__title="大家好")
    assert "<script" not in post.html

    page.goto(live_server.url + "/messenger/")
    page.fill("textarea[name=body]", "天神你好，我想报名下一局。")
    page.click("#message-form button[type=submit]")
    page.wait_for_load_state()
    assert "我想报名下一局" in page.content()
    assert Message.objects.filter(body__contains="我想报名下一局",
                                  conversation__owner__email="newcat@example.com").exists()
    screenshot(page, artifacts_dir / "signup-post-message.png", full_page=True)
