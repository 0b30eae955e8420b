"""Classic legality is declared once (games/engine/classic/actions.py): the offered choices
and the refusals come from the same table, and each named step of the night can be called
on its own."""

from __future__ import annotations

import copy

from games.engine.classic import actions, night

from .helpers import Table


def test_every_kind_has_one_row_and_the_rules_accept_no_other():
    assert actions.KINDS == ("kill", "possess", "cancel_possession", "check", "protect",
                             "skip_protection", "defer", "team_message", "last_words",
                             "speak", "vote", "abstain")
    g = Table("PPPBBBCCCCCC")
    assert g.refuse(0, "fly").code == "unknown_action"


def test_choices_are_the_rows_whose_checks_pass():
    g = Table("PPPBBBCCCCCC")
    kinds = {seat: sorted({k for k, _, _ in actions.choices(g.state, seat)})
             for seat in (0, 3, 6)}
    assert kinds == {0: ["check", "defer", "team_message"],
                     3: ["defer", "kill", "team_message"], 6: []}
    assert all(actions.refusal(g.state, 3, kind, params) is None
               for kind, params, _ in actions.choices(g.state, 3))


def test_the_checks_run_in_the_declared_order():
    g = Table("PPPBBBCCCCCC")
    # 1. living, before 2. the phase
    g.state["public"]["alive"][6] = False
    assert actions.refusal(g.state, 6, "vote", {"target": 1}).code == "dead"
    # 2. the phase, before 3. the role
    assert actions.refusal(g.state, 0, "speak", {}).code == "not_your_turn_to_speak"
    # 3. the role, before 4. the parameters
    assert actions.refusal(g.state, 0, "kill", {}).code == "not_bandit"
    # 4. the parameters, before 6. the target
    assert actions.refusal(g.state, 3, "kill", {"target": 0, "x": 1}).code == "bad_params"
    assert actions.refusal(g.state, 3, "kill", {"target": 6}).code == "bad_kill_target"
    assert actions.refusal(g.state, 3, "kill", {"target": 0}) is None


def test_a_kind_of_the_night_proper_is_refused_during_the_extra_check_without_naming_it():
    g = Table("PPPBBBCCCCCC")
    g.state["public"]["phase"] = "extra_check"
    assert actions.refusal(g.state, 3, "kill", {"target": 0}).code == "choices_closed"
    g.state["public"]["phase"] = "vote"
    assert actions.refusal(g.state, 3, "kill", {"target": 0}).code == "wrong_phase"


def test_kill_step_a_protected_victim_survives_and_its_guardian_dies():
    g = Table("PPPBBBUCCCCC")
    g.act(3, "kill", target=8)
    g.act(6, "protect", target=8)
    state = copy.deepcopy(g.state)
    gm_why: list[str] = []
    night.set_guardians(state, [], gm_why)
    assert night.kill(state, [], 8, None, gm_why) is None
    assert [(d["seat"], d["cause"]) for d in state["secret"]["deaths"]] == [
        (6, "guarded_kill")]
    unguarded = copy.deepcopy(g.state)
    unguarded["secret"]["protecting"] = [None] * 12
    night.kill(unguarded, [], 8, None, [])
    assert [(d["seat"], d["cause"]) for d in unguarded["secret"]["deaths"]] == [(8, "killed")]


def test_set_guardians_a_second_skip_is_dereliction():
    g = Table("PPPBBBUCCCCC")
    state = copy.deepcopy(g.state)
    state["secret"]["skips"][6] = 1
    derelict = night.set_guardians(state, [], [])
    assert [seat for seat, _ in derelict] == [6]
