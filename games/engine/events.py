"""What an event's data holds, field by field: the schema of every event kind.

Each rule set declares, for every event kind it emits, each field of the event's `data`
and the field's type (games/engine/<rule set>/kinds.py: `EVENTS`, with its GM steps'
parameters and its own reason argument types in one `Schema`, which the rule set hands on
as `RuleSet.schema`). The GM's own acts, which the services record as events of kind
"gm_<act>" (games/services/kernel.py `log_gm`), are declared here (`GM_ACTS`), and so are
the shapes of the reason argument types every rule set shares (`REASON_ARGS`). Three
readers use the one declaration:

1. the export (games/web/events_export.py, `/games/<id>/events.json`) numbers every seat
   from 1 by it: a field is shifted because its type says it holds a seat, never because
   of its name; a field the schema does not declare is left out of the export;
2. the tests (tests/engine/test_event_fields.py, and `check_ruleset` in conformance.py)
   hold every event of the conformance and golden games to it: every field declared,
   every value of its type, every seat among the table's seats, every reason's arguments
   of their shapes;
3. docs/events-json.md lists every field of every event kind from it (scripts/events_doc.py
   writes that part; a test fails when the two differ).

Seats are 0-based here, as everywhere in the engine. A type is a leaf (a seat, a number, a
key of the rule set...) or built from others (a record, a list, a list with one entry per
seat, a mapping keyed by seat, one of several shapes). Every value may also be null.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# --- the types ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Leaf:
    """A value of one kind: its `name` in the docs' tables and what it holds (`about`).
    `index` says what the export numbers from 1: "seat" (a seat) or "virtual" (a gold
    virtual player); "" for anything it keeps as it is."""
    name: str
    about: str
    check: Callable[[Any], bool] = field(compare=False)
    index: str = ""


@dataclass(frozen=True)
class Record:
    """A JSON object with these fields (each optional; no other field)."""
    fields: Mapping[str, Type]
    about: str = ""


@dataclass(frozen=True)
class ListOf:
    """A list of values of one type."""
    item: Type
    about: str = ""


@dataclass(frozen=True)
class PerSeat:
    """A list with one entry per seat, in seat order (entry 0 is the first seat's): the
    entries are not seats, and the list is never renumbered."""
    item: Type


@dataclass(frozen=True)
class BySeat:
    """A JSON object keyed by seat ("3": ...): its keys are seats."""
    value: Type


@dataclass(frozen=True)
class ByKey:
    """A JSON object keyed by a key of the rule set (a card: "KILLER": 3)."""
    value: Type


@dataclass(frozen=True)
class Pair:
    """A list of exactly two values, of these types."""
    first: Type
    second: Type
    about: str = ""


@dataclass(frozen=True)
class Either:
    """One of these shapes: the first that fits the value is the one it has."""
    options: tuple[Type, ...]


@dataclass(frozen=True)
class Note:
    """A type with a word about what the field means here (for docs/events-json.md)."""
    type: Type
    about: str


Type = Leaf | Record | ListOf | PerSeat | BySeat | ByKey | Pair | Either | Note


def _is_reason(v) -> bool:
    return (isinstance(v, dict) and set(v) == {"code", "args"} and isinstance(v["code"], str)
            and isinstance(v["args"], dict))


def _is_phase(v) -> bool:
    return (isinstance(v, dict) and set(v) == {"name", "number"}
            and isinstance(v["name"], str) and _is_int(v["number"]))


SEAT = Leaf("seat", "a seat (numbered from 1 in the export)", _is_int, index="seat")
SPEAKER = Leaf("speaker", "the seat whose own words the event quotes: the export gives it as "
               "the event's `speaker` too", _is_int, index="seat")
VIRTUAL = Leaf("virtual player", "a gold virtual player, numbered from 1 in the export as the "
               "pages name it (\"虚拟玩家 1\")", _is_int, index="virtual")
NUMBER = Leaf("number", "a number that is not a seat (a count, a round, a stage)", _is_int)
FLAG = Leaf("true/false", "`true` or `false`", lambda v: isinstance(v, bool))
KEY = Leaf("key", "a key of the rule set: a card, a role, a camp, a cause, a result "
           "(the pages name it in words)", lambda v: isinstance(v, str))
WORDS = Leaf("player's words", "a player's own words, exactly as written",
             lambda v: isinstance(v, str))
TEXT = Leaf("text", "text as written: the GM's words, a name, a time",
            lambda v: isinstance(v, str))
PHASE = Leaf("phase", "a phase: `{\"name\": \"night\", \"number\": 2}`", _is_phase)
REASON = Leaf("reason", "a reason as data, `{\"code\", \"args\"}`, its seats numbered "
              "from 1 like `events[].because`", _is_reason)
ID = Leaf("id", "a stored id (an account, an announcement, a replay step): not a seat",
          _is_int)

SEATS = ListOf(SEAT, "a list of seats")
KEYS = ListOf(KEY, "a list of keys")
SEAT_PAIRS = ListOf(Pair(SEAT, SEAT, "a [seat, seat] pair"), "a list of [seat, seat] pairs")


def note(type_: Type, about: str) -> Note:
    return Note(type_, about)


def kind(about: str, **fields: Type) -> Record:
    """One event kind: what it is, and its data's fields."""
    return Record(fields, about)


LEAVES = (SEAT, SPEAKER, VIRTUAL, NUMBER, FLAG, KEY, WORDS, TEXT, PHASE, REASON, ID)


# --- reading a value by its type ----------------------------------------------------------


def bare(t: Type) -> Type:
    """`t` without its note."""
    while isinstance(t, Note):
        t = t.type
    return t


def problems(t: Type, value: Any, seats: int | None = None, where: str = "") -> list[str]:
    """What is wrong with `value` as a value of type `t` (empty when nothing). With `seats`
    (the table's size), a seat must be one of the table's and a list per seat as long."""
    t = bare(t)
    if value is None:
        return []
    if isinstance(t, Leaf):
        if not t.check(value):
            return [f"{where or 'value'}={value!r} is not a {t.name}"]
        if t.index == "seat" and seats is not None and not 0 <= value < seats:
            return [f"{where}={value!r} is not a seat of {seats}"]
        if t.index == "virtual" and value < 0:
            return [f"{where}={value!r} is not a virtual player"]
        return []
    if isinstance(t, Record):
        if not isinstance(value, dict):
            return [f"{where or 'value'}={value!r} is not an object"]
        out = [f"{where}.{k}: not declared" if where else f"{k}: not declared"
               for k in value if k not in t.fields]
        for k, v in value.items():
            if k in t.fields:
                out += problems(t.fields[k], v, seats, f"{where}.{k}" if where else k)
        return out
    if isinstance(t, ListOf | PerSeat):
        if not isinstance(value, list):
            return [f"{where}={value!r} is not a list"]
        out = []
        if isinstance(t, PerSeat) and seats is not None and len(value) != seats:
            out.append(f"{where}: {len(value)} entries for {seats} seats")
        for i, v in enumerate(value):
            out += problems(t.item, v, seats, f"{where}[{i}]")
        return out
    if isinstance(t, Pair):
        if not (isinstance(value, list) and len(value) == 2):
            return [f"{where}={value!r} is not a pair"]
        return (problems(t.first, value[0], seats, f"{where}[0]")
                + problems(t.second, value[1], seats, f"{where}[1]"))
    if isinstance(t, BySeat | ByKey):
        if not isinstance(value, dict):
            return [f"{where}={value!r} is not an object"]
        out = []
        for k, v in value.items():
            if isinstance(t, BySeat):
                if not (isinstance(k, str) and k.isdigit()):
                    out.append(f"{where}: key {k!r} is not a seat")
                elif seats is not None and not 0 <= int(k) < seats:
                    out.append(f"{where}: key {k!r} is not a seat of {seats}")
            out += problems(t.value, v, seats, f"{where}[{k!r}]")
        return out
    if isinstance(t, Either):
        found = [problems(o, value, seats, where) for o in t.options]
        if any(not p for p in found):
            return []
        return [f"{where}={value!r} fits none of its shapes: {found}"]
    raise TypeError(f"not a type: {t!r}")


def _shape(t: Type, value: Any) -> Type:
    """The option of an Either that `value` has (the first that fits); `t` otherwise."""
    t = bare(t)
    if isinstance(t, Either):
        for option in t.options:
            if not problems(option, value):
                return _shape(option, value)
    return t


def convert(t: Type, value: Any, *, index: Callable[[int, str], Any],
            reason: Callable[[dict], Any] = lambda r: r) -> Any:
    """`value` (of type `t`) with every seat or virtual player given to `index(n, kind)`
    (kind: "seat" or "virtual") and every reason to `reason`; everything else as it is, and
    a record's undeclared fields left out. A value that fits none of its type's shapes is
    left out too (None)."""
    t = _shape(t, value)
    if value is None:
        return None
    if isinstance(t, Either):
        return None
    if isinstance(t, Leaf):
        if not t.check(value):
            return None
        if t.index:
            return index(value, t.index)
        return reason(value) if t is REASON else value
    if isinstance(t, Record):
        if not isinstance(value, dict):
            return None
        return {k: convert(t.fields[k], v, index=index, reason=reason)
                for k, v in value.items() if k in t.fields}
    if isinstance(t, ListOf | PerSeat):
        if not isinstance(value, list):
            return None
        return [convert(t.item, v, index=index, reason=reason) for v in value]
    if isinstance(t, Pair):
        if not (isinstance(value, list) and len(value) == 2):
            return None
        return [convert(t.first, value[0], index=index, reason=reason),
                convert(t.second, value[1], index=index, reason=reason)]
    if isinstance(t, BySeat):
        if not isinstance(value, dict):
            return None
        return {str(index(int(k), "seat")): convert(t.value, v, index=index, reason=reason)
                for k, v in value.items() if isinstance(k, str) and k.isdigit()}
    if isinstance(t, ByKey):
        if not isinstance(value, dict):
            return None
        return {k: convert(t.value, v, index=index, reason=reason) for k, v in value.items()}
    raise TypeError(f"not a type: {t!r}")


def seats_in(t: Type, value: Any) -> list[int]:
    """Every seat `value` (of type `t`) names, in order (the keys of a mapping by seat
    among them; virtual players not)."""
    found: list[int] = []

    def collect(n: int, what: str) -> int:
        if what == "seat":
            found.append(n)
        return n

    convert(t, value, index=collect)
    return found


def speaker(t: Type, value: Any) -> int | None:
    """The seat whose words an event quotes: its SPEAKER field (None when it has none)."""
    t = bare(t)
    if not (isinstance(t, Record) and isinstance(value, dict)):
        return None
    for name, ft in t.fields.items():
        if bare(ft) is SPEAKER and _is_int(value.get(name)):
            return value[name]
    return None


def leaves(t: Type) -> Iterator[Leaf]:
    """Every leaf type `t` is built from."""
    t = bare(t)
    if isinstance(t, Leaf):
        yield t
    elif isinstance(t, Record):
        for ft in t.fields.values():
            yield from leaves(ft)
    elif isinstance(t, ListOf | PerSeat):
        yield from leaves(t.item)
    elif isinstance(t, Pair):
        yield from leaves(t.first)
        yield from leaves(t.second)
    elif isinstance(t, BySeat | ByKey):
        yield from leaves(t.value)
    elif isinstance(t, Either):
        for o in t.options:
            yield from leaves(o)


def describe(t: Type) -> str:
    """The type in words (docs/events-json.md): "seat", "a list of seats", "an object keyed
    by seat…"; a leaf by its name (`LEAVES` says what each holds)."""
    if isinstance(t, Note):
        return f"{describe(t.type)}: {t.about}"
    if isinstance(t, Leaf):
        return t.name
    if isinstance(t, Record):
        inner = ", ".join(f"`{k}` ({describe(v)})" for k, v in t.fields.items())
        return f"{t.about or 'an object'} with {inner}"
    if isinstance(t, ListOf):
        return t.about or f"a list, each {describe(t.item)}"
    if isinstance(t, PerSeat):
        return f"a list with one entry per seat, the first for seat 1, each {describe(t.item)}"
    if isinstance(t, BySeat):
        return f"an object keyed by seat (`\"5\"` is seat 5), each value {describe(t.value)}"
    if isinstance(t, ByKey):
        return f"an object keyed by a key of the rule set, each value {describe(t.value)}"
    if isinstance(t, Pair):
        return t.about or f"a pair: {describe(t.first)}, {describe(t.second)}"
    if isinstance(t, Either):
        return " or ".join(describe(o) for o in t.options)
    raise TypeError(f"not a type: {t!r}")


# --- the GM's own acts ----------------------------------------------------------------------
# What the services record of each GM act (games/services, `log_gm(game, gm, act, details)`),
# as the event kind "gm_<act>"; every one also carries `gm`, the GM's name ("system" for an
# act nobody signed). A GM step the rule set defines is recorded with its parameters:
# `RuleSet.gm_steps`.

GM_FIELD = {"gm": note(TEXT, "the GM's name as the pages show it (\"system\" for a task's act)")}


def gm_act(about: str, **fields: Type) -> Record:
    return Record({**fields, **GM_FIELD}, about)


GM_ACTS: dict[str, Record] = {
    "open_signups": gm_act("The GM opened sign-ups."),
    "draw_players": gm_act("The GM drew the players by lot.",
                           seed=note(TEXT, "the seed of the draw")),
    "pick_players": gm_act("The GM picked the players.",
                           users=ListOf(ID, "a list of account ids")),
    "add_co_gm": gm_act("The GM added a co-GM.", user=note(ID, "the account")),
    "start_substitution": gm_act("The GM opened a seat's substitution.", seat=SEAT,
                                 reason=note(TEXT, "the GM's reason")),
    "cancel_substitution": gm_act("The GM called off a substitution.", seat=SEAT),
    "end_phase_now": gm_act("The GM ended the phase before its deadline.",
                            inner=note(KEY, "what the GM chose for the phase under way inside "
                                            "this one: `wait`, `skip`, or `running` (it was "
                                            "under way and ended too)"),
                            phase=note(KEY, "the key of that inner phase")),
    "extend_deadline": gm_act("The GM moved the deadline.",
                              minutes=note(NUMBER, "minutes added")),
    "pause": gm_act("The GM stopped the clock."),
    "resume": gm_act("The GM started the clock again."),
    "abort": gm_act("The GM ended the game without a result.",
                    reason=note(TEXT, "the GM's reason")),
    "rollback": gm_act("The GM took back the last step or the end of a phase.",
                       rollback=note(ID, "the rollback's record"),
                       kind=note(KEY, "what was taken back"),
                       steps=ListOf(ID, "the replay steps removed (`steps[].seq`)"),
                       deadline=note(TEXT, "the new deadline (ISO 8601)"),
                       seat=note(SEAT, "whose step it was, or null")),
    "approve_manifesto": gm_act("The GM approved a seat's manifesto.", seat=SEAT),
    "reject_manifesto": gm_act("The GM rejected a seat's manifesto.", seat=SEAT,
                               reason=note(TEXT, "the GM's reason")),
    "publish_announcement": gm_act("The GM published a held announcement.",
                                   announcement=note(ID, "the announcement")),
    "watcher_approved": gm_act("The GM let an account watch the game.",
                               user=note(ID, "the account")),
    "watcher_refused": gm_act("The GM refused an account's request to watch.",
                              user=note(ID, "the account")),
}


# The shape of each argument type every reason table may use (games/engine/reasons.py); a
# rule set declares the shapes of the types it registers itself (`Schema.reason_args`). The
# export numbers a reason's seats by them.
REASON_ARGS: dict[str, Type] = {
    "seat": SEAT, "seats": SEATS, "card": KEY, "cards": KEYS, "camp": KEY, "phase": PHASE,
    "sections": ListOf(TEXT, "rule-text section numbers"), "number": NUMBER, "text": TEXT,
    "word": KEY,
}


@dataclass(frozen=True)
class Schema:
    """Everything a rule set declares about what its events hold (`RuleSet.schema`):

    events:      event kind -> its data's fields (`kind(...)`);
    gm_steps:    the GM's step kinds (`legal_actions(state, GM)`) -> their parameters, which
                 the services record as the event "gm_<kind>";
    reason_args: the shapes of the reason argument types the rule set registers itself
                 (games/engine/reasons.py `register_type`).
    """
    events: Mapping[str, Record] = field(default_factory=dict)
    gm_steps: Mapping[str, Record] = field(default_factory=dict)
    reason_args: Mapping[str, Type] = field(default_factory=dict)

    def fields(self, kind_name: str) -> Record | None:
        """The schema of an event of kind `kind_name`: the rule set's own kinds, then
        "gm_<act>", a GM act the services record (`GM_ACTS`) or one of the rule set's GM
        steps (its parameters, and `gm`); None for a kind nobody declared."""
        if kind_name in self.events:
            return self.events[kind_name]
        if not kind_name.startswith("gm_"):
            return None
        act = kind_name[3:]
        if act in GM_ACTS:
            return GM_ACTS[act]
        step = self.gm_steps.get(act)
        if step is None:
            return None
        return Record({**step.fields, **GM_FIELD}, step.about)

    def reason_arg(self, type_name: str) -> Type | None:
        """The shape of a reason argument of the type `type_name`; None for an undeclared
        type."""
        return REASON_ARGS.get(type_name) or self.reason_args.get(type_name)

    def event_problems(self, event: dict, seats: int) -> list[str]:
        """What is wrong with an engine event's data by its kind's declaration (empty when
        nothing): a kind with no declaration, a field it does not declare, a value not of
        the declared type, a seat not at the table of `seats`."""
        schema = self.events.get(event["kind"])
        if schema is None:
            return [f"{event['kind']}: no fields declared (the rule set's kinds.py, EVENTS)"]
        return [f"{event['kind']}: {p}" for p in problems(schema, event["data"], seats)]

    def reason_problems(self, reason: dict, types: Mapping[str, str],
                        seats: int) -> list[str]:
        """What is wrong with a reason's arguments by the shapes of their declared types
        `types` (its code's entry in the reason table): an undeclared shape, a value that is
        not of it, a seat not at the table."""
        out = []
        for name, value in reason["args"].items():
            shape = self.reason_arg(types.get(name, ""))
            if shape is None:
                out.append(f"{reason['code']}.{name}: no shape for {types.get(name)!r}")
            else:
                out += problems(shape, value, seats, f"{reason['code']}.{name}")
        return out
