"""The rule-set table: everything the service knows about each rule set, in one place.

    name -> engine (games/engine/<name>/), presenter (games/presenters/<name>.py), the seat's
            panel template (templates/games/panels/<name>.html), a title, the rules page
            (docs/rules/<name>.md) and the event kinds the engine declares it can emit

Imported by GamesConfig.ready(), so a broken import is a crash at start-up. The system check
in games/checks.py verifies every entry (the presenter covers every declared event kind, the
panel template and the rules page exist). Tests and benchmarks add a rule set of their own
with `register(...)` and take it out again with `unregister(name)`; a process started by
them (a Celery worker, gunicorn) is given one by the EXTRA_RULESETS environment variable
("module:function" callables that call `register`, run by GamesConfig.ready()).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from django.utils.translation import gettext_lazy as _

from .engine import registry
from .engine.base import RuleSet
from .engine.classic.kinds import EVENT_KINDS as CLASSIC_KINDS
from .engine.classic.rules import Classic
from .engine.gold.kinds import EVENT_KINDS as GOLD_KINDS
from .engine.gold.rules import Gold
from .engine.ninelives.kinds import EVENT_KINDS as NINELIVES_KINDS
from .engine.ninelives.rules import NineLives
from .presenters import classic as classic_presenter
from .presenters import gold as gold_presenter
from .presenters import ninelives as ninelives_presenter

DOCS = Path(__file__).resolve().parents[1] / "docs" / "rules"


@dataclass(frozen=True)
class RuleSetEntry:
    name: str
    engine: RuleSet
    presenter: ModuleType
    panel: str           # template path of the seat's "my hand" panel
    title: str           # lazily translated
    rules_doc: Path
    event_kinds: tuple[str, ...]


TABLE: dict[str, RuleSetEntry] = {}


def register(*, name: str, engine: type[RuleSet], presenter: ModuleType, panel: str,
             title: str, rules_doc: Path, event_kinds: tuple[str, ...]) -> RuleSetEntry:
    """Add a rule set to the table (and its engine to games.engine.registry)."""
    if name in TABLE:
        raise ValueError(f"rule set {name!r} is already in the table")
    registry.register(name, engine)
    entry = RuleSetEntry(name=name, engine=registry.get(name), presenter=presenter,
                         panel=panel, title=title, rules_doc=rules_doc,
                         event_kinds=tuple(event_kinds))
    TABLE[name] = entry
    return entry


def unregister(name: str) -> None:
    """Take a rule set added by `register` out of the table again."""
    del TABLE[name]
    registry.unregister(name)


def register_extra(spec: str) -> None:
    """Run each "module:function" of a comma-separated list (EXTRA_RULESETS); each calls
    `register`. An unknown module or function is an error, not a skipped name."""
    for item in filter(None, (part.strip() for part in spec.split(","))):
        module, _sep, function = item.partition(":")
        getattr(importlib.import_module(module), function)()


def get(name: str) -> RuleSetEntry:
    """The entry of `name`. Raises KeyError for a name the table does not hold."""
    return TABLE[name]


def engine(name: str) -> RuleSet:
    return TABLE[name].engine


def names() -> list[str]:
    return list(TABLE)


register(name="ninelives", engine=NineLives, presenter=ninelives_presenter,
         panel="games/panels/ninelives.html", title=_("Nine Lives (猫有n条命)"),
         rules_doc=DOCS / "ninelives.md", event_kinds=NINELIVES_KINDS)
register(name="classic", engine=Classic, presenter=classic_presenter,
         panel="games/panels/classic.html", title=_("Classic killing game"),
         rules_doc=DOCS / "classic.md", event_kinds=CLASSIC_KINDS)
register(name="gold", engine=Gold, presenter=gold_presenter,
         panel="games/panels/gold.html", title=_("Who Stole My Gold"),
         rules_doc=DOCS / "gold.md", event_kinds=GOLD_KINDS)
