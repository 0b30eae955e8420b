"""The engine's rule sets by name, imported directly: a broken rule set is an error at
start-up, never a name that quietly goes missing.

The service's table (games/rulesets.py) adds what the web needs (presenter, panel, title,
rules page) and registers every rule set here too; tests and benchmarks add theirs (the test
toy) through `games.rulesets.register`, which calls `register` below.
"""

from __future__ import annotations

from .base import RuleSet
from .classic.rules import Classic
from .gold.rules import Gold
from .ninelives.rules import NineLives

RULESETS: dict[str, type[RuleSet]] = {
    "ninelives": NineLives,
    "classic": Classic,
    "gold": Gold,
}
_instances: dict[str, RuleSet] = {}


def get(name: str) -> RuleSet:
    """The rule set called `name` (one shared instance). Raises KeyError for an unknown name."""
    if name not in _instances:
        _instances[name] = RULESETS[name]()
    return _instances[name]


def register(name: str, cls: type[RuleSet]) -> None:
    """Add a rule set under `name` (the same class again is a no-op; another is an error)."""
    if RULESETS.get(name, cls) is not cls:
        raise ValueError(f"rule set {name!r} is already registered as {RULESETS[name]!r}")
    RULESETS[name] = cls


def unregister(name: str) -> None:
    """Remove a rule set added with `register` (tests put the table back this way)."""
    RULESETS.pop(name)
    _instances.pop(name, None)
