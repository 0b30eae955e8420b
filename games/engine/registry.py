"""The rule sets the service knows, by name. Imported lazily so one module's import error
cannot take the others down."""

from __future__ import annotations

import importlib
from functools import cache

from .base import RuleSet

# name -> "module:Class"
RULESETS: dict[str, str] = {
    "ninelives": "games.engine.ninelives.rules:NineLives",
    "classic": "games.engine.classic.rules:Classic",
    "gold": "games.engine.gold.rules:Gold",
}


def _extra() -> None:
    """Extra rule sets named in the environment (benchmarks register the test toy this way),
    e.g. BENCH_EXTRA_RULESETS="toy=tests.service.toy:Toy"."""
    import os

    for item in filter(None, os.environ.get("BENCH_EXTRA_RULESETS", "").split(",")):
        name, _, path = item.partition("=")
        RULESETS.setdefault(name.strip(), path.strip())


_extra()


@cache
def get(name: str) -> RuleSet:
    """The rule set called `name`. Raises KeyError for an unknown name."""
    module, cls = RULESETS[name].split(":")
    return getattr(importlib.import_module(module), cls)()


def available() -> list[str]:
    """The names whose modules import cleanly (the others are still being written)."""
    names = []
    for name in RULESETS:
        try:
            get(name)
        except ImportError:
            continue
        names.append(name)
    return names
