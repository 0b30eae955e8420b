"""A Classic game driven through games.services end to end: the deal, the teams' night
choices, dawn, last words, speeches, the vote and a tie, with what each seat is told."""

import pytest

from games import services
from games.models import Action, Phase, Vote
from tests.factories.classic import (
    BANDITS,
    CIVILIANS,
    NAMES,
    POLICE,
    act,
    announcements,
    conversation,
    current,
    fresh,
    night_one,
    pub,
    reveals,
    seat_text,
    speak_all,
    time_out,
    vote_all,
)

pytestmark = pytest.mark.django_db


def test_the_deal_tells_each_seat_its_card_and_only_its_own_team(game):
    for seat in range(11):
        told = conversation(game, seat)
        others = [s for s in range(11) if s != seat]
        if seat in POLICE:
            assert "你的身份：**警**" in told
            assert all(seat_text(s) in told for s in POLICE)
            hidden = [s for s in others if s not in POLICE]
        elif seat in BANDITS:
            assert "你的身份：**匪**" in told
            assert all(seat_text(s) in told for s in BANDITS)
            hidden = [s for s in others if s not in BANDITS]
        else:
            assert "你的身份：**民**" in told
            hidden = others
        # Nobody is told anything about a seat outside its own team.
        assert not [s for s in hidden if NAMES[s] in told], (seat, told)


def test_a_teams_proposals_reach_the_team_only_and_the_night_waits_for_everyone(game):
    act(game, BANDITS[0], "kill", target=2)
    act(game, POLICE[0], "check", target=5)
    assert pub(game)["phase"] == "night"  # the others still owe a move
    proposal = f"{seat_text(BANDITS[0])}提议杀{seat_text(2)}"
    check = f"{seat_text(POLICE[0])}提议验{seat_text(5)}"
    for seat in range(11):
        told = conversation(game, seat)
        assert (proposal in told) == (seat in BANDITS), seat
        assert (check in told) == (seat in POLICE), seat
    # The proposer's own confirmation is in its own conversation.
    assert f"验{seat_text(5)}" in conversation(game, POLICE[0]).split("1号阿猫提议")[-1]


def test_the_team_choice_is_carried_out_at_dawn_and_the_check_reaches_the_police(game):
    night_one(game, victim=2, checked=5)
    game = fresh(game)
    assert game.phase_name == "last_words"
    assert Phase.objects.get(game=game, seq=1).end_reason == "early"
    assert not game.seats.get(number=2).alive
    dawn = announcements(game)
    assert f"第1天天亮。夜里死亡：{seat_text(2)}：民（留遗言）" in dawn
    for seat in range(11):
        told = conversation(game, seat)
        assert reveals(told, 5, "bandit") == (seat in POLICE), seat
    # The bandits learn nothing of the check; the civilians nothing of either team.
    for seat in BANDITS:
        assert "验人结果" not in conversation(game, seat)
    for seat in CIVILIANS:
        assert "提议" not in conversation(game, seat) and "验人结果" not in conversation(game, seat)


def test_last_words_speeches_in_order_and_a_silent_speaker_is_skipped(game):
    night_one(game, victim=2)
    act(game, 2, "last_words", text="我是民，警察加油。")
    assert pub(game)["phase"] == "speech"
    order = speak_all(game, silent=(7,))
    # Seat order from the seat after the night's dead (seat 3 died: seat 4 opens).
    assert order == [3, 4, 5, 6, 7, 8, 9, 10, 0, 1]
    text = announcements(game) + "\n".join(
        e.data.get("text", "") for e in game.events.filter(kind__in=("speech", "last_words")))
    assert "我是民，警察加油。" in text
    assert game.events.filter(kind="speech_skipped", data__seat=7).exists()
    assert pub(game)["phase"] == "vote"


def test_a_tied_vote_goes_to_the_tied_speeches_and_a_vote_among_them(game):
    night_one(game, victim=2)
    act(game, 2, "last_words", text="再见。")
    speak_all(game)
    # 2号 and 4号 get four votes each; 1号 abstains and 2号 lets the time run out.
    ballot = {3: 1, 4: 1, 5: 3, 6: 1, 7: 3, 8: 1, 9: 3, 10: 3, 0: None}
    order = vote_all(game, ballot, silent=(1,))
    assert order == [3, 4, 5, 6, 7, 8, 9, 10, 0, 1]
    assert f"{seat_text(1)}、{seat_text(3)}平票最高" in announcements(game)
    assert pub(game)["phase"] == "tie_speech"
    assert speak_all(game) == [3, 1]  # the tied speak again, in the day's order
    assert pub(game)["candidates"] == [1, 3]
    # Only the others vote, only for the tied: 2号 (a bandit) is voted out.
    order = vote_all(game, {4: 1, 5: 3, 6: 1, 7: 1, 8: 1, 9: 3, 10: 3, 0: 1})
    assert order == [4, 5, 6, 7, 8, 9, 10, 0]
    game = fresh(game)
    assert not game.seats.get(number=1).alive
    assert f"死亡：{seat_text(1)}：匪（留遗言）" in announcements(game)
    assert game.phase_name == "last_words" and pub(game)["last_words_due"] == [1]
    # Each vote for a seat is stored once, in its voter's own slot (abstentions and silence
    # are events only): 8 on the day, 8 in the tie stage.
    assert Vote.objects.filter(game=game).count() == 8 + 8
    assert Vote.objects.filter(game=game).values("phase").distinct().count() == 16
    act(game, 1, "last_words", text="我是匪，再见。")
    assert fresh(game).phase_name == "night" and fresh(game).phase_number == 2


