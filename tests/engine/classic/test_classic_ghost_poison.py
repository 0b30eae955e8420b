"""Seed 003, ghost bandit and poison: possession, the death pact, the poison's checks,
what announcements hide, and victory rules A-D."""

from __future__ import annotations

from games.engine.base import SPECTATOR

from .helpers import RULES, Table, codes

# police 0-2, bandit 3, ghost 4, bandit 5, poison 6, civilians 7-11
GHOSTLY = "PPPBGBXCCCCC"


def test_possessing_a_civilian_turns_it_into_a_bandit_who_joins_the_team():
    t = Table(GHOSTLY)
    t.night(possess=7)
    assert t.role(7) == "bandit" and t.state["secret"]["possessed"] == [7]
    me = t.me(7)
    assert (me["role"], me["possessed"], me["team"], me["ghost_seat"]) == (
        "bandit", True, [3, 4, 5, 7], 4)
    for seat in (3, 4, 5, 7):
        assert t.last("possessed", seat)["data"]["seat"] == 7
    for seat in (0, 6, 8, SPECTATOR):
        assert "possessed" not in t.kinds_seen(seat)
    t.day()
    t.act(7, "kill", target=9, pact=7)          # a full bandit from the next night


def test_the_ghost_possesses_once_per_game():
    t = Table(GHOSTLY)
    assert [c.params["target"] for c in RULES.legal_actions(t.state, 4)
            if c.kind == "possess"] == [0, 1, 2, 6, 7, 8, 9, 10, 11]
    t.night(possess=8)
    t.day()
    assert t.refuse(4, "possess", target=9).code == "cannot_possess"
    assert not [c for c in RULES.legal_actions(t.state, 4) if c.kind == "possess"]


def test_only_the_ghost_possesses_and_never_its_own_team():
    t = Table(GHOSTLY)
    assert t.refuse(3, "possess", target=7).code == "cannot_possess"
    assert t.refuse(4, "possess", target=5).code == "bad_possess_target"
    assert t.refuse(4, "possess", target=4).code == "bad_possess_target"
    t.act(4, "possess", target=7)
    t.act(4, "cancel_possession")
    t.end()
    assert t.role(7) == "civilian" and not t.state["secret"]["possession_used"]


def test_possessing_a_police_officer_fails_but_uses_the_possession_and_warns_the_police():
    t = Table(GHOSTLY)
    t.night(possess=1)
    assert t.role(1) == "police" and t.state["secret"]["possession_used"]
    notice = t.last("possession_on_police", 0)
    assert notice["data"] == {}                     # the police are not told whom
    assert "possession_on_police" in t.kinds_seen(2)
    assert "possession_on_police" not in t.kinds_seen(3)
    assert t.last("possession_void", 3)["data"]["seat"] == 1


def test_possessing_the_poison_kills_the_ghost_and_the_poison_and_hides_every_identity():
    t = Table(GHOSTLY)
    t.night(kill=9, possess=6)
    assert t.dead() == [4, 6, 9]
    dawn = t.last("dawn", SPECTATOR)
    assert [d["label"] for d in dawn["data"]["deaths"]] == [None, None, None]
    assert t.pub["revealed"][9] is None
    assert "identities_hidden" in codes(dawn) and "died_as" not in codes(dawn)


def test_the_kill_comes_before_the_possession_so_possessing_the_victim_does_nothing():
    t = Table(GHOSTLY)
    t.night(kill=7, possess=7)
    assert t.dead() == [7]
    assert not t.state["secret"]["possession_used"]
    assert "possession_void" in t.kinds_seen(3)


def test_a_ghost_dying_in_the_death_pact_cannot_possess():
    t = Table(GHOSTLY)
    t.night(kill=6, pact=4, possess=8)
    assert t.dead() == [4, 6] and t.role(8) == "civilian"


def test_killing_the_poison_kills_the_pact_bandit_without_saying_which_is_which():
    t = Table(GHOSTLY)
    t.night(kill=6, pact=5)
    assert t.dead() == [5, 6]
    dawn = t.last("dawn", SPECTATOR)
    assert [d["label"] for d in dawn["data"]["deaths"]] == [None, None]
    assert dawn["data"]["pair"] == {"seats": [5, 6], "label": "bandit"}
    pair = dawn["because"][codes(dawn).index("poison_pair")]
    assert pair["args"] == {"seats": [5, 6], "role": "bandit", "ref": ["minor 3", "ghost 6"]}


def test_a_possessed_pact_bandit_is_named_as_possessed_in_the_pair():
    t = Table(GHOSTLY)
    t.night(possess=8)
    t.day()
    t.night(kill=6, pact=8)
    assert t.last("dawn", SPECTATOR)["data"]["pair"] == {"seats": [6, 8],
                                                         "label": "possessed_bandit"}


