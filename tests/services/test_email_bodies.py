"""Every game email leaves as plain text without Markdown and an HTML alternative rendered
by the posts' own safe Markdown (games.mail.bodies), in the reader's language: a private
result, an announcement, a reminder, a withdrawn result, an activity warning."""

from __future__ import annotations

import datetime as dt
import re
from types import SimpleNamespace

import pytest
import time_machine
from django.core import mail

from accounts.models import Profile
from games import mail as outbox
from games import notifications, reminders, services
from games.models import Game
from games.presenters import describe
from tests.factories.toy import seat_user

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("toy_ruleset", "eager_email", "chinese"),
]

# Markdown a reader would see as noise in a text email: emphasis, strike-through, a heading,
# a link written [text](url).
MARKDOWN = re.compile(r"\*\*|~~|__|^\s*#{1,6} |\[[^\]\n]*\]\([^)\n]*\)", re.MULTILINE)


def parts(message) -> tuple[str, str]:
    """(text, html) of a sent email, checked: no Markdown in the text, one HTML
    alternative with no live script or javascript: link."""
    # An address is not Markdown: a signed token in one may hold "__" by chance.
    assert not MARKDOWN.search(re.sub(r"https?://\S+", "", message.body)), message.body
    [(html, mime)] = message.alternatives
    assert mime == "text/html" and html.startswith("<!DOCTYPE html>")
    assert "<script" not in html.lower() and "javascript:" not in html.lower()
    assert 'lang="zh-hans"' in html
    return message.body, html


def to(user) -> list:
    return [m for m in mail.outbox if m.to == [user.email]]


@pytest.fixture
def game(players, gm, django_capture_on_commit_callbacks):
    g = services.create_game(
        name="**周末**局",
        ruleset="toy",
        gm=gm,
        seat_count=5,
        durations={"night": 24 * 60, "day": 24 * 60},
    )
    with django_capture_on_commit_callbacks(execute=True):
        g = services.start_game(game_id=g.pk, users=players, seed="fixed-seed")
    mail.outbox.clear()
    return g


def test_a_private_result_is_plain_text_and_html(game, players, django_capture_on_commit_callbacks):
    seat = game.seats.get(number=0)
    body = describe(
        "classic", {"kind": "check_result", "data": {"seat": 3, "result": "bandit"}}, {3: "老黑"}
    )
    assert "**" in body  # the presenter writes Markdown, as posts are written
    with django_capture_on_commit_callbacks(execute=True):
        notifications.notify_private_result(game, seat, body)
    [message] = to(seat.user)
    text, html = parts(message)
    assert "验人结果：4号老黑是匪。" in text
    assert "<strong>匪</strong>" in html
    assert (
        f"/games/{game.pk}/act/" in text and f'href="http://127.0.0.1/games/{game.pk}/act/"' in html
    )
    assert "\n--\n通知设置：http://127.0.0.1/profile/" in text


def test_an_announcement_escapes_what_the_gm_typed_and_keeps_the_links_safe(
    game, players, django_capture_on_commit_callbacks
):
    announcement = SimpleNamespace(
        pk=1,
        post_id=None,
        title="第1夜结束",
        story="<script>alert(1)</script><img src=x onerror=alert(1)> ~~旧~~ __新__",
        body="## 第1夜结束\n\n**阿猫**死了。[规则](https://example.org/rules)",
    )
    Profile.objects.filter(user=players[0]).update(email_announcements=True)
    with django_capture_on_commit_callbacks(execute=True):
        notifications.notify_announcement(game, announcement)
    text, html = parts(to(players[0])[0])
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in html
    assert "<h2>第1夜结束</h2>" in html and "<strong>阿猫</strong>" in html
    assert '<a href="https://example.org/rules" rel="nofollow noopener">规则</a>' in html
    assert "阿猫死了。规则 (https://example.org/rules)" in text
    assert "旧 新" in text and "第1夜结束\n\n阿猫死了" in text


def test_a_reminder_is_plain_text_and_html(game, django_capture_on_commit_callbacks):
    wolf = seat_user(game, "wolf")
    with django_capture_on_commit_callbacks(execute=True):
        assert reminders.send_due_reminders(now=game.deadline - dt.timedelta(minutes=4)) == 1
    text, html = parts(to(wolf)[0])
    assert "周末局" in text and "<strong>周末</strong>局" in html
    assert "你还没有行动" in text or "还没有" in text


def test_a_withdrawn_result_is_plain_text_and_html(
    game, players, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        outbox.queue_withdrawn_email(
            to=players[0].email,
            user=players[0],
            kind="results",
            game_name=game.name,
            phase="第1夜",
            subjects=[f"[{game.name}] 来自神的使者的私密结果"],
        )
    text, html = parts(to(players[0])[0])
    assert "- [周末局] 来自神的使者的私密结果" in text
    assert "<li>[<strong>周末</strong>局] 来自神的使者的私密结果</li>" in html


def test_an_activity_warning_is_plain_text_and_html(gm, crowd, django_capture_on_commit_callbacks):
    g = services.create_game(
        name="报名局", ruleset="toy", gm=gm, seat_count=5, durations={"night": 60, "day": 60}
    )
    services.open_signups(game_id=g.pk, gm=gm)
    for user in crowd[:5]:
        services.sign_up(game_id=g.pk, user=user)
    services.pick_players(game_id=g.pk, gm=gm, users=crowd[:5])
    running = services.start_from_signups(game_id=g.pk, gm=gm)
    for user in crowd[1:5]:
        services.check_in(game_id=running.pk, user=user)
    mail.outbox.clear()
    later = running.started_at + dt.timedelta(hours=25)
    with time_machine.travel(later, tick=False), django_capture_on_commit_callbacks(execute=True):
        running = Game.objects.get(pk=running.pk)
        assert services.check_activity(game=running, now=later)
    [message] = [m for m in to(crowd[0]) if "活跃" in m.subject or "警告" in m.subject]
    text, html = parts(message)
    assert "神的使者" in text and "<p>" in html


def test_bodies_read_every_kind_of_markdown_back_as_text():
    from messaging.words import words_block

    md = (
        "# 标题\n\n- 一\n- 二\n\n1. 甲\n2. 乙\n\n> 引用\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        + words_block("**我的原话**", "作者不公开")
    )
    text, html = outbox.bodies(md, official=True)
    assert text.startswith("标题\n\n- 一\n- 二\n\n1. 甲\n2. 乙\n\n    引用\n\na | b\n1 | 2\n\n")
    # a player's own words stay exactly as written, in the block the site shows
    assert "【玩家的话 · 作者不公开】\n    **我的原话**" in text
    assert 'class="player-words"' in html
    # the same fence from anyone but 神的使者 is code, never an official-looking block
    assert 'class="player-words"' not in outbox.bodies(md)[1]
    # a link the posts' renderer refuses is no link in an email either
    html = outbox.bodies("[点我](javascript:alert(1)) <a href='x'>b</a>")[1]
    assert "<a " not in html.split("<hr>")[0] and "&lt;a href=" in html
