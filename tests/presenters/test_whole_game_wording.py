"""Wording met in whole games, each read as the players read it (Chinese), from the engine's
own events: a dawn that ends the game promises no last words; a guardian's dereliction is
announced on the night the ghost possessed the poison, while the three stay hidden; a
猫有n条命 game everyone fouled out of says plainly what a draw means; a runoff whose two
candidates fouled out says why the votes for them count for nothing; gold's deal table is
headed in gold's own terms; a review's private events say whom they were told to."""

from __future__ import annotations

import pytest
from django.utils import translation

from games.engine.base import GM
from games.presenters import (
    because_chain,
    describe,
    outcome_text,
    review_intro,
    tally_markdown,
    told_privately,
    vote_tallies,
)
from games.presenters.deal import deal_markdown, deal_rows, headings
from tests.engine.classic.helpers import RULES as CLASSIC
from tests.engine.classic.helpers import Table
from tests.engine.ninelives.helpers import Game

NAMES = {0: "阿猫", 1: "阿狗", 2: "小白", 3: "老黑", 4: "花花", 5: "大黄", 6: "小红",
         7: "阿青", 8: "木木", 9: "豆豆", 10: "球球"}


@pytest.fixture(autouse=True)
def chinese():
    with translation.override("zh-hans"):
        yield


def public_texts(ruleset: str, events: list[dict]) -> list[str]:
    return [describe(ruleset, e, NAMES) + "\n" + "\n".join(because_chain(ruleset, e, NAMES))
            for e in events if e["visibility"]["public"]]


def outcome_of(game) -> dict:
    o = game.outcome()
    return {"result": o.result, "winners": list(o.winners), "reason": o.reason}


# --- classic ------------------------------------------------------------------------------

def test_a_dawn_that_ends_the_game_promises_no_last_words():
    """The last police officer is killed at night while last words are still due (the
    third death of eleven seats): the game is over at dawn, so nobody leaves last words."""
    t = Table("PBCCPBCCPBC")
    t.night(kill=0, check=1)
    t.day(t.all_vote(4))
    dawn_events = t.night(kill=8, check=5)
    assert t.phase == "over"
    texts = public_texts("classic", dawn_events)
    dawn = next(x for x in texts if x.startswith("第2天天亮"))
    assert dawn.startswith("第2天天亮。夜里死亡：9号木木：警。")
    assert "留遗言" not in dawn
    assert t.pub["last_words_due"] == []


def test_a_verdict_that_ends_the_game_promises_no_last_words():
    t = Table("PBCCPBCCPBC")
    t.night(kill=0, check=1)
    t.day(t.all_vote(4))
    t.night(kill=None, check=5)  # nobody killed: the vote makes the third death
    verdict_events = t.day(t.all_vote(8))  # the last police officer
    assert t.phase == "over"
    verdict = next(x for x in public_texts("classic", verdict_events)
                   if x.startswith("死亡：9号木木"))
    assert "留遗言" not in verdict


def test_while_the_game_goes_on_the_first_deaths_still_leave_last_words():
    t = Table("PBCCPBCCPBC")
    events = t.night(kill=2, check=1)
    dawn = next(x for x in public_texts("classic", events) if x.startswith("第1天天亮"))
    assert dawn.startswith("第1天天亮。夜里死亡：3号小白：民（留遗言）。")


def test_a_dereliction_is_announced_the_night_the_ghost_possesses_the_poison():
    """Minor rule 3 hides the three (the ghost, the poison, the victim); the guardian who
    skipped twice dies of dereliction that night, and the guardian rules announce it."""
    t = Table("PGCXUPBCCPB")
    t.night(kill=2, check=6, protect={4: None})
    t.day({})
    events = t.night(kill=7, check=10, protect={4: None}, possess=3)
    dawn_event = next(e for e in events if e["kind"] == "dawn")
    labels = {d["seat"]: d["label"] for d in dawn_event["data"]["deaths"]}
    assert labels == {1: None, 3: None, 7: None, 4: "guardian"}
    text = describe("classic", dawn_event, NAMES)
    assert "5号花花：守护神" in text
    assert "5号花花因渎职而死" in text
    for hidden in ("2号阿狗", "4号老黑", "8号阿青"):
        assert f"{hidden}：身份不公布" in text
    chain = because_chain("classic", dawn_event, NAMES)
    assert "鬼匪附体了毒药，因此鬼匪、毒药和今晚的被害者（如有）的身份都不公布（细则 3）。" in chain
    assert not any("一律不公布" in line for line in chain)