def test_the_kill_list_must_name_a_living_bandit_in_the_death_pact():
    t = Table(GHOSTLY)
    assert t.refuse(3, "kill", target=7).code == "kill_needs_pact"
    assert t.refuse(3, "kill", target=7, pact=7).code == "bad_pact"
    assert t.refuse(3, "kill", target=7, pact="4").code == "bad_pact"
    t.act(3, "kill", target=7, pact=5)


def test_checking_the_poison_tells_the_poison_and_gives_the_police_an_extra_check():
    t = Table(GHOSTLY)
    t.night(check=6)
    assert t.last("poison_checked", 6)["data"]["seat"] == 6
    assert "poison_checked" not in t.kinds_seen(0)
    assert t.me(0)["checks"][-1]["result"] == "poison"
    assert t.phase == "extra_check"
    assert RULES.phase(t.state).awaiting == frozenset({0, 1, 2})
    assert t.refuse(3, "check", target=4).code == "not_police"
    for p in (0, 1, 2):
        t.act(p, "check", target=4)
    t.end()
    assert t.me(1)["checks"][-1] == {"number": 1, "seat": 4, "result": "bandit", "extra": True}
    assert t.phase == "speech"


def test_the_extra_check_on_the_poison_again_gives_no_further_check():
    t = Table(GHOSTLY)
    t.night(check=6)
    t.act(0, "check", target=6)
    t.end()
    assert t.phase == "speech"


def test_the_police_may_check_the_same_seat_twice():
    t = Table(GHOSTLY)
    t.night(check=8)
    t.day()
    t.night(check=8, possess=8)
    assert [c["result"] for c in t.me(0)["checks"]] == ["civilian", "possessed_bandit"]


def test_a_check_and_a_possession_of_the_same_seat_report_the_possessed_bandit():
    t = Table(GHOSTLY)
    t.night(check=9, possess=9)
    assert t.me(2)["checks"] == [
        {"number": 1, "seat": 9, "result": "possessed_bandit", "extra": False}]


def test_the_ghost_is_revealed_as_a_plain_bandit_until_the_game_ends():
    t = Table(GHOSTLY)
    t.night(check=4)
    assert t.me(0)["checks"][0]["result"] == "bandit"
    t.day(t.all_vote(4))
    assert t.pub["revealed"][4] == "bandit"
    for b in (3, 5):
        t.night()
        t.day(t.all_vote(b))
    assert t.outcome().result == "police"
    assert t.pub["final_roles"][4] == "ghost"


def test_a_possessed_bandit_voted_out_is_announced_as_possessed():
    t = Table(GHOSTLY)
    t.night(possess=10)
    t.day(t.all_vote(10))
    assert t.last("verdict", SPECTATOR)["data"]["deaths"][0]["label"] == "possessed_bandit"


def test_a_possessed_bandit_counts_among_the_bandits_for_victory():
    t = Table(GHOSTLY)
    t.night(possess=10)
    for b in (3, 4, 5):
        t.day(t.all_vote(b))
        t.night()
    assert t.outcome() is None
    t.day(t.all_vote(10))
    assert t.outcome().result == "police"
    assert 10 not in t.outcome().winners


def test_the_poison_alone_does_not_keep_the_police_side_alive():
    t = Table(GHOSTLY)
    for cop in (0, 1):
        t.night(kill=cop)
        t.day()
    t.night(kill=2)
    assert t.alive(6) and t.outcome().result == "bandit"
    assert 6 not in t.outcome().winners


def test_the_last_police_and_the_last_bandit_dying_together_is_a_draw():
    t = Table(GHOSTLY)
    t.night(kill=0)
    t.day(t.all_vote(3))
    t.night(kill=1)
    t.day(t.all_vote(5))
    t.night(kill=2, pact=4, possess=6)       # the ghost is the last bandit
    outcome = t.outcome()
    assert outcome.result == "draw" and outcome.winners == ()
    over = t.last("game_over", SPECTATOR)
    assert codes(over) == ["every_bandit_dead", "every_police_dead", "two_results"]
    assert over["because"][-1]["args"] == {"ref": ["minor 5D"]}
    assert outcome.reason == over["data"]["reason"] == over["because"][-1]


def test_the_bandits_win_when_possession_leaves_no_civilian():
    t = Table(GHOSTLY)
    t.night(kill=7)
    t.day(t.all_vote(8))
    t.night(kill=9)
    t.day(t.all_vote(10))
    assert t.outcome() is None
    t.night(possess=11)
    assert t.outcome().result == "bandit" and 11 in t.outcome().winners


def test_the_night_s_victim_owes_words_once_the_extra_check_has_ended_the_night():
    """The extra check is the night going on: its victim is alive through it (so cannot
    watch), and owes last words from the night's end until given."""
    t = Table(GHOSTLY)
    t.night(kill=8, check=6)
    assert t.phase == "extra_check"
    assert 8 in RULES.living_seats(t.state) and not RULES.owes_words(t.state, 8)
    t.end()
    assert 8 not in RULES.living_seats(t.state)
    assert t.phase == "last_words" and RULES.owes_words(t.state, 8)
