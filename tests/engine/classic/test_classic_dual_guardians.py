"""Seed 003, dual guardians: whom each protects, both dying for one civilian, the identity
reveals (§4), and the police guardian's lapse when the bandits kill the bandit guardian
(§6)."""

from __future__ import annotations

from games.engine.base import SPECTATOR

from .helpers import RULES, Table

# police 0-2, bandits 3-5, police guardian 6, bandit guardian 7, civilians 8-11
DUAL = "PPPBBBQKCCCC"


def dawn_labels(t: Table) -> list:
    return [d["label"] for d in t.last("dawn", SPECTATOR)["data"]["deaths"]]


def test_the_police_guardian_saves_police_and_civilians_but_not_bandits():
    t = Table(DUAL)
    t.night(kill=0, protect={6: 0})
    assert t.dead() == [6] and t.alive(0)
    t2 = Table(DUAL)
    t2.night(protect={6: 3})
    t2.day(t2.all_vote(3))
    assert t2.dead() == [3] and t2.alive(6)


def test_the_bandit_guardian_saves_bandits_and_civilians_but_not_police():
    t = Table(DUAL)
    t.night(protect={7: 4})
    t.day(t.all_vote(4))
    assert t.dead() == [7] and t.alive(4)
    t2 = Table(DUAL)
    t2.night(kill=1, protect={7: 1})
    assert t2.dead() == [1] and t2.alive(7)


def test_protecting_a_seat_it_cannot_save_is_allowed_since_the_guardian_cannot_know():
    t = Table(DUAL)
    t.act(6, "protect", target=3)
    t.act(7, "protect", target=0)


def test_both_guardians_die_when_both_protect_a_civilian_who_is_killed():
    t = Table(DUAL)
    t.night(kill=9, protect={6: 9, 7: 9})
    assert t.dead() == [6, 7] and t.alive(9)
    assert dawn_labels(t) == [None, None]


def test_both_guardians_die_when_both_protect_a_civilian_who_is_voted_out():
    t = Table(DUAL)
    t.night(protect={6: 9, 7: 9})
    t.day(t.all_vote(9))
    assert t.dead() == [6, 7] and t.alive(9)
    labels = [d["label"] for d in t.last("verdict", SPECTATOR)["data"]["deaths"]]
    assert labels == ["guardian", "guardian"]          # not which guardian (§4)


def test_a_dual_guardian_dying_at_night_is_not_revealed_even_if_killed_directly():
    t = Table(DUAL)
    t.night(kill=6)
    assert dawn_labels(t) == [None] and t.pub["revealed"][6] is None


def test_a_dual_guardian_voted_out_itself_is_revealed_with_its_side():
    t = Table(DUAL)
    t.night(protect={6: 8})
    t.day(t.all_vote(7))
    assert t.pub["revealed"][7] == "bandit_guardian"
    t.night(protect={6: 9})
    t.day(t.all_vote(6))
    assert t.pub["revealed"][6] == "police_guardian"


def test_the_police_learn_which_guardian_they_checked():
    t = Table(DUAL)
    t.night(check=6)
    t.day()
    t.night(check=7)
    assert [c["result"] for c in t.me(0)["checks"]] == ["police_guardian", "bandit_guardian"]


def test_killing_the_bandit_guardian_turns_the_police_guardian_into_a_civilian_silently():
    t = Table(DUAL)
    t.night(kill=7, protect={6: 9})
    assert t.state["secret"]["lapsed"] == [6] and t.me(6)["lapsed"] is True
    assert "guardian_lapsed" in t.kinds_seen(6)
    for seat in (0, 3, 9, SPECTATOR):
        assert "guardian_lapsed" not in t.kinds_seen(seat)
    t.day(t.all_vote(9))                        # this round's protection is void
    assert not t.alive(9) and t.alive(6)
    assert not [c for c in RULES.legal_actions(t.state, 6) if c.kind == "protect"]
    assert 6 not in RULES.phase(t.state).awaiting
    assert t.refuse(6, "protect", target=10).code == "not_guardian"


def test_a_lapsed_police_guardian_still_shows_as_police_guardian():
    t = Table(DUAL)
    t.night(kill=7)
    t.day()
    t.night(check=6)
    assert t.me(0)["checks"][-1]["result"] == "police_guardian"
    t.day(t.all_vote(6))
    assert t.pub["revealed"][6] == "police_guardian"


def test_a_lapsed_police_guardian_counts_as_a_civilian_for_victory():
    t = Table(DUAL)
    t.night(kill=7)
    t.day(t.all_vote(8))
    t.night(kill=9)
    t.day(t.all_vote(10))
    t.night(kill=11)
    assert t.outcome() is None                  # seat 7 still plays as a civilian
    t.day(t.all_vote(6))
    assert t.outcome().result == "bandit"


def test_the_bandit_guardian_dying_in_someone_s_place_does_not_lapse_the_police_guardian():
    t = Table(DUAL)
    t.night(kill=4, protect={7: 4})
    assert t.dead() == [7] and t.state["secret"]["lapsed"] == []


def test_a_dead_police_guardian_is_not_told_of_the_lapse():
    t = Table(DUAL)
    t.night(kill=6)
    t.day()
    t.night(kill=7)
    assert "guardian_lapsed" not in t.kinds_seen(6)


def test_dual_guardians_share_their_side_s_victory():
    t = Table(DUAL)
    for b in (3, 4, 5):
        t.night()
        t.day(t.all_vote(b))
    assert t.outcome().result == "police"
    assert 6 in t.outcome().winners and 7 not in t.outcome().winners
