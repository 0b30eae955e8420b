"""The rule-set table (games/rulesets.py) and its system check (games/checks.py)."""

from __future__ import annotations

import types
from pathlib import Path

import pytest
from django.core.management import call_command

from games import presenters, rulesets
from games.checks import check_entry, check_rulesets
from games.engine import registry
from games.presenters import base
from games.presenters import ninelives as ninelives_presenter
from tests import toy


def test_every_rule_set_of_the_table_passes_the_check():
    assert rulesets.names() == ["ninelives", "classic", "gold"]
    assert check_rulesets() == []
    call_command("check", "--fail-level", "ERROR")  # raises SystemCheckError on an error


def entry(**changes):
    fields = dict(name="x", engine=registry.get("gold"), presenter=base,
                  panel="games/panels/default.html", title="X",
                  rules_doc=Path(rulesets.DOCS / "gold.md"), event_kinds=("picked",),
                  dead_talk=rulesets.SILENT)
    return rulesets.RuleSetEntry(**dict(fields, **changes))


def test_the_check_names_each_gap_of_an_entry():
    presenter = types.ModuleType("games.presenters.x")
    presenter.EVENTS = {"picked": None}
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
