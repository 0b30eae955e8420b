"""Seed 003, the single guardian: protection against the kill and the vote, its limits,
dereliction, the tie with its protégé, and what its death reveals."""

from __future__ import annotations

from games.engine.base import SPECTATOR

from .helpers import RULES, Table, codes

# police 0-2, bandits 3-5, guardian 6, civilians 7-11
GUARDED = "PPPBBBUCCCCC"


# The reasons that tell whom a guardian protected.
PROTECTION = {"died_in_its_place", "guardian_protects", "you_protect", "died_for_voted_out"}


def public_codes(t: Table) -> set[str]:
    return {code for e in t.log_of(SPECTATOR) for code in codes(e)}


def test_the_guardian_dies_in_place_of_the_protected_victim_and_the_cause_stays_hidden():
    t = Table(GUARDED)
    t.night(kill=8, protect={6: 8})
    assert t.dead() == [6] and t.alive(8)
    assert t.last("dawn", SPECTATOR)["data"]["deaths"] == [
        {"seat": 6, "label": "guardian", "last_words": True}]
    assert not public_codes(t) & PROTECTION
    assert "died_in_its_place" in codes(t.last("night_resolved"))


def test_a_guardian_killed_directly_is_announced_the_same_way():
    t = Table(GUARDED)
    t.night(kill=6, protect={6: 8})
    assert t.last("dawn", SPECTATOR)["data"]["deaths"] == [
        {"seat": 6, "label": "guardian", "last_words": True}]


def test_the_protection_also_holds_against_the_days_vote():
    t = Table(GUARDED)
    t.night(protect={6: 9})
    t.day(t.all_vote(9))
    assert t.dead() == [6] and t.alive(9)
    verdict = t.last("verdict", SPECTATOR)
    assert verdict["data"]["deaths"] == [{"seat": 6, "label": "guardian", "last_words": True}]


def test_the_protection_lasts_one_round_only():
    t = Table(GUARDED)
    t.night(protect={6: 9})
    t.day()
    t.night(kill=9, protect={6: 10})
    assert t.dead() == [9] and t.alive(6)


def test_the_single_guardian_protects_bandits_too():
    t = Table(GUARDED)
    t.night(protect={6: 3})
    t.day(t.all_vote(3))
    assert t.dead() == [6] and t.alive(3)


def test_the_guardian_cannot_protect_itself_the_dead_or_the_same_seat_twice():
    t = Table(GUARDED)
    assert t.refuse(6, "protect", target=6).code == "bad_protect_target"
    t.night(kill=11, protect={6: 8})
    t.day()
    assert t.refuse(6, "protect", target=11).code == "bad_protect_target"
    assert t.refuse(6, "protect", target=8).code == "bad_protect_target"
    assert t.me(6)["protected"] == [8]
    t.act(6, "protect", target=9)


def test_protecting_nobody_once_is_allowed_with_a_warning():
    t = Table(GUARDED)
    assert 6 in RULES.phase(t.state).awaiting
    t.night()                                   # no submission: a skip
    assert t.alive(6) and t.me(6)["skips"] == 1
    assert "protection_skipped" in t.kinds_seen(6)
    assert "protection_skipped" not in t.kinds_seen(0)


def test_a_second_skip_is_death_by_dereliction():
    t = Table(GUARDED)
    t.night(protect={6: None})                  # an explicit skip
    t.day()
    t.night(protect={6: 7})
    t.day()
    t.night()                                   # the second skip
    assert t.dead() == [6]
    assert t.state["secret"]["deaths"][-1]["cause"] == "dereliction"
    dawn = t.last("dawn", SPECTATOR)
    assert dawn["data"]["deaths"][0]["label"] == "guardian"
    assert dawn["data"]["dereliction"] == [6]


def test_a_guardian_with_nobody_left_to_protect_dies_after_two_such_rounds():
    t = Table(GUARDED)
    others = [s for s in range(12) if s != 6]
    t.state["secret"]["protected"][6] = others   # as if it had protected everyone already
    assert 6 not in RULES.phase(t.state).awaiting
    assert t.refuse(6, "skip_protection").code == "nobody_to_protect"
    t.night()
    assert t.alive(6) and t.me(6)["skips"] == 0 and t.me(6)["stranded"] == 1
    t.day()
    t.night()
    assert not t.alive(6)
    assert t.state["secret"]["deaths"][-1]["cause"] == "dereliction"


def test_a_guardian_and_its_protege_tied_at_the_top_of_the_vote_both_die():
    t = Table(GUARDED)
    t.night(protect={6: 9})
    plan = {0: 6, 1: 9, 2: 6, 3: 9}
    t.day(plan)
    assert sorted(t.dead()) == [6, 9]
    result = t.last("vote_result", SPECTATOR)
    assert result["data"]["eliminated"] == [6, 9]
    assert [d["label"] for d in t.last("verdict", SPECTATOR)["data"]["deaths"]] == [
        "guardian", "civilian"]


def test_a_tie_between_the_guardian_and_another_seat_is_an_ordinary_tie():
    t = Table(GUARDED)
    t.night(protect={6: 9})
    t.day({0: 6, 1: 10}, tie1={2: 10})
    assert t.dead() == [10]


def test_a_protected_poison_survives_the_kill_and_no_pact_bandit_dies():
    t = Table("PPPBGBXUCCCC")        # ghost variant with the guardian: poison 6, guardian 7
    t.night(kill=6, pact=3, protect={7: 6})
    assert t.dead() == [7] and t.alive(3) and t.alive(6)


def test_the_single_guardian_shares_no_victory():
    t = Table(GUARDED)
    for b in (3, 4, 5):
        t.night(protect={6: 4 + b})
        t.day(t.all_vote(b))
    assert t.outcome().result == "police" and 6 not in t.outcome().winners
