"""Setup: seats and teams (seed 001 §1), the deal by lot, the options and their refusals."""

from __future__ import annotations

from collections import Counter

import pytest

from games.engine.base import GM, SPECTATOR, replay
from games.engine.classic import roles as R
from games.engine.classic.reasons import R as WHY
from games.engine.classic.rules import Classic

from .helpers import RULES, Table, deal


@pytest.mark.parametrize("seats,team", [(11, 3), (12, 3), (14, 3), (15, 4), (16, 4)])
def test_police_and_bandits_are_three_each_up_to_14_players_and_four_from_15(seats, team):
    state = RULES.initial_state(seats=seats, seed=f"s{seats}").state
    counts = Counter(state["secret"]["roles"])
    assert counts[R.POLICE] == team
    assert counts[R.BANDIT] == team
    assert counts[R.CIVILIAN] == seats - 2 * team
    assert state["public"]["last_words_limit"] == team


@pytest.mark.parametrize("config,extra", [
    ({"variant_ghost_poison": True}, {R.POISON: 1}),
    ({"guardian": True}, {R.GUARDIAN: 1}),
    ({"dual_guardians": True}, {R.POLICE_GUARDIAN: 1, R.BANDIT_GUARDIAN: 1}),
])
def test_each_special_role_takes_a_civilians_place(config, extra):
    state = RULES.initial_state(seats=12, config=config, seed="x").state
    counts = Counter(state["secret"]["roles"])
    assert counts[R.POLICE] == 3 and counts[R.BANDIT] == 3
    for role, k in extra.items():
        assert counts[role] == k
    assert counts[R.CIVILIAN] == 6 - sum(extra.values())


def test_the_ghost_is_one_of_the_bandits_drawn_after_the_deal():
    state = RULES.initial_state(seats=13, config={"variant_ghost_poison": True},
                                seed="g").state
    ghost = state["secret"]["ghost"]
    assert state["secret"]["roles"][ghost] == R.BANDIT
    purposes = [e["data"]["purpose"] for e in state["log"] if e["kind"] == "chance"]
    assert purposes == ["deal", "ghost"]


def test_the_deal_is_by_lot_and_replays_from_the_seed():
    a = RULES.initial_state(seats=12, seed="one").state
    b = RULES.initial_state(seats=12, seed="two").state
    assert replay(RULES, {"seats": 12, "seed": "one"}, []) == a
    deals = {tuple(RULES.initial_state(seats=12, seed=f"k{i}").state["secret"]["roles"])
             for i in range(20)}
    assert len(deals) > 15 and a["secret"]["roles"] != b["secret"]["roles"]


def test_every_seat_sees_its_own_role_only():
    t = Table("PPPBBBCCCCCC")
    for seat in range(12):
        roles_seen = [e for e in t.log_of(seat) if e["kind"] == "role"]
        assert [e["data"]["seat"] for e in roles_seen] == [seat]
    assert not [e for e in t.log_of(SPECTATOR) if e["kind"] == "role"]


def test_police_and_bandits_see_their_teammates_and_civilians_see_no_team():
    t = Table("PCPBCBCCBCPC")
    assert t.me(0)["team"] == [0, 2, 10]
    assert t.me(3)["team"] == [3, 5, 8]
    assert "team" not in t.me(1)
    assert [e["data"]["team"] for e in t.log_of(5) if e["kind"] == "teammates"] == [[3, 5, 8]]
    assert not [e for e in t.log_of(1) if e["kind"] == "teammates"]


def test_bandits_know_their_ghost():
    t = Table("PPPBGBXCCCCC")
    assert t.me(3)["ghost_seat"] == 4
    assert t.me(4)["ghost"] is True
    assert "ghost_seat" not in t.me(6)


@pytest.mark.parametrize("seats", [10, 17, 0, "12", True])
def test_a_game_needs_11_to_16_players(seats):
    with pytest.raises(ValueError, match="11 to 16"):
        RULES.initial_state(seats=seats, seed="x")


