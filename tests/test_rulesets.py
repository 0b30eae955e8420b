"""The rule-set table (games/rulesets.py) and its system check (games/checks.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from games import presenters, rulesets
from games.checks import check_entry, check_rulesets
from games.engine import registry
from games.presenters import ninelives as ninelives_presenter
from games.presenters.interface import MEMBERS, METHODS, TABLES, Presenter, problems
from tests import toy


def test_every_rule_set_of_the_table_passes_the_check():
    assert rulesets.names() == ["ninelives", "classic", "gold"]
    assert check_rulesets() == []
    call_command("check", "--fail-level", "ERROR")  # raises SystemCheckError on an error


def entry(**changes):
    fields = dict(name="x", engine=registry.get("gold"), presenter=Presenter(),
                  panel="games/panels/default.html", title="X",
                  rules_doc=Path(rulesets.DOCS / "gold.md"), event_kinds=("picked",),
                  dead_talk=rulesets.SILENT)
    return rulesets.RuleSetEntry(**dict(fields, **changes))


def test_the_check_names_each_gap_of_an_entry():
    class Picks(Presenter):
        EVENTS = {"picked": None}

    presenter = Picks()
    assert check_entry(entry(presenter=presenter)) == []
    assert [e.id for e in check_entry(entry(event_kinds=()))] == ["games.E001"]
    problems = check_entry(entry(presenter=presenter, event_kinds=("picked", "flipped")))
    assert [e.id for e in problems] == ["games.E002"] and "flipped" in problems[0].msg
    assert [e.id for e in check_entry(entry(presenter=presenter, panel="games/panels/no.html"))
            ] == ["games.E003"]
    assert [e.id for e in check_entry(entry(presenter=presenter,
                                            rules_doc=Path("/nowhere/x.md")))] == ["games.E004"]


def test_the_check_sees_an_engine_the_table_does_not_hold():
    registry.register("toy", toy.Toy)
    try:
        assert [e.id for e in check_rulesets()] == ["games.E005"]
    finally:
        registry.unregister("toy")


def test_a_rule_set_is_registered_and_taken_out_again():
    toy.register()
    try:
        assert rulesets.get("toy").engine is registry.get("toy")
        assert presenters.ruleset_name("toy") == "Toy"
        with pytest.raises(ValueError):
            toy.register()
    finally:
        toy.unregister()
    assert "toy" not in rulesets.names() and "toy" not in registry.RULESETS


def test_an_unknown_rule_set_is_an_error_not_generic_text():
    with pytest.raises(KeyError):
        presenters.describe("nosuch", {"kind": "x", "data": {}}, {})


def test_extra_rule_sets_named_in_the_environment_must_exist():
    with pytest.raises(ImportError):
        rulesets.register_extra("tests.nosuch:register")
    with pytest.raises(AttributeError):
        rulesets.register_extra("tests.toy:nosuch")


def test_a_malformed_nine_lives_event_is_an_error_not_a_silent_fallback():
    with pytest.raises(KeyError):
        ninelives_presenter.present({"kind": "card_lost", "data": {}}, {})


# --- the presenter interface (games/presenters/interface.py, games.E006) ---------------------

class Picks(Presenter):
    EVENTS = {"picked": None}


def test_every_registered_presenter_implements_the_whole_interface():
    for name in rulesets.names():
        assert problems(rulesets.get(name).presenter) == [], name
    assert len(METHODS) + len(TABLES) == 25


def test_a_presenter_missing_a_method_fails_the_start_up_check():
    class NoPhaseNames(Picks):
        phase_name = None

    errors = check_entry(entry(presenter=NoPhaseNames()))
    assert [e.id for e in errors] == ["games.E006"]
    assert "phase_name" in errors[0].msg


def test_a_presenter_that_is_not_one_fails_the_check_for_each_missing_member():
    # A bare module, as presenters were before they were classes: a sentence table alone.
    import types

    module = types.ModuleType("games.presenters.x")
    module.EVENTS = {"picked": None}
    module.present = lambda event, names: None
    errors = check_entry(entry(presenter=module))
    assert {e.id for e in errors} == {"games.E006"}
    assert len(errors) == len(MEMBERS) - 2
    assert any("has no method label" in e.msg for e in errors)


def test_a_method_with_other_arguments_or_a_misspelt_one_fails_the_check():
    class Wrong(Picks):
        def phase_name(self, name, number):  # the interface passes the round too
            return None

        def vote_heading(self, name, number):
            return None

        def phase_nmae(self, name, number, round):  # a typo would be a silent default
            return None

    assert problems(Wrong()) == [
        "phase_name does not take the interface's 3 arguments",
        "Wrong.phase_nmae is not part of the presenter interface"]


def test_the_check_runs_over_the_whole_table():
    class Broken(Picks):
        label = "not a method"

    toy.register()
    try:
        rulesets.TABLE["toy"] = entry(name="toy", presenter=Broken())
        assert [e.id for e in check_rulesets()] == ["games.E006"]
    finally:
        rulesets.TABLE["toy"] = entry(name="toy")
        toy.unregister()


def test_the_presenters_do_not_import_the_rule_set_table():
    from scripts.code_graph import app_files, import_graph

    graph = import_graph(app_files())
    assert "games.rulesets" not in graph["games.presenters"]
    assert "games.presenters" in graph["games.rulesets"]
