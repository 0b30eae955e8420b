"""Engine events as sentences for people (announcements, 神的使者's messages, timelines).

The engine speaks in event kinds and data; each rule set may register a presenter that turns
its events into translated sentences. The generic fallback names the kind and its facts, with
seat numbers replaced by the players' display names.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache

from django.utils.translation import gettext as _

# rule set -> "module" exposing `present(event, names) -> str | None` and optionally
# `label(choice, names) -> str | None` for the action form
PRESENTERS = {
    "ninelives": "games.presenters_ninelives",
    "classic": "games.presenters_classic",
    "gold": "games.presenters_gold",
}

def ruleset_name(name: str) -> str:
    names = {"ninelives": _("Nine Lives (猫有n条命)"), "classic": _("Classic killing game"),
             "gold": _("Who Stole My Gold")}
    return names.get(name, name)


SEAT_KEYS = ("seat", "target", "voter", "attacker", "victim", "by", "executed", "loser")


@cache
def _module(ruleset: str):
    module = PRESENTERS.get(ruleset)
    if not module:
        return None
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def _presenter(ruleset: str) -> Callable | None:
    return getattr(_module(ruleset), "present", None)


def choice_label(ruleset: str, choice, names: dict[int, str]) -> str:
    """How the action form offers `choice` (a games.engine.base.Choice)."""
    label = getattr(_module(ruleset), "label", None)
    if label is not None:
        text = label(choice, names)
        if text:
            return text
    parts = [choice.kind.replace("_", " ")]
    for key, value in choice.params.items():
        if key in SEAT_KEYS:
            value = seat_name(names, value)
        elif isinstance(value, list):
            value = " → ".join(str(v) for v in value)
        parts.append(f"{key}: {value}")
    return " · ".join(str(p) for p in parts)


def seat_name(names: dict[int, str], seat) -> str:
    if isinstance(seat, int) and not isinstance(seat, bool):
        return names.get(seat, _("seat %(n)d") % {"n": seat + 1})
    return str(seat)


def describe(ruleset: str, event: dict, names: dict[int, str]) -> str:
    """One readable sentence (Markdown allowed) for `event`."""
    present = _presenter(ruleset)
    if present is not None:
        text = present(event, names)
        if text:
            return text
    data = event.get("data", {})
    parts = []
    for key, value in data.items():
        if key in SEAT_KEYS or key.endswith("_seat"):
            value = seat_name(names, value)
        elif isinstance(value, list) and key.endswith("seats"):
            value = ", ".join(seat_name(names, v) for v in value)
        parts.append(f"{key}: {value}")
    kind = event.get("kind", "?").replace("_", " ")
    return f"**{kind}**" + (" — " + "; ".join(parts) if parts else "")


def refusal_text(ruleset: str, refusal) -> str:
    """A refusal (games.engine.base.Refusal) in the reader's language: the rule set's
    `refusal(refusal) -> str | None` if it has one, else the engine's English sentence run
    through the catalogue."""
    translate = getattr(_module(ruleset), "refusal", None)
    if translate is not None:
        text = translate(refusal)
        if text:
            return text
    return _(refusal.reason)


def seat_facts(ruleset: str, view: dict, number: int) -> str:
    """Public facts about one seat for the game's home page (e.g. camps of lost cards), read
    from the viewer's view only; empty when the rule set has nothing to add."""
    facts = getattr(_module(ruleset), "seat_facts", None)
    if facts is None or not view:
        return ""
    return facts(view, number) or ""


def announce_at_once(ruleset: str) -> frozenset[str]:
    """Kinds of public events a player's step produces that go to the announcement thread at
    once (e.g. a flip in 谁偷了我的金币). Others wait for the end of the phase or stay on the
    game's timeline (a vote is shown in the vote thread instead)."""
    return frozenset(getattr(_module(ruleset), "ANNOUNCE_AT_ONCE", ()))


def phase_title(ruleset: str, name: str) -> str | None:
    """The rule set's own name for a phase, if its presenter gives one."""
    label = getattr(_module(ruleset), "phase_label", None)
    return label(name) if label is not None else None