def test_a_second_and_third_tie_end_the_day_without_elimination(game):
    night_one(game, victim=2)
    time_out(game)  # no last words
    speak_all(game)
    vote_all(game, {3: 1, 4: 1, 5: 3, 6: 3})          # 2号 2, 4号 2: tie
    speak_all(game)
    vote_all(game, {4: 1, 5: 3})                      # tie again
    assert pub(game)["phase"] == "tie_speech" and pub(game)["stage"] == 2
    assert speak_all(game) == [4, 5, 6, 7, 8, 9, 10, 0]  # the others speak
    vote_all(game, {4: 1, 5: 3})                      # a third tie
    game = fresh(game)
    assert f"{seat_text(1)}、{seat_text(3)}第三次平票：今天无人出局" in announcements(game)
    assert game.phase_name == "night" and game.seats.filter(alive=False).count() == 1


def test_the_night_can_be_changed_until_it_ends_and_the_last_proposal_counts(game):
    game.early_end = False
    game.save()
    act(game, BANDITS[0], "kill", target=3)
    act(game, BANDITS[0], "kill", target=6)
    act(game, BANDITS[1], "defer")
    time_out(game)
    assert not fresh(game).seats.get(number=6).alive
    assert fresh(game).seats.get(number=3).alive


@pytest.mark.parametrize("setup, seat, kind, params, sentence", [
    ("night", CIVILIANS[0], "kill", {"target": 0}, "只有匪徒能杀人。"),
    ("night", POLICE[0], "check", {"target": POLICE[1]}, "你现在不能验这个座位。"),
    ("night", BANDITS[0], "kill", {"target": 99}, "你现在不能杀这个座位。"),
    ("night", BANDITS[0], "check", {"target": 3}, "只有警察能验人。"),
    ("night", CIVILIANS[0], "team_message", {"text": "嗨"}, "你现在没有可以交流的队友。"),
    ("night", BANDITS[0], "speak", {"text": "早"}, "还没轮到你发言。"),
    ("night", BANDITS[0], "explode", {}, "本游戏中没有这个行动。"),
    ("night", BANDITS[0], "kill", {"target": 2, "pact": 1}, "这个行动的参数不对；请在表单中重新选择。"),
    ("speech", 5, "speak", {"text": "插话"}, "还没轮到你发言。"),
    ("speech", 3, "speak", {"text": "   "}, "内容须为1到20000个字符。"),
    ("speech", 3, "kill", {"target": 4}, "这是夜晚的行动；现在是白天。"),
    ("vote", 3, "vote", {"target": 3}, "你不能投票给自己。"),
    ("vote", 4, "vote", {"target": 1}, "还没轮到你投票。"),
    ("vote", 3, "vote", {"target": 2}, "你现在不能投票给这个座位。"),
    ("vote", 2, "abstain", {}, "你已经死亡；死者不再参与游戏。"),
])
def test_every_refusal_is_a_readable_sentence_and_stores_nothing(game, setup, seat, kind,
                                                                  params, sentence):
    if setup in ("speech", "vote"):
        night_one(game, victim=2)
        time_out(game)  # no last words
    if setup == "vote":
        speak_all(game)
    before = (Action.objects.filter(game=game).count(), fresh(game).state)
    with pytest.raises(services.GameError) as refused:
        act(game, seat, kind, **params)
    assert refused.value.message == sentence
    assert (Action.objects.filter(game=game).count(), fresh(game).state) == before


def test_the_current_speaker_and_voter_is_whom_the_service_waits_for(game):
    night_one(game, victim=2)
    time_out(game)
    assert services.ruleset_of(fresh(game)).phase(fresh(game).state).awaiting == {3}
    act(game, 3, "speak", text="过")
    assert current(game) == 4 and pub(game)["phase"] == "speech"
