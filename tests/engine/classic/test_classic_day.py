"""The day (seed 001 §3.13-§3.19), ties (§4.5) and victory (§4)."""

from __future__ import annotations

from games.engine.base import SPECTATOR

from .helpers import RULES, Table, codes

CLASSIC = "PPPBBBCCCCCC"   # police 1-3, bandits 4-6, civilians 7-12 (0-based: 0-2, 3-5, 6-11)


def to_votes(t: Table) -> None:
    """Pass the last words and the speeches of the current day."""
    while t.phase in ("last_words", "speech"):
        t.end()


def test_the_victim_leaves_last_words_and_only_the_victim_may():
    t = Table(CLASSIC)
    t.night(kill=6)
    assert t.phase == "last_words"
    assert RULES.phase(t.state).awaiting == frozenset({6})
    assert t.refuse(7, "last_words", text="me too").code == "no_last_words_due"
    t.act(6, "last_words", text="seat 4 is a bandit")
    assert t.refuse(6, "last_words", text="again").code == "last_words_given"
    assert RULES.phase(t.state).awaiting == frozenset()
    assert t.last("last_words", SPECTATOR)["data"]["text"] == "seat 4 is a bandit"
    t.end()
    assert t.phase == "speech"


def test_only_the_first_n_deaths_leave_last_words_n_being_the_police_count():
    t = Table(CLASSIC)
    t.night(kill=6)                      # death 1
    t.day(t.all_vote(7))                 # death 2
    t.night(kill=8)                      # death 3
    assert t.pub["last_words_due"] == [8]
    t.day(t.all_vote(9))                 # death 4: no last words
    assert t.last("verdict", SPECTATOR)["data"]["deaths"] == [
        {"seat": 9, "label": "civilian", "last_words": False}]
    assert t.phase == "night" and t.pub["death_order"] == [6, 7, 8, 9]


def test_a_silent_seat_s_last_words_are_skipped_when_the_time_runs_out():
    t = Table(CLASSIC)
    t.night(kill=6)
    t.end()
    assert t.last("last_words_skipped", SPECTATOR)["data"]["seats"] == [6]
    assert t.phase == "speech"


def test_speeches_start_with_the_seat_after_the_victim_in_seat_order():
    t = Table(CLASSIC)
    t.night(kill=8)
    t.end()
    assert t.pub["queue"] == [9, 10, 11, 0, 1, 2, 3, 4, 5, 6, 7]


def test_speeches_start_with_seat_one_after_a_night_without_deaths():
    t = Table(CLASSIC)
    t.night()
    assert t.phase == "speech" and t.pub["queue"] == list(range(12))


def test_each_living_player_speaks_once_in_turn_closing_with_guo():
    t = Table(CLASSIC)
    t.night(kill=11)
    t.end()
    assert t.pub["queue"][0] == 0
    assert t.refuse(1, "speak", text="my turn?").code == "not_your_turn_to_speak"
    assert RULES.phase(t.state).awaiting == frozenset({0})
    t.act(0, "speak", text="I trust seat 2. 过")
    assert RULES.phase(t.state).awaiting == frozenset()
    assert t.refuse(0, "speak", text="one more thing").code == "not_your_turn_to_speak"
    assert t.refuse(11, "speak", text="boo").code == "dead"
    t.end()
    assert RULES.phase(t.state).awaiting == frozenset({1})
    t.end()                                   # seat 2 stays silent: skipped
    assert t.last("speech_skipped", SPECTATOR)["data"]["seat"] == 1
    assert RULES.phase(t.state).awaiting == frozenset({2})


def test_votes_are_cast_in_the_speech_order_one_each_in_the_open():
    t = Table(CLASSIC)
    t.night(kill=8)
    to_votes(t)
    assert t.phase == "vote" and t.pub["queue"] == [9, 10, 11, 0, 1, 2, 3, 4, 5, 6, 7]
    assert t.refuse(10, "vote", target=3).code == "not_your_turn_to_vote"
    assert t.refuse(9, "vote", target=9).code == "self_vote"
    assert t.refuse(9, "vote", target=8).code == "bad_vote_target"      # dead
    t.act(9, "vote", target=3)
    assert t.refuse(9, "vote", target=4).code == "not_your_turn_to_vote"
    assert t.last("vote", 5)["data"] == {"voter": 9, "target": 3, "stage": 0}


def test_the_seat_with_the_most_votes_is_eliminated_and_revealed():
    t = Table(CLASSIC)
    t.night(kill=8)
    votes = {9: 3, 10: 3, 11: 4, 0: 3}
    t.day(votes)
    assert 3 in t.dead() and t.pub["revealed"][3] == "bandit"
    assert t.phase == "last_words" or t.phase == "night"


def test_a_silent_voter_abstains_when_the_time_runs_out():
    t = Table(CLASSIC)
    t.night(kill=8)
    to_votes(t)
    t.end()
    assert t.last("abstained", SPECTATOR)["data"] == {"voter": 9, "silent": True}


def test_a_day_without_any_vote_eliminates_nobody():
    t = Table(CLASSIC)
    t.night(kill=8)
    t.day({})
    assert t.dead() == [8] and t.phase == "night" and t.pub["number"] == 2
    assert t.last("vote_result", SPECTATOR)["data"]["eliminated"] == []


def tie_day(t: Table) -> None:
    """Night 1 kills seat 9; the day's vote ties between seats 4 and 7 (0-based 3 and 6)."""
    t.night(kill=8)
    to_votes(t)
    plan = {9: 3, 10: 6, 11: 3, 0: 6}
    while t.phase == "vote":
        voter = t.pub["queue"][t.pub["turn"]]
        if voter in plan:
            t.act(voter, "vote", target=plan[voter])
        t.end()


