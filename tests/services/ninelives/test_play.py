"""猫有n条命 on the lifecycle machinery, with the fixed deal FIVE (seat i is NAMES[i]):

    seat 1 阿猫 killer   KILLER DEMON WITCH_DOCTOR VEST JAIL
    seat 2 阿狗 wolf     WEREWOLF SORCERER SOULBINDER WOLFSBANE PARDON
    seat 3 小白 civilian SNIPER DIVINER KILLER SORCERER SAINT
    seat 4 老黑 civilian DIVINER PROPHET WEREWOLF STRIKE CURSE
    seat 5 花花 civilian PROPHET DEMON BLESS COUNTER_SNIPER BOMB

What each seat is told (its conversation with 神的使者), what everyone is told (the
announcement thread), the vote threads, the act pages, and the deal commitment.
"""

from __future__ import annotations

import hashlib
import re
from html import unescape

import pytest
from django.urls import reverse

from games import services
from games.engine.ninelives import dealing
from games.engine.ninelives.cards import CAMP_NAMES_ZH, CARDS
from games.models import Game, Vote
from messaging.models import Thread
from tests.factories.ninelives import (
    FIVE,
    MANIFESTO,
    NAMES,
    act,
    announcements,
    conversation,
    fresh,
    user_of,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese")]

ORDERS = {  # the first card of each order is the first one lost
    0: ["JAIL", "VEST", "WITCH_DOCTOR", "DEMON", "KILLER"],
    1: ["PARDON", "WOLFSBANE", "SOULBINDER", "SORCERER", "WEREWOLF"],
    2: ["SAINT", "SORCERER", "KILLER", "DIVINER", "SNIPER"],
    3: ["CURSE", "STRIKE", "WEREWOLF", "PROPHET", "DIVINER"],
    4: ["COUNTER_SNIPER", "BOMB", "BLESS", "DEMON", "PROPHET"],
}
ZH = {code: zh for code, (_camp, _n, zh) in CARDS.items()}


def card_names_in(text: str) -> set[str]:
    """The cards whose Chinese name or code appears in `text`. Longer names are taken out
    first, so 反狙击手 (COUNTER_SNIPER) does not also count as 狙击手 (SNIPER)."""
    found = set()
    for code in sorted(CARDS, key=lambda c: -len(ZH[c])):
        if ZH[code] in text or re.search(rf"\b{code}\b", text):
            found.add(code)
            text = text.replace(ZH[code], "")
    for code in sorted(CARDS, key=len, reverse=True):
        text = re.sub(rf"\b{code}\b", "", text)
    return found


def send_orders(game: Game) -> None:
    for seat, order in ORDERS.items():
        act(game, seat, "loss_order", cards=order)


def play_night_1(game: Game) -> Game:
    """An attack that lands, an attack saved by a protection, an investigation.

    1. 阿猫 (KILLER) attacks 小白, whom 阿狗's SOULBINDER protects: saved, may not vote.
    2. 老黑 (a civilian holding WEREWOLF) attacks 花花: 花花 loses COUNTER_SNIPER (neutral).
    3. 小白's DIVINER asks about 阿猫: yes (it holds KILLER). 花花 passes.
    """
    send_orders(game)
    act(game, 0, "use_card", card="KILLER", target=2, manifesto=MANIFESTO)
    act(game, 1, "use_card", card="SOULBINDER", target=2)
    act(game, 2, "use_card", card="DIVINER", target=0)
    act(game, 3, "use_card", card="WEREWOLF", target=4, manifesto=MANIFESTO)
    act(game, 4, "pass")
    game = fresh(game)
    assert (game.phase_name, game.phase_number) == ("day", 1), "night 1 should end early"
    return game


def post_vote(client, game: Game, seat: int, target: int):
    """A vote through the vote box above the phase's vote thread."""
    game = fresh(game)
    thread = Thread.objects.get(board=game.board, key=f"vote-{game.current_phase.seq}")
    client.force_login(user_of(game, seat))
    return client.post(reverse("game-vote", args=[game.pk]), {
        "thread": thread.pk, "phase": game.current_phase.seq, "target": target,
        "kind": "vote"}, HTTP_ACCEPT="application/json")


# --- the opening -----------------------------------------------------------------------------

def test_each_seat_is_told_its_own_camp_and_hand_and_nobody_elses(start_ninelives):
    game = start_ninelives()
    assert game.commitment and len(game.commitment) == 64
    for seat, entry in enumerate(FIVE["seats"]):
        text = conversation(game, seat)
        assert f"你的阵营：**{CAMP_NAMES_ZH[entry['camp']]}**" in text
        assert "你的手牌：" + "、".join(ZH[c] for c in entry["cards"]) in text
        assert card_names_in(text) == set(entry["cards"]), seat
        for other, other_entry in enumerate(FIVE["seats"]):
            if other != seat:
                assert "、".join(ZH[c] for c in other_entry["cards"]) not in text
    opening = "\n".join(announcements(game))
    assert card_names_in(opening) == set(), "the opening names no card"
    assert "第1夜开始" in opening and "请在夜晚结束前提交丢牌顺序" in opening


# --- a night: an attack, a protection, an investigation --------------------------------------

def test_the_dawn_names_only_the_camps_of_lost_cards(start_ninelives):
    game = play_night_1(start_ninelives())
    dawn = announcements(game)[-1]
    assert "第1夜结束" in dawn
    assert "5号花花 丢了一张中立阵营的牌（夜间遭到攻击）" in dawn
    assert "3号小白 遭到攻击但被保护" in dawn
    assert dawn.count(MANIFESTO) == 2, "both manifestos, without their authors"
    assert card_names_in(dawn) == set(), "no card is named at dawn"
    for seat in range(5):
        assert NAMES[seat] not in dawn or seat in (2, 4), "attackers and protectors unnamed"
    assert "第1天开始" in dawn and "3号小白 昨夜被保护" in dawn
    # the card itself reaches only its owner
    lost = "你丢了反狙击手（中立阵营）"
    assert lost in conversation(game, 4)
    assert all(lost not in conversation(game, s) for s in (0, 1, 2, 3))


def test_the_investigator_alone_learns_the_answer(start_ninelives):
    game = play_night_1(start_ninelives())
    answer = "你用占卜查验1号阿猫是否持有杀手，结果：**是**。"
    assert answer in conversation(game, 2)
    for seat in (0, 1, 3, 4):
        assert "查验" not in conversation(game, seat)
    assert all("查验" not in post for post in announcements(game))


def test_gm_only_chains_reach_no_player(start_ninelives):
    game = play_night_1(start_ninelives())
    texts = [conversation(game, s) for s in range(5)] + announcements(game)
    for text in texts:
        assert "§" not in text and "loses the first card" not in text
        assert "landed" not in text and "attacked (" not in text


# --- a day vote: a tie, the runoff thread, the execution ---------------------------------------

def test_a_tied_day_vote_opens_a_runoff_thread_that_executes(start_ninelives, client):
    """Day 1: 小白 (saved) may not vote; 阿猫 and 阿狗 tie 2-2; the runoff executes 阿猫 3-1;
    a PARDON could spare it, so the seat and its lost camp are announced after night 2."""
    game = play_night_1(start_ninelives())
    refused = post_vote(client, game, 2, 0)
    assert refused.status_code == 409 and "不能投票" in refused.json()["message"]
    for voter, target in ((0, 1), (1, 0), (3, 1), (4, 0)):
        assert post_vote(client, game, voter, target).json()["ok"]
    game = fresh(game)
    assert (game.phase_name, game.phase_number) == ("runoff", 1)
    tie = announcements(game)[-1]
    assert "1号阿猫、2号阿狗 并列最高票" in tie and "1号阿猫 2票" in tie
    runoff = Thread.objects.get(board=game.board, key=f"vote-{game.current_phase.seq}")
    assert Thread.objects.filter(board=game.board, key__startswith="vote-").count() == 2
    client.force_login(user_of(game, 3))
    page = unescape(client.get(reverse("messaging-thread", args=[runoff.pk])).content.decode())
    offered = set(re.findall(r'name="target" value="(\d+)"', page))
    assert offered == {"0", "1"}, "the runoff offers the tied seats only"
    assert "投票给 1号阿猫" in page and "投票给 2号阿狗" in page
    assert post_vote(client, game, 3, 4).status_code == 409  # not a tied seat
    for voter, target in ((0, 1), (1, 0), (3, 0), (4, 0)):
        assert post_vote(client, game, voter, target).json()["ok"]
    game = fresh(game)
    assert (game.phase_name, game.phase_number) == ("night", 2)
    assert Vote.objects.filter(phase__name="runoff", game=game).count() == 4
    closed = announcements(game)[-1]
    assert "第1天的投票处决了一个座位" in closed and "特赦" in closed
    assert "阿猫 被" not in closed, "the executed seat waits for the pardon window"
    for seat in range(5):
        act(game, seat, "pass")
    game = fresh(game)
    dawn = announcements(game)[-1]
    assert "1号阿猫 被第1天的投票处决（计票：1号阿猫 3票、2号阿狗 1票），丢一张牌。" in dawn
    assert "1号阿猫 丢了一张中立阵营的牌（被投票处决）" in dawn
    assert card_names_in(dawn) == set()
    assert "你丢了禁锢（中立阵营）" in conversation(game, 0)


# --- the commitment -------------------------------------------------------------------------

def test_the_opening_commitment_verifies_against_the_deal_revealed_at_the_end(
        start_ninelives, nl_gm, client):
    game = start_ninelives()
    opening = "\n".join(announcements(game))  # the thread's opening post, the player list
    published = re.search(r"`([0-9a-f]{64})`", opening).group(1)
    assert published == game.commitment
    game = play_night_1(game)
    for seat in (0, 1):  # the GM puts the killer and the wolf out (§9.1): the civilians win
        services.gm_step(game_id=game.pk, gm=nl_gm, kind="foul_out",
                         params={"seat": seat, "reason": "测试"})
    # the GM's last foul-out ends the game at once (no phase end needed)
    game = fresh(game)
    assert game.status == Game.Status.FINISHED and game.outcome["result"] == "civilian"
    end = announcements(game)[-1]
    assert "| 座位 | 阵营 | 牌 | 秘密属性 |" in end or "| Seat | Camp |" in end  # the deal, in words
    salt = re.search(r"`([0-9a-f]{32})`", end).group(1)
    # the deal's exact text, as hashed, is on the commitment page
    page = client.get(reverse("game-commitment", args=[game.pk])).content.decode()
    text = unescape(re.search(r'<pre id="deal"[^>]*>(.*?)</pre>', page, re.S).group(1))
    assert hashlib.sha256((text + salt).encode()).hexdigest() == published
    assert text == dealing.canonical(dealing.Deal.from_json(FIVE))
    assert dealing.verify(text, salt, published)
    assert not dealing.verify(text.replace("SNIPER", "DEMON", 1), salt, published)
    assert 'id="verdict" class="ok"' in page
