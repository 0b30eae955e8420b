"""Reasons as data: how an engine explains an outcome, refuses a step or states a result.

An engine never writes prose. Every explanation (an event's `because` chain), every refusal
and every result summary is a *reason*: a code from the rule set's one table, with typed
arguments,

    {"code": "attacked", "args": {"seat": 3, "phase": {"name": "night", "number": 2},
                                  "ref": ["3.5.2"]}}

Seats are 0-based in the data, as everywhere in the engine; presenters number them from 1.
The presenters render a reason in the reader's language through the gettext catalogue, one
msgid per code with a named placeholder per argument (games/presenters/reasons.py). Nothing
ever parses text back.

Each rule set declares its table once (games/engine/<rule set>/reasons.py):

    R = Reasons("ninelives", {
        "attacked": {"seat": SEAT, "phase": PHASE, "ref": SECTIONS},
        ...
    })
    because=[R("attacked", seat=target, phase=phase_of(state), ref=["3.5.2"])]

Calling the table checks the code and the argument names at once (a typo fails the first
test that reaches it); `problems()` checks the argument values' types (the conformance test
runs it over every reason random play emits).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Reason = dict[str, Any]

# --- argument types -------------------------------------------------------------------------
# A type is a name (what the presenter renders it as) and a check of the value's shape.


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_str(v) -> bool:
    return isinstance(v, str)


def _list_of(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, list) and all(check(x) for x in v)


def _is_phase(v) -> bool:
    return (isinstance(v, dict) and set(v) == {"name", "number"} and _is_str(v["name"])
            and _is_int(v["number"]))


SEAT = "seat"            # a seat, 0-based: "3号阿狗"
SEATS = "seats"          # a list of seats: "3号阿狗、5号老黑"
CARD = "card"            # a card or role key of the rule set: its name in the reader's words
CARDS = "cards"          # a list of such keys
CAMP = "camp"            # a camp key
PHASE = "phase"          # {"name": "night", "number": 2}: "第2夜"
SECTIONS = "sections"    # rule-text section numbers ["3.5.2", "8.1"]: "§3.5.2、§8.1"
NUMBER = "number"        # an integer shown as it is
TEXT = "text"            # words a person wrote (a GM's reason, a manifesto): shown as they are
WORD = "word"            # another key of the rule set (an action kind, a result, a delta sign):
                         # the presenter's own words for it

CHECKS: dict[str, Callable[[Any], bool]] = {
    SEAT: _is_int,
    SEATS: _list_of(_is_int),
    CARD: _is_str,
    CARDS: _list_of(_is_str),
    CAMP: _is_str,
    PHASE: _is_phase,
    SECTIONS: _list_of(_is_str),
    NUMBER: _is_int,
    TEXT: _is_str,
    WORD: _is_str,
}


def phase_arg(name: str, number: int) -> dict:
    """A PHASE argument."""
    return {"name": name, "number": int(number)}


def register_type(name: str, check: Callable[[Any], bool]) -> str:
    """A rule set's own argument type (e.g. a card used by a seat on a seat); its presenter
    supplies the renderer. Returns the name, for the table."""
    CHECKS.setdefault(name, check)
    return name


class Reasons:
    """One rule set's table of reason codes: code -> {argument name: type}."""

    def __init__(self, ruleset: str, table: Mapping[str, Mapping[str, str]]):
        for code, args in table.items():
            unknown = [t for t in args.values() if t not in CHECKS]
            if unknown:
                raise ValueError(f"{ruleset} reason {code!r}: unknown argument types {unknown}")
        self.ruleset = ruleset
        self.table = {code: dict(args) for code, args in table.items()}

    def __call__(self, code: str, **args: Any) -> Reason:
        """A reason of this table. Raises on an unknown code or a missing or unknown
        argument name (types are checked by `problems`)."""
        declared = self.table.get(code)
        if declared is None:
            raise KeyError(f"{self.ruleset}: no reason code {code!r}")
        if set(args) != set(declared):
            raise TypeError(f"{self.ruleset} reason {code!r} takes {sorted(declared)}, "
                            f"got {sorted(args)}")
        return {"code": code, "args": args}

    def __contains__(self, code: str) -> bool:
        return code in self.table

    def codes(self) -> list[str]:
        return list(self.table)

    def problems(self, reason: Any) -> list[str]:
        """What is wrong with `reason` as a reason of this table (empty when nothing)."""
        if not (isinstance(reason, dict) and set(reason) == {"code", "args"}
                and isinstance(reason["args"], dict)):
            return [f"not a reason: {reason!r}"]
        declared = self.table.get(reason["code"])
        if declared is None:
            return [f"unknown code {reason['code']!r}"]
        out = []
        if set(reason["args"]) != set(declared):
            out.append(f"{reason['code']}: arguments {sorted(reason['args'])}, "
                       f"declared {sorted(declared)}")
        for name, kind in declared.items():
            if name in reason["args"] and not CHECKS[kind](reason["args"][name]):
                out.append(f"{reason['code']}: {name}={reason['args'][name]!r} is not a {kind}")
        return out


def is_reason(value: Any) -> bool:
    """Is `value` shaped like a reason (a dict with a code and arguments)?"""
    return isinstance(value, dict) and "code" in value and isinstance(value.get("args"), dict)


# The reasons every rule set shares: the GM's own acts in the event log (the service writes
# them, games/services/kernel.py `log_gm`).
GM_REASONS = Reasons("gm", {"gm_action": {"act": WORD}})
