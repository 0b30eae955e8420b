"""Every account email (allauth's, through web/adapter.py and the project's own
templates/account/email/) is whole Chinese for a Chinese reader and whole English for an
English one, greets and signs with the site's name (settings.SITE_NAME), and leaves as
plain text without Markdown and an HTML alternative of the posts' safe Markdown."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from allauth.account.adapter import get_adapter
from django.core import mail
from django.urls import reverse
from django.utils import translation

from games.mail import send_due
from tests.services.test_email_bodies import MARKDOWN

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese")]
PASSWORD = "a-strong-password-42"
ALLAUTH_EMAILS = Path(__import__("allauth").__file__).parent / "templates/account/email"
OURS = Path(__file__).resolve().parents[2] / "templates/account/email"
# Every email allauth can send: a <prefix>_subject.txt and <prefix>_message.txt each.
KINDS = sorted(p.name.removesuffix("_subject.txt") for p in ALLAUTH_EMAILS.glob("*_subject.txt"))
CJK = re.compile(r"[\u4e00-\u9fff]")


def checked(message, *, chinese: bool = True) -> tuple[str, str]:
    text = message.body
    assert not MARKDOWN.search(text), text
    [(html, mime)] = message.alternatives
    assert mime == "text/html" and "<script" not in html.lower()
    if chinese:
        assert message.subject.startswith("[杀人游戏] ") and CJK.search(message.subject)
        assert "杀人游戏" in text and "Hello" not in text and "Thank" not in text
        for empty in ("来自的", "在  上", "使用 ！", "[]", "  上注册"):
            assert empty not in text, text
        # whole sentences in Chinese: no line of English words beyond names and addresses
        for line in text.split("\n"):
            words = re.sub(r"https?://\S+|\S+@\S+|[A-Z0-9]{4,}", "", line)
            assert not re.search(r"[A-Za-z]{3,} [A-Za-z]{3,}", words), line
    return text, html


def signup(client, email="cat@example.com", name="九命猫"):
    response = client.post(
        reverse("account_signup"),
        {"email": email, "password1": PASSWORD, "password2": PASSWORD, "display_name": name},
    )
    send_due()
    return response


def test_every_allauth_email_has_its_own_text_here():
    assert len(KINDS) == 13
    for kind in KINDS:
        assert (OURS / f"{kind}_subject.txt").is_file(), kind
        assert (OURS / f"{kind}_message.txt").is_file(), kind


def test_the_sign_up_confirmation_greets_the_reader_in_chinese_with_the_sites_name(client):
    signup(client)
    text, html = checked(mail.outbox[0])
    assert mail.outbox[0].subject == "[杀人游戏] 请确认你的邮箱地址"
    assert text.startswith("九命猫，你好！\n\n有人（希望是你）用这个邮箱地址在杀人游戏注册了账户")
    link = re.search(r"http://127\.0\.0\.1/accounts/confirm-email/\S+", text).group(0)
    assert f'href="{link}"' in html
    assert "—— 杀人游戏\nhttp://127.0.0.1" in text


def test_signing_up_again_with_the_address_says_so_in_chinese(client, make_user):
    user = make_user("阿猫")
    response = signup(client, email=user.email, name="又一个")
    assert response.status_code == 302
    [message] = mail.outbox
    text, _html = checked(message)
    assert message.subject == "[杀人游戏] 你已经有账户了"
    assert user.email in text and "/accounts/password/reset/" in text


def test_a_password_reset_and_an_unknown_address_are_in_chinese(client, make_user):
    user = make_user("阿猫")
    client.post(reverse("account_reset_password"), {"email": user.email})
    client.post(reverse("account_reset_password"), {"email": "nobody@example.com"})
    send_due()
    reset, unknown = sorted(mail.outbox, key=lambda m: m.to[0] != user.email)
    text, _html = checked(reset)
    assert reset.subject == "[杀人游戏] 设置新密码" and text.startswith("阿猫，你好！")
    assert "/accounts/password/reset/key/" in text
    text, _html = checked(unknown)
    assert unknown.subject == "[杀人游戏] 没有账户使用这个地址" and "/accounts/signup/" in text


CONTEXTS = {
    "code": "ABCD12",
    "ip": "203.0.113.9",
    "user_agent": "Firefox/128.0",
    "from_email": "old@example.com",
    "to_email": "new@example.com",
    "deleted_email": "gone@example.com",
    "activate_url": "http://x/confirm/k/",
    "password_reset_url": "http://x/reset/k/",
    "signup_url": "http://x/signup/",
    "timestamp": "2026-05-01 12:00",
}


@pytest.mark.parametrize("kind", KINDS)
def test_each_account_email_is_whole_chinese_with_the_sites_name(kind, make_user):
    user = make_user("阿猫")
    with translation.override("zh-hans"):
        get_adapter().send_mail(f"account/email/{kind}", user.email, dict(CONTEXTS, user=user))
    send_due()
    [message] = mail.outbox
    text, html = checked(message)
    assert text.startswith("阿猫，你好！") and "—— 杀人游戏" in text
    assert "<p>阿猫，你好！</p>" in html


@pytest.mark.parametrize("kind", ["password_reset_key", "email_changed", "unknown_account"])
def test_an_english_reader_gets_the_email_in_english(kind, make_user):
    user = make_user("阿猫")
    user.profile.language = "en"
    user.profile.save()
    get_adapter().send_mail(f"account/email/{kind}", user.email, dict(CONTEXTS, user=user))
    send_due()
    [message] = mail.outbox
    text, _html = checked(message, chinese=False)
    assert message.subject.startswith("[Killing Games] ")
    assert text.startswith("Hello 阿猫,") and "— Killing Games" in text
    assert not CJK.search(text.replace("阿猫", ""))


def test_what_a_visitor_typed_makes_no_link_or_emphasis(make_user):
    user = make_user("阿猫")
    agent = "[点我](https://evil.example/) **急** <script>alert(1)</script> # 标题"
    get_adapter().send_mail(
        "account/email/password_changed", user.email, dict(CONTEXTS, user=user, user_agent=agent)
    )
    send_due()
    [message] = mail.outbox
    [(html, _mime)] = message.alternatives
    assert agent in message.body  # shown exactly as the browser described itself
    assert "evil.example" not in re.findall(r'href="([^"]*)"', html).__str__()
    assert "<strong>" not in html and "<script" not in html and "&lt;script&gt;" in html


def test_the_site_name_comes_from_the_settings(settings, make_user):
    settings.SITE_NAME = "北邮杀人版"
    user = make_user("阿猫")
    get_adapter().send_mail(
        "account/email/password_reset_key", user.email, dict(CONTEXTS, user=user)
    )
    send_due()
    [message] = mail.outbox
    assert message.subject == "[北邮杀人版] 设置新密码"
    assert "你在北邮杀人版的账户密码" in message.body or "北邮杀人版" in message.body