def test_a_tie_makes_the_tied_speak_again_and_the_others_vote_among_them():
    t = Table(CLASSIC)
    tie_day(t)
    assert t.phase == "tie_speech" and t.pub["stage"] == 1
    assert t.pub["queue"] == [3, 6] and t.pub["tied"] == [3, 6]
    t.end()
    t.end()
    assert t.phase == "tie_vote"
    assert t.pub["candidates"] == [3, 6]
    assert 3 not in t.pub["queue"] and 6 not in t.pub["queue"]
    voter = t.pub["queue"][0]
    assert t.refuse(voter, "vote", target=0).code == "bad_vote_target"   # not among the tied
    t.act(voter, "vote", target=6)
    while t.phase == "tie_vote":
        t.end()
    assert 6 in t.dead()


def test_a_second_tie_makes_the_others_speak_and_vote_again():
    t = Table(CLASSIC)
    tie_day(t)
    t.end()
    t.end()
    plan = {9: 3, 10: 6}
    while t.phase == "tie_vote":
        voter = t.pub["queue"][t.pub["turn"]]
        if voter in plan:
            t.act(voter, "vote", target=plan[voter])
        t.end()
    assert t.phase == "tie_speech" and t.pub["stage"] == 2
    assert t.pub["queue"] == [9, 10, 11, 0, 1, 2, 4, 5, 7]        # everyone but the tied


def test_a_third_tie_eliminates_nobody():
    t = Table(CLASSIC)
    tie_day(t)
    t.day(tie1={9: 3, 10: 6}, tie2={11: 6, 0: 3})
    assert t.dead() == [8]
    assert t.phase == "night" and t.pub["number"] == 2
    result = t.last("vote_result", SPECTATOR)
    assert result["data"] == {"stage": 2, "eliminated": [], "tied": [3, 6]}
    assert codes(result) == ["votes_per_seat", "third_tie"]
    assert result["because"][-1]["args"] == {"seats": [3, 6], "ref": ["4.5"]}


def test_a_tie_stage_narrows_to_the_seats_still_tied():
    t = Table(CLASSIC)
    t.night(kill=8)
    t.day({9: 3, 10: 6, 11: 7}, tie1={0: 3, 1: 6, 2: 7, 4: 3, 5: 6},
          tie2={0: 3, 1: 6})
    # stage 1 tied 3-6-7; stage 2 narrowed to 3 and 6, who tied again: nobody out
    assert t.last("vote_result", SPECTATOR)["data"]["tied"] == [3, 6]
    t2 = Table(CLASSIC)
    t2.night(kill=8)
    t2.day({9: 3, 10: 6, 11: 7}, tie1={0: 3, 1: 6, 2: 7, 4: 3, 5: 6},
           tie2={0: 3, 1: 6, 7: 6})
    assert 6 in t2.dead() and 7 not in t2.dead()


def test_the_police_side_wins_when_every_bandit_is_dead():
    t = Table(CLASSIC)
    for bandit in (3, 4, 5):
        t.night()
        t.day(t.all_vote(bandit))
    outcome = t.outcome()
    assert outcome.result == "police"
    assert outcome.winners == (0, 1, 2, 6, 7, 8, 9, 10, 11)
    assert RULES.phase(t.state).finished
    assert t.pub["final_roles"][3] == "bandit"


def test_the_bandits_win_when_every_police_officer_is_dead():
    t = Table(CLASSIC)
    for cop in (0, 1):
        t.night(kill=cop)
        t.day()
    t.night(kill=2)
    assert t.outcome().result == "bandit" and t.outcome().winners == (3, 4, 5)
    assert t.last("game_over", SPECTATOR)["data"]["roles"][0] == "police"


def test_the_game_ends_at_once_without_last_words_for_the_last_death():
    t = Table(CLASSIC)
    for cop in (0, 1):
        t.night(kill=cop)
        t.day()
    t.night(kill=2)
    assert t.phase == "over" and RULES.legal_actions(t.state, 2) == []
    assert t.refuse(2, "last_words", text="no").code == "game_over"
    before = t.state
    t.end()
    assert t.state == before


def test_every_civilian_dead_is_a_draw_in_the_classic_game():
    t = Table("PPPBBBCCCCCC")
    civilians = [6, 7, 8, 9, 10, 11]
    for i in range(3):
        t.night(kill=civilians[2 * i])
        t.day(t.all_vote(civilians[2 * i + 1]))
    assert t.outcome().result == "draw" and t.outcome().winners == ()


def test_every_civilian_dead_can_be_made_a_bandit_win():
    t = Table("PPPBBBCCCCCC", all_civilians_dead="bandit")
    civilians = [6, 7, 8, 9, 10, 11]
    for i in range(3):
        t.night(kill=civilians[2 * i])
        t.day(t.all_vote(civilians[2 * i + 1]))
    assert t.outcome().result == "bandit"


def test_a_victim_owes_words_from_the_death_until_given_and_then_no_more():
    """`owes_words`: the service lets a dead seat watch the game only once it is False."""
    t = Table(CLASSIC)
    assert not RULES.owes_words(t.state, 6)
    t.night(kill=6)
    assert RULES.owes_words(t.state, 6) and not RULES.owes_words(t.state, 7)
    t.act(6, "last_words", text="seat 4 is a bandit")
    assert not RULES.owes_words(t.state, 6)


def test_a_victim_who_stays_silent_owes_nothing_once_the_phase_ends():
    t = Table(CLASSIC)
    t.night(kill=6)
    t.end()
    assert t.phase == "speech" and not RULES.owes_words(t.state, 6)