def test_a_skipped_slot_does_not_say_the_seat_was_late():
    """The slot ended by its deadline or by the GM's 现在结束本阶段: neither sentence says
    the seat was late (未按时)."""
    t = Table("PBCCPBCCPBC")
    t.night(kill=2, check=1)
    while t.phase != "speech":
        t.end()
    skipped = t.end()  # the first speaker's slot ends with no speech
    vote_events = []
    while t.phase != "vote":
        speaker = t.pub["queue"][t.pub["turn"]]
        t.act(speaker, "speak", text="过")
        t.end()
    vote_events = t.end()  # the first voter's slot ends with no vote
    texts = public_texts("classic", skipped + vote_events)
    said = "\n".join(texts)
    assert "的发言时间结束，没有发言，轮到下一位。" in said
    assert "的投票时间结束，没有投票，视为弃权。" in said
    assert "未按时" not in said and "到时间也没有" not in said


def test_a_classic_review_intro_speaks_of_no_loss_order():
    intro = review_intro("classic")
    assert "丢牌顺序" not in intro and "鬼匪" in intro
    assert "丢牌顺序" in review_intro("ninelives")


def test_a_private_event_says_whom_it_was_told_to_where_anyone_reads_it():
    t = Table("PBCCPBCCPBC")
    role = next(e for e in CLASSIC.view(t.state, GM)["log"] if e["kind"] == "role")
    seat = role["visibility"]["seats"][0]
    assert describe("classic", role, NAMES).startswith("你的身份：")
    assert told_privately(role, NAMES) == f"私下告知{seat + 1}号{NAMES[seat]}："
    public = next(e for e in CLASSIC.view(t.state, GM)["log"] if e["visibility"]["public"])
    assert told_privately(public, NAMES) == ""


# --- 猫有n条命 -------------------------------------------------------------------------------

def test_everyone_fouled_out_reads_as_a_plain_draw_not_a_list_of_winners():
    """Night 1 passes; on day 1 nobody votes or sends a proxy: every seat fouls out (§9.1.5)
    and nobody is left (§10.4). docs/rules/ninelives.md §6: a draw; the prize is shared by
    every seat of each camp alive when that day began, here all five."""
    g = Game()
    for seat in range(5):
        g.do(seat, "pass")
    g.end()
    events = g.end()
    assert g.outcome().result == "draw"
    text = outcome_text("ninelives", outcome_of(g), NAMES)
    assert text == ("平局：已没有座位留在游戏中（犯规出局也算出局）。平局时，最后一个阶段开始时仍有"
                    "座位存活的每个阵营，其全部座位平分奖金（§10.4）：1号阿猫、2号阿狗、3号小白、"
                    "4号老黑、5号花花。")
    over = next(x for x in public_texts("ninelives", events) if x.startswith("游戏已经结束"))
    assert "获胜者" not in over and "平分奖金" in over


def test_a_runoff_whose_candidates_fouled_out_says_their_votes_do_not_count():
    """Day 1 ties 阿猫 and 小白; in the runoff both candidates neither vote nor send a proxy
    and foul out, while the others vote for 阿猫."""
    g = Game()
    for seat in range(5):
        g.do(seat, "pass")
    g.end()
    for voter, target in {0: 2, 1: 2, 2: 0, 3: 0, 4: 1}.items():
        g.do(voter, "vote", target=target)
    g.end()
    assert g.public["candidates"] == [0, 2]
    for voter in (1, 3, 4):
        g.do(voter, "vote", target=0)
    g.end()
    events = [dict(e, phase_number=1) for e in g.events if e["visibility"]["public"]]
    runoff = tally_markdown(vote_tallies("ninelives", events, NAMES)[-1])
    assert "- 1号阿猫：已出局，投给该座位的票不计（亲自投票：2号阿狗、4号老黑、5号花花）" in runoff
    assert "- 3号小白：已出局，投给该座位的票不计" in runoff
    assert "0票" not in runoff
    assert runoff.endswith("无人被处决。得票的座位都已出局，所以没有一张票计入。")


# --- 谁偷了我的金币 ---------------------------------------------------------------------------

def test_golds_deal_table_is_headed_in_golds_terms():
    from games.engine.gold.rules import Gold

    rules = Gold()
    state = rules.initial_state(seats=3, config={"lead": 0}, seed="deal table").state
    assert headings("gold") == ("座位", "最后一轮的手牌", "最后一轮亮出的牌", "最后一轮扣下的牌")
    assert not {"阵营", "秘密属性"} & set(headings("gold"))
    table = deal_markdown(deal_rows("gold", rules.view(state, GM), NAMES), "gold")
    assert table.startswith("| 座位 | 最后一轮的手牌 | 最后一轮亮出的牌 | 最后一轮扣下的牌 |")
    assert "不分阵营" not in table and "阵营" not in table
    assert "| 1号阿猫 | 杀手、刺客、盗贼 |" in table
    assert headings("ninelives")[1:] == ("阵营", "牌", "秘密属性")
    assert headings("classic")[1:] == ("阵营", "身份", "暗中的变化")
