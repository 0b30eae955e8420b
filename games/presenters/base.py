"""What every presenter shares: seat names, and the generic text of an event or a choice.

It is also the presenter of a rule set that has no sentences of its own (the test toy
registers it explicitly): with no `present`/`label` here, every event and choice is shown in
the generic text.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

SEAT_KEYS = ("seat", "target", "voter", "attacker", "victim", "by", "executed", "loser")


def seat_name(names: dict[int, str], seat) -> str:
    if isinstance(seat, int) and not isinstance(seat, bool):
        return names.get(seat, _("seat %(n)d") % {"n": seat + 1})
    return str(seat)


def generic_label(choice, names: dict[int, str]) -> str:
    """A choice as its kind and parameters, seats named."""
    parts = [choice.kind.replace("_", " ")]
    for key, value in choice.params.items():
        if key in SEAT_KEYS:
            value = seat_name(names, value)
        elif isinstance(value, list):
            value = " → ".join(str(v) for v in value)
        parts.append(f"{key}: {value}")
    return " · ".join(str(p) for p in parts)


def generic_text(event: dict, names: dict[int, str]) -> str:
    """An event as its kind and facts, seats named (the GM's own log entries, and the kinds a
    rule set's presenter leaves to it)."""
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
