"""The event log as data for readers (`/games/<id>/events.json`; its fields: docs/events-json.md).

Every seat is numbered from 1, as the pages number them ("5号" is 5): the engine's 0-based
seat indexes in each event's data are shifted here, by the name of the field that holds them,
for every rule set (SEAT_FIELDS, SEAT_LISTS, SEAT_MAPS below; a list indexed by seat, such as
gold's coins, starts at seat 1). Each event also carries its sentence and its explanation in
the reader's language, rendered by the presenters exactly as the review's timeline shows them.
The replay input (`setup`, `steps`) alone stays in the engine's own form, so that
`games.engine.base.replay` takes it unchanged.
"""

from __future__ import annotations

from ..engine.reasons import SEAT, SEATS, is_reason
from ..models import Event
from ..presenters import SEAT_KEYS, because_text, describe, explanation, reason_types
from ..presenters.gm_log import gm_log_text
from ..selectors import outcome_line

# A field holding one seat (an int; a field of these names holding anything else is kept).
SEAT_FIELDS = frozenset(SEAT_KEYS) | {
    "check",
    "drawn",
    "lead",
    "first_lead",
    "ghost",
    "proxy",
    "virtual",
}
# A field holding a list of seats.
SEAT_LISTS = frozenset(
    {
        "winners",
        "among",
        "order",
        "candidates",
        "eliminated",
        "tied",
        "team",
        "no_vote",
        "priority",
        "seats",
        "possessed",
        "lapsed",
    }
)
# A field holding a mapping keyed by seat ("3": 2 votes).
SEAT_MAPS = frozenset({"tally", "votes", "counts_by_seat"})


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def one_based(data, key: str = ""):
    """`data` (an event's data) with every seat it names numbered from 1.

    1. A seat field (by name, or ending in `_seat`) holding an int: +1.
    2. A seat-list field (by name, or ending in `seats`) holding ints: each +1.
    3. A seat-keyed mapping: each key that is a number, +1.
    4. Anything else: its parts, field by field; strings, cards and counts unchanged.
    """
    if isinstance(data, dict):
        out = {}
        for k, v in data.items():
            name = str(k)
            if key in SEAT_MAPS and name.isdigit():
                out[str(int(name) + 1)] = one_based(v)
            else:
                out[k] = one_based(v, name)
        return out
    if _is_int(data) and (key in SEAT_FIELDS or key.endswith("_seat")):
        return data + 1
    if isinstance(data, list):
        if key in SEAT_LISTS or key.endswith("seats"):
            return [v + 1 if _is_int(v) else one_based(v) for v in data]
        return [one_based(v) for v in data]
    return data


def reason_json(ruleset: str, reason, names: dict[int, str]) -> dict | None:
    """One reason of an event's `because` chain for the export: its code, its arguments with
    seats numbered from 1 (by the argument's declared type: a seat, a list of seats; other
    arguments as `one_based` reads them by name) and its sentence in the reader's language;
    None for anything that is not a reason."""
    if not is_reason(reason):
        return None
    types = reason_types(ruleset, reason["code"])
    args = {}
    for name, value in reason["args"].items():
        kind = types.get(name)
        if kind == SEAT and _is_int(value):
            args[name] = value + 1
        elif kind == SEATS and isinstance(value, list):
            args[name] = [v + 1 if _is_int(v) else v for v in value]
        else:
            args[name] = one_based(value, name)
    return {"code": reason["code"], "args": args,
            "text": because_text(ruleset, reason, names)}


def event_json(
    ruleset: str, event: Event, phase_seq: dict[int, int], names: dict[int, str], seq: int
) -> dict:
    """One event for the export: its data with 1-based seats, and its sentence (`text`,
    Markdown) and explanation (`explanation`, one sentence each) in the reader's language.
    `seq` is the event's place in this reader's export (1, 2, 3…), never the stored id or the
    engine log's position: gaps in either would count the events the reader may not see."""
    engine_event = event.as_engine_event()
    text = gm_log_text(engine_event, names) or describe(ruleset, engine_event, names)
    seats = [int(s) + 1 for s in event.audience.strip(",").split(",") if s]
    return {
        "seq": seq,
        "phase": phase_seq.get(event.phase_id),
        "kind": event.kind,
        "public": event.public,
        "seats": seats,
        "data": one_based(event.data),
        "text": text,
        "explanation": explanation(ruleset, engine_event, text, names),
        "because": [r for r in (reason_json(ruleset, b, names) for b in event.because or [])
                    if r is not None],
        "created": event.created.isoformat(),
    }


def outcome_json(game, names: dict[int, str]) -> dict:
    """A finished game's result for the export: its key, its winners (seats from 1), the
    engine's reason as data (`reason_json`; none for a game the GM aborted, which has the
    GM's `note` instead) and the result as the game's page words it (`text`)."""
    outcome = game.outcome or {}
    out = {"result": outcome.get("result"),
           "winners": [w + 1 for w in outcome.get("winners") or [] if _is_int(w)],
           "reason": reason_json(game.ruleset, outcome.get("reason"), names),
           "text": outcome_line(game, names)}
    if outcome.get("note"):
        out["note"] = outcome["note"]
    return out
