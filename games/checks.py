"""System checks of the rule-set table (registered by GamesConfig.ready(); `manage.py check`
runs them, and so does every management command and the test in tests/test_rulesets.py).

For every rule set in games/rulesets.py:
1. it declares the event kinds its engine can emit (games.E001);
2. its presenter has a sentence for each of them (games.E002);
3. its seat panel template exists (games.E003);
4. its rules page exists (games.E004);
5. the engine registry and the table name the same rule sets (games.E005);
6. its presenter implements the presenter interface, games/presenters/interface.py: every
   method callable with the interface's arguments, every table of its kind, nothing the
   interface does not declare (games.E006).
"""

from __future__ import annotations

from django.core.checks import Error
from django.template import TemplateDoesNotExist
from django.template.loader import get_template

from . import rulesets
from .engine import registry
from .presenters.interface import problems


def check_rulesets(app_configs=None, **kwargs) -> list[Error]:
    errors: list[Error] = []
    for entry in rulesets.TABLE.values():
        errors += check_entry(entry)
    if set(registry.RULESETS) != set(rulesets.TABLE):
        errors.append(Error(
            f"the engine registry ({sorted(registry.RULESETS)}) and the rule-set table "
            f"({sorted(rulesets.TABLE)}) differ", id="games.E005"))
    return errors


def check_entry(entry: rulesets.RuleSetEntry) -> list[Error]:
    errors = []
    where = f"rule set {entry.name!r}"
    if not entry.event_kinds:
        errors.append(Error(f"{where} declares no event kinds", id="games.E001",
                            hint="List them in games/engine/<name>/kinds.py."))
    presenter = type(entry.presenter).__name__
    for problem in problems(entry.presenter):
        errors.append(Error(f"{where}: its presenter {presenter} {problem}", id="games.E006",
                            hint="Presenters subclass games.presenters.interface.Presenter."))
    covered = set(getattr(entry.presenter, "EVENTS", {}))
    missing = [kind for kind in entry.event_kinds if kind not in covered]
    if missing:
        errors.append(Error(f"{where}: its presenter {presenter} has no "
                            f"sentence for {', '.join(missing)}", id="games.E002",
                            hint="Add them to the presenter's EVENTS table."))
    try:
        get_template(entry.panel)
    except TemplateDoesNotExist:
        errors.append(Error(f"{where}: no panel template {entry.panel}", id="games.E003"))
    if not entry.rules_doc.is_file():
        errors.append(Error(f"{where}: no rules page at {entry.rules_doc}", id="games.E004"))
    return errors
