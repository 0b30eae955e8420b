"""The vote thread tells the truth, with the fixed deal FIVE:

    seat 1 阿猫 killer   KILLER DEMON WITCH_DOCTOR VEST JAIL
    seat 2 阿狗 wolf     WEREWOLF SORCERER SOULBINDER WOLFSBANE PARDON
    seat 3 小白 civilian SNIPER DIVINER KILLER SORCERER SAINT
    seat 4 老黑 civilian DIVINER PROPHET WEREWOLF STRIKE CURSE
    seat 5 花花 civilian PROPHET DEMON BLESS COUNTER_SNIPER BOMB

Night 1: 阿猫 attacks 小白, whom 阿狗's SOULBINDER saves (小白 may not vote); 老黑 CURSEs 阿猫
for day 1. Day 1: 阿猫 and 老黑 vote 阿狗, 阿狗 votes 阿猫, 花花 sends a proxy vote for 小白:
in person 2:1, the proxy and the CURSE make it 阿狗 2 : 阿猫 2 : 小白 1, a runoff. The runoff:
阿猫 votes 阿狗, 阿狗 votes 阿猫, 老黑 votes 阿狗, 花花's proxy for 阿狗: 3:1, an execution a
PARDON could still undo, so its count is published when night 2 ends.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from messaging.models import Thread
from messaging.rules import is_messenger
from tests.factories.ninelives import act, fresh, user_of

from ...services.ninelives.test_play import send_orders

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese")]


def night_1(game):
    send_orders(game)
    act(game, 0, "use_card", card="KILLER", target=2, manifesto="今夜月色很好，适合出门散步。" * 10)
    act(game, 1, "use_card", card="SOULBINDER", target=2)
    act(game, 3, "use_card", card="CURSE", target=0)
    act(game, 2, "pass")
    act(game, 4, "pass")
    game = fresh(game)
    assert (game.phase_name, game.phase_number) == ("day", 1)
    return game


def vote_thread(game, seq=None):
    game = fresh(game)
    return Thread.objects.get(board=game.board, key=f"vote-{seq or game.current_phase.seq}")


def panel(client, thread, user=None) -> str:
    """The tally part of the vote box as `user` (None: signed out) reads it."""
    client.logout()
    if user is not None:
        client.force_login(user)
    page = unescape(client.get(reverse("messaging-thread", args=[thread.pk])).content.decode())
    start = page.index('<h3>')  # the tally and the votes in order, after any form
    end = page.index("</section>", start)
    return re.sub(r"\s+", " ", page[start:end])


def lines(text: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", m).strip()
            for m in re.findall(r"<li>(.*?)</li>", text.split('id="vote-tally">')[1]
                                .split("</ul>")[0])]


def every_view(client, game, thread) -> str:
    """The tally as every seat and a signed-out reader see it: the same for all."""
    views = {panel(client, thread, user_of(game, s)) for s in range(5)}
    views.add(panel(client, thread))
    assert len(views) == 1, "every viewer reads the same tally"
    return views.pop()


def test_an_open_day_vote_shows_only_the_votes_cast_in_person(start_ninelives, client):
    game = night_1(start_ninelives())
    thread = vote_thread(game)
    assert thread.title == "第1天投票"
    for voter, target in ((0, 1), (3, 1)):
        act(game, voter, "vote", target=target)
    act(game, 4, "proxy_vote", target=2)
    text = every_view(client, game, thread)
    assert lines(text) == ["2号阿狗：2票（亲自投票：1号阿猫、4号老黑）"]
    assert "委托投票：" not in text and "诅咒 +1" not in text, "proxies and CURSE wait"
    assert "3号小白 不能投票" in text
    page = unescape(client.get(reverse("messaging-thread", args=[thread.pk])).content.decode())
    assert "<h2>第1天投票</h2>" in page and "day 1" not in page


def test_the_closed_day_vote_shows_the_proxy_and_the_curse_that_forced_the_runoff(
        start_ninelives, client):
    game = night_1(start_ninelives())
    day = vote_thread(game)
    for voter, target in ((0, 1), (3, 1), (1, 0)):
        act(game, voter, "vote", target=target)
    act(game, 4, "proxy_vote", target=2)
    game = fresh(game)  # nobody is awaited any more: the vote ends early
    assert (game.phase_name, game.phase_number) == ("runoff", 1)
    text = every_view(client, game, day)
    assert lines(text) == [
        "1号阿猫：2票（亲自投票：2号阿狗；诅咒 +1）",
        "2号阿狗：2票（亲自投票：1号阿猫、4号老黑）",
        "3号小白：1票（委托投票：5号花花）",
    ]
    assert "1号阿猫、2号阿狗 并列最高票，进入生死投票" in text
    # the CURSE is shown by its effect only: never who used it
    assert "老黑 使用" not in text and "老黑的诅咒" not in text
    # 神的使者 posts the result in the thread
    result = day.posts.order_by("-id").first()
    assert is_messenger(result.author)
    assert "**第1天投票**" in result.body
    assert "1号阿猫：2票（亲自投票：2号阿狗；诅咒 +1）" in result.body
    assert "生死投票" in result.body
    assert vote_thread(game).title == "第1天的生死投票"


def test_the_runoff_counts_the_proxy_and_publishes_after_the_pardon_window(
        start_ninelives, client):
    game = night_1(start_ninelives())
    for voter, target in ((0, 1), (3, 1), (1, 0)):
        act(game, voter, "vote", target=target)
    act(game, 4, "proxy_vote", target=2)
    game = fresh(game)
    runoff = vote_thread(game)
    runoff_seq = game.current_phase.seq
    for voter, target in ((0, 1), (1, 0), (3, 1)):
        act(game, voter, "vote", target=target)
    act(game, 4, "proxy_vote", target=1)
    game = fresh(game)
    assert (game.phase_name, game.phase_number) == ("night", 2)
    text = every_view(client, game, runoff)
    # the proxy is published at the count; the count and the seat wait for night 2's end
    assert lines(text) == ["2号阿狗：3票（亲自投票：1号阿猫、4号老黑；委托投票：5号花花）",
                           "1号阿猫：1票（亲自投票：2号阿狗）"]
    assert "第2夜结束时公布" in text
    pending = runoff.posts.order_by("-id").first()
    assert "第2夜结束时公布" in pending.body and "被处决，没有人" not in pending.body
    for seat in range(5):
        act(game, seat, "pass")
    game = fresh(game)
    assert game.phase_name == "day"
    text = every_view(client, game, vote_thread(game, runoff_seq))
    assert "2号阿狗 得票最多，被处决；无人特赦，丢一张牌。" in text
    revealed = runoff.posts.order_by("-id").first()
    assert revealed.pk != pending.pk
    assert "2号阿狗：3票（亲自投票：1号阿猫、4号老黑；委托投票：5号花花）" in revealed.body


def test_undoing_the_vote_end_withdraws_its_result_post_and_ending_again_posts_it_anew(
        start_ninelives, nl_gm):
    """A rollback marks the vote thread's result post withdrawn, like the
    phase end's announcements; the vote ended again posts a fresh, unwithdrawn result."""
    import datetime as dt

    from django.utils import timezone

    from games import selectors, services

    game = night_1(start_ninelives())
    day = vote_thread(game)
    for voter, target in ((0, 1), (3, 1), (1, 0)):
        act(game, voter, "vote", target=target)
    act(game, 4, "proxy_vote", target=2)
    game = fresh(game)
    assert game.phase_name == "runoff"
    [result] = [p for p in day.posts.order_by("id") if is_messenger(p.author)
                and "**第1天投票**" in p.body]
    plan = selectors.rollback_plan(game, "phase_end")
    assert result.pk in {link.post_id for link in plan.posts}
    services.rollback(game_id=game.pk, gm=nl_gm, kind="phase_end",
                      deadline=timezone.now() + dt.timedelta(hours=2),
                      expected_version=game.version, expected_target=plan.target,
                      expected_steps=game.steps)
    result.refresh_from_db()
    assert result.withdrawn_at is not None  # kept, marked "withdrawn by the GM"
    assert fresh(game).phase_name == "day"
    services.end_phase_now(game_id=game.pk, gm=nl_gm)
    fresh_results = [p for p in day.posts.order_by("id") if is_messenger(p.author)
                     and "**第1天投票**" in p.body and p.pk != result.pk]
    assert len(fresh_results) == 1 and fresh_results[0].withdrawn_at is None
