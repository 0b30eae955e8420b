"""Announcements that stay readable: titles carry the round, not the
phase's counter, and the seat where one is concerned; a classic day's last words, speeches
and votes go to the round's record thread, one reply each, not one announcement each; lists
use "、"."""

from __future__ import annotations

import pytest

from games import services
from games.models import Announcement
from messaging.models import Thread
from tests.factories import fresh
from tests.factories import gold as gold_factory
from tests.factories.classic import (
    NAMES,
    night_one,
    players,  # noqa: F401 - the classic table's fixture
    speak_all,
    time_out,
    vote_all,
)
from tests.factories.ninelives import act as nl_act

from .ninelives.test_play import send_orders

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese")]


@pytest.fixture
def classic_game(players, gm):  # noqa: F811
    from tests.factories.classic import new_game

    return new_game(players, gm)


def titles(game) -> list[str]:
    return list(Announcement.objects.filter(game=game).order_by("id")
                .values_list("title", flat=True))


def test_a_classic_day_is_one_record_thread_not_an_announcement_per_speech(classic_game):
    game = classic_game
    night_one(game, victim=2)
    time_out(game)
    speak_all(game)
    vote_all(game, {3: 1, 4: 1, 5: 1, 6: 3, 7: 3})
    shown = titles(game)
    assert not any(t.startswith("第1天 · 发言") or t.startswith("第1天 · 投票 ") for t in shown)
    assert len(shown) == len(set(shown)), shown  # no title repeated ten times
    thread = Thread.objects.get(board=fresh(game).board, key="round-1")
    assert thread.title == "第1轮：遗言、发言与投票"
    bodies = list(thread.posts.order_by("id").values_list("body", flat=True))
    votes = [b for b in bodies if "投票给" in b]
    assert f"4号{NAMES[3]}投票给2号{NAMES[1]}。" in votes, bodies
    assert len(votes) == 5, "one reply per vote, in the order cast"
    result = next(a for a in Announcement.objects.filter(game=game).order_by("-id")
                  if "得票" in a.body)
    # the vote ended, not the last voter's slot: no seat in the title
    assert result.title == "第1天 · 投票结束", result.title
    assert "**第1天 · 投票**" in result.body


def test_a_slot_the_gm_ends_early_does_not_say_the_seat_was_late(classic_game, gm):
    """The GM's 现在结束本阶段 ends a speaker's or a voter's slot: the record says the slot
    ended without a speech (a vote), not that the seat was late (未按时)."""
    game = classic_game
    night_one(game, victim=2)
    time_out(game)  # the last words
    services.end_phase_now(game_id=game.pk, gm=gm)  # the first speaker's slot
    speak_all(game)
    services.end_phase_now(game_id=game.pk, gm=gm)  # the first voter's slot
    thread = Thread.objects.get(board=fresh(game).board, key="round-1")
    bodies = "\n".join(thread.posts.values_list("body", flat=True))
    assert f"4号{NAMES[3]}的发言时间结束，没有发言，轮到下一位。" in bodies
    assert "的投票时间结束，没有投票，视为弃权。" in bodies
    assert "未按时" not in bodies


def test_ninelives_titles_name_the_night_and_the_day(start_ninelives):
    game = start_ninelives()
    send_orders(game)
    for seat in range(5):
        nl_act(game, seat, "pass")
    assert "第1夜结束" in titles(game)


def test_a_ninelives_night_announcement_opens_with_its_summary(start_ninelives):
    from .ninelives.test_play import play_night_1

    game = play_night_1(start_ninelives())
    dawn = Announcement.objects.filter(game=game, title="第1夜结束").get()
    assert dawn.body.startswith("**第1夜小结**：5号花花 丢了1张牌；3号小白 遭到攻击但被保护；"
                                "无人死亡。\n\n"), dawn.body[:200]


def test_gold_titles_carry_the_round_and_the_seat_not_the_phase_counter(start_gold):
    game = start_gold()
    game = gold_factory.pick_all(game, ("KILLER", "THIEF", "ASSASSIN"))
    for _ in range(8):
        game = fresh(game)
        if game.phase_name not in ("priority", "operation"):
            break
        services.advance_phase(game_id=game.pk, reason="gm", by=None)
    shown = titles(game)
    assert any(t.startswith("第1轮 · 选牌结束") for t in shown), shown
    assert not any("Operation" in t or "Priority" in t or "Pick" in t for t in shown), shown
    turns = [t for t in shown if t.startswith(("第1轮 · 先手行动结束 · ", "第1轮 · 操作结束 · "))]
    assert turns, shown
    assert all(int(t[1:t.index("轮")]) <= 3 for t in shown if t.startswith("第")), shown
