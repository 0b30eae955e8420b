"""The night (seed 001 §3.3-§3.13): the bandits' majority, the police check, dawn."""

from __future__ import annotations

from games.engine.base import SPECTATOR

from .helpers import RULES, Table

CLASSIC = "PPPBBBCCCCCC"   # police 1-3, bandits 4-6, civilians 7-12


def test_the_bandits_kill_the_seat_most_of_them_propose():
    t = Table(CLASSIC)
    t.act(3, "kill", target=7)
    t.act(4, "kill", target=7)
    t.act(5, "kill", target=8)
    t.end()
    assert t.dead() == [7]


def test_a_silent_bandit_counts_as_agreeing_with_the_others():
    t = Table(CLASSIC)
    t.act(5, "kill", target=9)          # seats 4 and 5 say nothing
    t.end()
    assert t.dead() == [9]


def test_a_deferring_bandit_expresses_no_opinion_and_is_no_longer_awaited():
    t = Table(CLASSIC)
    t.act(3, "defer")
    t.act(4, "kill", target=10)
    assert 3 not in RULES.phase(t.state).awaiting and 5 in RULES.phase(t.state).awaiting
    t.end()
    assert t.dead() == [10]


def test_a_tie_between_proposals_is_broken_by_a_recorded_lot():
    picks = set()
    for i in range(12):
        t = Table(CLASSIC, seed=f"tie{i}")
        t.act(3, "kill", target=7)
        t.act(4, "kill", target=8)
        t.end()
        (victim,) = t.dead()
        assert victim in (7, 8)
        chance = t.last("chance")
        assert chance["data"]["purpose"] == "kill_tie" and chance["data"]["drawn"] == victim
        assert chance["visibility"] == {"public": False, "seats": []}
        picks.add(victim)
    assert picks == {7, 8}


def test_no_proposal_means_no_kill():
    t = Table(CLASSIC)
    t.end()
    assert t.dead() == []
    assert t.last("dawn", SPECTATOR)["data"]["deaths"] == []


def test_a_bandit_may_change_its_proposal_until_the_night_ends():
    t = Table(CLASSIC)
    t.act(3, "kill", target=7)
    t.act(3, "kill", target=11)
    t.end()
    assert t.dead() == [11]


def test_the_bandits_see_each_others_proposals_and_nobody_else_does():
    t = Table(CLASSIC)
    t.act(3, "kill", target=7)
    for seat in (3, 4, 5):
        assert "kill_proposed" in t.kinds_seen(seat)
    for seat in (0, 6, SPECTATOR):
        assert "kill_proposed" not in t.kinds_seen(seat)


def test_team_messages_reach_the_team_and_the_gm_only():
    t = Table(CLASSIC)
    t.act(4, "team_message", text="seat 7 talks like a cop")
    assert t.last("team_message", 3)["data"]["text"] == "seat 7 talks like a cop"
    assert "team_message" not in t.kinds_seen(0)
    t.act(1, "team_message", text="check 5?")
    assert "team_message" in t.kinds_seen(2) and t.kinds_seen(5).count("team_message") == 1
    assert t.refuse(6, "team_message", text="hello").code == "no_team"


def test_the_police_learn_the_exact_role_of_the_seat_they_check():
    t = Table(CLASSIC)
    t.act(0, "check", target=4)
    t.act(1, "check", target=4)
    t.act(2, "check", target=9)
    t.end()
    for p in (0, 1, 2):
        assert t.me(p)["checks"] == [
            {"number": 1, "seat": 4, "result": "bandit", "extra": False}]
    for other in (3, 4, 9, SPECTATOR):
        assert "check_result" not in t.kinds_seen(other)


def test_the_police_learn_the_check_even_if_the_seat_dies_that_night():
    t = Table(CLASSIC)
    t.night(kill=8, check=8)
    assert t.me(0)["checks"][0]["result"] == "civilian" and t.dead() == [8]


def test_classic_police_cannot_check_the_same_seat_twice():
    t = Table(CLASSIC)
    t.night(check=6)
    t.day()
    assert t.refuse(0, "check", target=6).code == "bad_check_target"


def test_police_cannot_check_themselves_teammates_or_the_dead():
    t = Table(CLASSIC)
    t.night(kill=9)
    t.day()
    for target in (0, 1, 9, 12, -1, "3", None):
        assert t.refuse(0, "check", target=target).code == "bad_check_target"


def test_only_bandits_kill_and_only_police_check():
    t = Table(CLASSIC)
    assert t.refuse(0, "kill", target=7).code == "not_bandit"
    assert t.refuse(6, "check", target=3).code == "not_police"
    assert t.refuse(6, "defer").code == "not_a_team_member"
    assert t.refuse(3, "kill", target=7, pact=4).code == "bad_params"


def test_bandits_may_kill_one_of_their_own():
    t = Table(CLASSIC)
    t.night(kill=5)
    assert t.dead() == [5]
    assert t.last("dawn", SPECTATOR)["data"]["deaths"] == [
        {"seat": 5, "label": "bandit", "last_words": True}]


def test_night_actions_are_refused_by_day_and_day_actions_by_night():
    t = Table(CLASSIC)
    assert t.refuse(0, "vote", target=4).code == "not_your_turn_to_vote"
    assert t.refuse(0, "speak", text="hi").code == "not_your_turn_to_speak"
    t.night(kill=8)
    assert t.refuse(3, "kill", target=7).code == "wrong_phase"


def test_dawn_announces_the_dead_and_their_identity_to_everyone():
    t = Table(CLASSIC)
    t.night(kill=1)
    dawn = t.last("dawn", SPECTATOR)
    assert dawn["data"]["deaths"] == [{"seat": 1, "label": "police", "last_words": True}]
    assert t.pub["revealed"][1] == "police"
    assert dawn["because"][0] == {"code": "dawn_announces", "args": {"ref": ["3.13"]}}
    assert dawn["because"][1] == {"code": "died_as", "args": {"seat": 1, "role": "police"}}


def test_the_night_ends_early_only_when_every_team_member_answered():
    t = Table(CLASSIC)
    t.act(3, "kill", target=7)
    t.act(4, "defer")
    t.act(5, "kill", target=7)
    t.act(0, "check", target=3)
    t.act(1, "defer")
    assert RULES.phase(t.state).awaiting == frozenset({2})
    t.act(2, "check", target=3)
    assert RULES.phase(t.state).awaiting == frozenset()
