"""The event log as data for readers (`/games/<id>/events.json`; its fields: docs/events-json.md).

Every seat is numbered from 1, as the pages number them ("5号" is 5): the engine's 0-based
seats in each event's data, and in each reason's arguments, are shifted by what the engine
declares each field of each event kind and each reason argument type holds
(games/engine/events.py; `RuleSet.schema`, the GM's acts in `GM_ACTS`), never by a field's
name. A field or an argument no declaration names is left out. Each event also
carries its sentence as plain text and its explanation in the reader's language, rendered by
the presenters as the review's timeline shows them, and `speaker`, the seat whose own words
the sentence quotes. The replay input (`setup`, `steps`) alone stays in the engine's own
form, so that `games.engine.base.replay` takes it unchanged.
"""

from __future__ import annotations

import re

from messaging.rendering import render_markdown
from messaging.search import plain_text
from messaging.words import INFO as WORDS_INFO

from ..engine import registry
from ..engine.events import Record, Schema, convert, seats_in, speaker
from ..engine.reasons import is_reason
from ..models import Event
from ..presenters import because_text, describe, explanation, reason_types
from ..presenters.gm_log import gm_log_text
from ..selectors import outcome_line

# A player's words block of a presenter's sentence (messaging/words.py `words_block`).
WORDS_BLOCK = re.compile(r"^(?P<fence>~{3,})" + re.escape(WORDS_INFO)
                         + r"(?: [^\n]*)?\n(?P<text>.*?)\n?(?P=fence)[ \t]*$",
                         re.MULTILINE | re.DOTALL)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def rule_schema(ruleset: str) -> Schema:
    """What the rule set declares about its events (an empty declaration for a rule set no
    longer installed)."""
    try:
        return registry.get(ruleset).schema
    except KeyError:
        return Schema()


def schema_of(ruleset: str, kind: str) -> Record | None:
    """What the data of an event of `kind` holds, field by field (games/engine/events.py);
    None for a kind nobody declared."""
    return rule_schema(ruleset).fields(kind)


def from_one(n: int, what: str) -> int:
    """A seat or a virtual player as the pages number it."""
    return n + 1


def data_json(ruleset: str, kind: str, data: dict) -> dict:
    """An event's data for the export: the fields its kind declares, every seat numbered
    from 1 (and a gold virtual player), a reason's seats too; nothing else."""
    schema = schema_of(ruleset, kind)
    if schema is None or not isinstance(data, dict):
        return {}
    return convert(schema, data, index=from_one,
                   reason=lambda r: {"code": r["code"], "args": reason_args(ruleset, r)})


def seats_named(ruleset: str, kind: str, data: dict) -> list[int]:
    """Every seat an event's data names, by its kind's declaration (in the engine's data
    from 0, in the export's from 1: the shapes are the same)."""
    schema = schema_of(ruleset, kind)
    return seats_in(schema, data) if schema is not None else []


def reason_seats(ruleset: str, reason: dict) -> list[int]:
    """Every seat a reason's arguments name, by the shapes of their declared types."""
    types = reason_types(ruleset, reason.get("code", ""))
    schema = rule_schema(ruleset)
    found = []
    for name, value in (reason.get("args") or {}).items():
        shape = schema.reason_arg(types.get(name, ""))
        if shape is not None:
            found += seats_in(shape, value)
    return found


def speaker_json(ruleset: str, kind: str, data: dict) -> int | None:
    """The seat (from 1) whose own words the event quotes; None when it quotes nobody's
    or names no author (a 猫有n条命 manifesto)."""
    schema = schema_of(ruleset, kind)
    seat = speaker(schema, data) if schema is not None else None
    return None if seat is None else seat + 1


def as_plain_text(text: str) -> str:
    """A presenter's sentence (Markdown) as plain text: each player's words block as the
    words alone, exactly as written (whose they are is the event's `speaker`), and the rest
    as its page shows it, without markup; paragraphs apart."""
    parts, at = [], 0
    for block in WORDS_BLOCK.finditer(text or ""):
        parts += _paragraphs(text[at:block.start()])
        parts.append(block.group("text"))
        at = block.end()
    parts += _paragraphs((text or "")[at:])
    return "\n\n".join(p for p in parts if p.strip())


def _paragraphs(markdown: str) -> list[str]:
    return [plain_text(render_markdown(p)) for p in re.split(r"\n\s*\n", markdown)
            if p.strip()]


def reason_json(ruleset: str, reason, names: dict[int, str]) -> dict | None:
    """One reason of an event's `because` chain for the export: its code, its arguments with
    seats numbered from 1 (`reason_args`) and its sentence in the reader's language; None
    for anything that is not a reason."""
    if not is_reason(reason):
        return None
    return {"code": reason["code"], "args": reason_args(ruleset, reason),
            "text": because_text(ruleset, reason, names)}


def reason_args(ruleset: str, reason: dict) -> dict:
    """A reason's arguments with every seat numbered from 1, by the shape of each argument's
    type in the rule set's reason table (games/engine/events.py `REASON_ARGS`, the rule set's
    `Schema.reason_args`); an argument of no declared shape is left out."""
    types = reason_types(ruleset, reason["code"])
    schema = rule_schema(ruleset)
    args = {}
    for name, value in reason["args"].items():
        shape = schema.reason_arg(types.get(name, ""))
        if shape is not None:
            args[name] = convert(shape, value, index=from_one)
    return args


def event_json(
    ruleset: str, event: Event, phase_seq: dict[int, int], names: dict[int, str], seq: int
) -> dict:
    """One event for the export: its data with 1-based seats (`data_json`), its sentence as
    plain text (`text`), the seat whose words it quotes (`speaker`) and its explanation
    (`explanation`, one sentence each) in the reader's language. `seq` is the event's place
    in this reader's export (1, 2, 3…), never the stored id or the engine log's position:
    gaps in either would count the events the reader may not see."""
    engine_event = event.as_engine_event()
    text = gm_log_text(engine_event, names) or describe(ruleset, engine_event, names)
    seats = [int(s) + 1 for s in event.audience.strip(",").split(",") if s]
    return {
        "seq": seq,
        "phase": phase_seq.get(event.phase_id),
        "kind": event.kind,
        "public": event.public,
        "seats": seats,
        "data": data_json(ruleset, event.kind, event.data),
        "text": as_plain_text(text),
        "speaker": speaker_json(ruleset, event.kind, event.data),
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
