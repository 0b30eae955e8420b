"""Posts by 神的使者 and by staff carry a badge that no user
content can produce; a post imitating the badge's HTML or class does not render as one."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from messaging import services
from messaging.models import Thread
from messaging.rendering import BADGE_CLASS, render_markdown

pytestmark = pytest.mark.django_db

IMITATIONS = [
    f'<span class="{BADGE_CLASS} {BADGE_CLASS}-official">Official</span>',
    f'<strong class="author">神的使者</strong><span class="{BADGE_CLASS}">Official</span>',
    f'[Official](https://x.example "{BADGE_CLASS}"){{: .{BADGE_CLASS}}}',
    f'`<span class="{BADGE_CLASS}">`',
    f"| a |\n|---|\n| <span class={BADGE_CLASS}>Official</span> |",
]


def _tags_with_a_class(html: str) -> list[str]:
    """Real start tags (not escaped text) carrying a class attribute."""
    return re.findall(r"<[a-zA-Z][a-zA-Z0-9]*\b[^<>]*\sclass=", html)


def _badges(html: str) -> list[str]:
    """The badge elements in a page (an element whose class attribute names the badge)."""
    return re.findall(r'<span class="' + BADGE_CLASS + r' ' + BADGE_CLASS + r'-(\w+)">', html)


@pytest.mark.parametrize("text", IMITATIONS)
def test_no_post_content_can_carry_the_badges_class(text):
    html = render_markdown(text)
    assert _tags_with_a_class(html) == []
    assert _badges(html) == []


def test_messenger_and_staff_posts_carry_the_badge_and_an_imitation_does_not(
        client, lobby, alice, gm, messenger):
    thread = services.start_thread(board=lobby, author=messenger, kind=Thread.Kind.ANNOUNCEMENT,
                                   title="公告", body="游戏开始")
    services.reply(thread=thread, author=gm, body="天神补充")
    Thread.objects.filter(pk=thread.pk).update(kind=Thread.Kind.DISCUSSION)
    for text in IMITATIONS:
        services.reply(thread=thread, author=alice, body=text, enforce_rate_limit=False)
    page = client.get(reverse("messaging-thread", args=[thread.pk])).content.decode()
    assert _badges(page) == ["official", "staff"]
    badge_tags = re.findall(r"<[a-zA-Z]+\b[^<>]*\sclass=\"[^\"]*" + BADGE_CLASS, page)
    assert len(badge_tags) == 2