@pytest.mark.parametrize("config,message", [
    ({"guardian": True, "dual_guardians": True}, "either the single guardian"),
    ({"nine_lives": True}, "Unknown option"),
    ({"guardian": "yes"}, "true or false"),
    ({"all_civilians_dead": "police"}, "all_civilians_dead"),
    ({"fixed_roles": ["police"] * 12}, "exactly"),
    ({"fixed_roles": deal("PPPBBBCCCCC")}, "one card per seat"),
    ({"fixed_roles": deal("PPPBBBCCCCCC") [:-1] + ["wizard"]}, "one card per seat"),
    ({"fixed_roles": deal("PPPBBGXCCCCC")}, "exactly"),   # a ghost without the variant
])
def test_invalid_options_are_refused_with_a_reason(config, message):
    with pytest.raises(ValueError, match=message):
        RULES.initial_state(seats=12, config=config, seed="x")


def test_all_civilians_dead_defaults_to_each_seeds_rule():
    def rule(**config):
        return RULES.initial_state(seats=12, config=config, seed="x").state[
            "public"]["all_civilians_dead"]
    assert rule() == "draw"                              # seed 001 §4.3
    assert rule(variant_ghost_poison=True) == "bandit"   # seed 003 5B
    assert rule(guardian=True) == "bandit"
    assert rule(all_civilians_dead="draw", guardian=True) == "draw"
    assert rule(all_civilians_dead="bandit") == "bandit"


def test_the_game_opens_on_night_one_awaiting_the_police_and_the_bandits():
    t = Table("PPPBBBCCCCCC")
    info = RULES.phase(t.state)
    assert (info.name, info.number, info.finished) == ("night", 1, False)
    assert info.awaiting == frozenset({0, 1, 2, 3, 4, 5})


def test_the_gm_sees_everything_and_has_no_moves():
    t = Table("PPPBBBCCCCCC")
    view = RULES.view(t.state, GM)
    assert view["secret"]["roles"][3] == "bandit"
    assert RULES.legal_actions(t.state, GM) == []
    assert t.refuse(GM, "kill", target=1).code == "gm_has_no_moves"


def test_registry_name_and_seat_limits():
    assert (Classic.name, Classic.min_seats, Classic.max_seats) == ("classic", 11, 16)


def test_malformed_steps_are_refused_with_a_reason_never_raised():
    t = Table("PPPBBBCCCCCC")
    bad_steps = [
        None, [], {"actor": 3}, {"actor": 3, "kind": "kill", "params": None},
        {"actor": True, "kind": "kill", "params": {"target": 7}},
        {"actor": 3, "kind": "kill", "params": {"target": 7.0}},
        {"actor": 3, "kind": "kill", "params": {"target": True}},
        {"actor": 3, "kind": "kill", "params": {"target": 7, "extra": 1}},
        {"actor": 3, "kind": "team_message", "params": {"text": 5}},
        {"actor": 3, "kind": "team_message", "params": {"text": "   "}},
        {"actor": 3, "kind": "team_message", "params": {"text": "x" * 20_001}},
        {"actor": "clock", "kind": "end_phase", "params": {}},
    ]
    for step in bad_steps:
        before = t.state
        result = RULES.apply(t.state, step)
        assert result.__class__.__name__ == "Refusal", step
        assert result.code and set(vars(result)) == {"code", "params"}  # no prose beside it
        assert WHY.problems({"code": result.code, "args": result.params}) == []
        assert t.state is before


def test_the_gm_reads_the_teams_private_talk():
    t = Table("PPPBBBCCCCCC")
    t.act(3, "team_message", text="kill 7")
    assert [e["data"]["text"] for e in t.log_of(GM) if e["kind"] == "team_message"] == [
        "kill 7"]


def test_the_deal_commitment_text_names_every_card_as_dealt():
    t = Table("PPPBGBXCCCCC")
    t.night(possess=7)                          # possession changes roles, not the deal
    text = RULES.commitment_text(t.state)
    assert text.splitlines()[4] == "seat 5: ghost"
    assert text.splitlines()[7] == "seat 8: civilian" and t.role(7) == "bandit"
    assert len(text.splitlines()) == 12


def test_living_seats_follow_the_public_deaths():
    t = Table("PPPBBBCCCCCC")
    t.night(kill=8)
    assert RULES.living_seats(t.state) == [s for s in range(12) if s != 8]
