"""Every field of every event the engine emits is declared, with what it holds
(games/engine/events.py; each rule set's kinds.py): the export numbers seats from 1 by these
declarations alone (games/web/events_export.py), so a seat field left undeclared would reach
readers numbered from 0.

Every conformance game of every rule set and variant (tests/engine/test_conformance.py and
tests/engine/<rule set>/test_*_conformance.py) is held to the declarations by
`check_ruleset` itself (games/engine/conformance.py, check 6). This file adds what those
do not: that every declared kind is met, in these games: a conformance game of each variant
(random play reaches most kinds and this is its only cost here), the golden games,
a few scripted scenes for kinds neither reaches (a possession, the poison checked, a
dropped attack, a SAINT, a protection), and at
some states of each game every step the GM is offered. Every event must match its kind's
declaration (no undeclared field, every value of its type, every seat at the table), every
reason's arguments the shapes of their types, and every declared kind must be met.
"""

from __future__ import annotations

import ast
import importlib
import random
from functools import cache
from pathlib import Path

import pytest

from games.engine import registry
from games.engine.base import GM, Refusal, replay
from games.engine.conformance import fill, random_playthrough
from games.engine.events import (
    GM_ACTS,
    NUMBER,
    SEAT,
    SEATS,
    Record,
    Schema,
    kind,
    leaves,
    problems,
    seats_in,
)
from scripts import events_doc

from .classic.test_classic_conformance import COMBOS
from .ninelives.deals import FIVE, SIX

ROOT = Path(__file__).resolve().parents[2]
NAMES = list(registry.RULESETS)
# Field names that always hold a seat where an event has them.
SEAT_NAMES = {"seat", "target", "voter", "victim", "pact", "possess", "check", "ghost", "lead",
              "first_lead", "voters", "winners", "team", "candidates", "order", "among",
              "no_vote", "tied", "eliminated", "dereliction", "protecting", "priority"}


def conformance_games(name: str):
    """(setup, final state, the states to try the GM's steps at) of some of the conformance
    games: each variant once (every conformance game's events are checked by
    `check_ruleset` itself, check 6; these are the ones the kinds' coverage needs)."""
    rules = registry.get(name)
    plays = []
    if name == "classic":  # the six variants, as the conformance test plays them
        plays = [random_playthrough(rules, seats=11, seed=1000 + i, config=COMBOS[i])
                 for i in range(0, len(COMBOS), 2)]
    elif name == "gold":
        plays = [random_playthrough(rules, seats=n, seed=100 + n) for n in range(2, 7)]
        plays.append(random_playthrough(rules, seats=4, seed=204, config={"lead": 1}))
    elif name == "ninelives":
        plays = [random_playthrough(rules, seats=n, seed=1000 * n + seed)
                 for n in (5, 6) for seed in range(4)]
        plays += [random_playthrough(rules, seats=d["players"], seed=0, config={"deal": d})
                  for d in (FIVE, SIX)]
    return [(p.setup, p.final, p.states[::7]) for p in plays]


def golden_games(name: str):
    """(setup, final state, no states) of each golden game, replayed from its steps."""
    rules = registry.get(name)
    if name == "classic":
        from .classic.golden_games import GAMES, played

        games = [(played(g).setup, played(g).steps) for g in GAMES]
    elif name == "gold":
        from .gold.golden_games import scripted_game

        games = [scripted_game(n)[:2] for n in range(2, 7)]
    else:
        from .ninelives.golden_games import GAMES

        games = [GAMES[g]()[:2] for g in GAMES]
    return [(setup, replay(rules, setup, steps), []) for setup, steps in games]


def scenes(name: str):
    """Scripted scenes for kinds no game above reaches."""
    if name == "classic":
        from .classic.helpers import Table
        from .classic.test_classic_ghost_poison import GHOSTLY

        civilian, police, poison = Table(GHOSTLY), Table(GHOSTLY), Table(GHOSTLY)
        civilian.night(possess=7)
        police.night(possess=1)
        poison.night(check=6)  # the police check the poison: an extra check
        return [({"seats": len(GHOSTLY)}, t.state, [t.state])
                for t in (civilian, police, poison)]
    if name != "ninelives":
        return []
    from .ninelives.helpers import Game

    dropped = Game()
    dropped.use(0, "KILLER", 3)
    dropped.do(GM, "reject_manifesto", seat=0, reason="抄的")
    dropped.end()
    saint = Game()
    saint.night({2: ("SAINT", None)})
    saint.day({0: 2, 1: 2, 2: 0, 3: 2, 4: 0})
    saved = Game()
    saved.night({0: ("KILLER", 3), 1: ("SOULBINDER", 3)})
    return [({"seats": 5}, g.state, [g.state]) for g in (dropped, saint, saved)]


@cache
def played(name: str):
    """Every event of every game of the rule set (each with its table's size), and the
    GM's steps tried along the way with their events."""
    rules = registry.get(name)
    rng = random.Random(name)
    events, gm_steps = [], []
    for setup, final, states in [*conformance_games(name), *golden_games(name), *scenes(name)]:
        seats = setup["seats"]
        events += [(seats, e) for e in final["log"]]
        for state in states:
            for choice in rules.legal_actions(state, GM):
                step = fill(choice, GM, rng)
                result = rules.apply(state, step)
                assert not isinstance(result, Refusal), (step, result)
                gm_steps.append((seats, step))
                events += [(seats, e) for e in result.events]
    return events, gm_steps


def reason_table(name: str):
    return importlib.import_module(f"games.engine.{name}.reasons").R


# --- the events played --------------------------------------------------------------------

@pytest.mark.slow(seconds=40)
@pytest.mark.parametrize("name", NAMES)
def test_every_event_played_has_its_declared_fields(name):
    schema = registry.get(name).schema
    events, _ = played(name)
    found = sorted({p for seats, e in events for p in schema.event_problems(e, seats)})
    assert found == []
    met = {e["kind"] for _, e in events}
    assert sorted(set(schema.events) - met) == [], "declared kinds no game reached"


@pytest.mark.slow(seconds=40)
@pytest.mark.parametrize("name", NAMES)
def test_every_reason_played_has_arguments_of_declared_shapes(name):
    schema, table = registry.get(name).schema, reason_table(name)
    events, _ = played(name)
    found = sorted({p for seats, e in events for r in e["because"]
                    for p in schema.reason_problems(r, table.table[r["code"]], seats)})
    assert found == []


@pytest.mark.slow(seconds=40)
@pytest.mark.parametrize("name", NAMES)
def test_every_gm_step_played_is_declared_with_its_parameters(name):
    """The services record a GM step as "gm_<kind>" with its parameters and `gm`."""
    schema = registry.get(name).schema
    _, steps = played(name)
    if name == "ninelives":
        assert {s["kind"] for _, s in steps} == set(schema.gm_steps)
    for seats, step in steps:
        fields = schema.fields(f"gm_{step['kind']}")
        assert fields is not None, step
        assert problems(fields, dict(step["params"], gm="天神"), seats) == [], step


@pytest.mark.parametrize("name", NAMES)
def test_every_reason_argument_type_has_a_declared_shape(name):
    schema = registry.get(name).schema
    types = {t for args in reason_table(name).table.values() for t in args.values()}
    assert sorted(t for t in types if schema.reason_arg(t) is None) == []
    assert set(schema.reason_args) <= types, "a shape for a type no reason uses"


# --- the declarations themselves ----------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_the_declared_kinds_are_the_kinds_the_presenter_must_cover(name):
    kinds = importlib.import_module(f"games.engine.{name}.kinds")
    confirmations = set(getattr(kinds, "CONFIRMATIONS", ()))
    assert set(kinds.EVENT_KINDS) == set(kinds.EVENTS) | confirmations
    assert not confirmations & set(kinds.EVENTS)
    assert registry.get(name).schema is kinds.SCHEMA


@pytest.mark.parametrize("name", NAMES)
def test_a_field_named_as_seats_are_holds_a_seat_and_every_kind_says_what_it_is(name):
    schema = registry.get(name).schema
    records = {**schema.events, **{f"gm_{k}": v for k, v in schema.gm_steps.items()}}
    for kind_name, record in records.items():
        assert isinstance(record, Record) and record.about.endswith("."), kind_name
        for field, t in record.fields.items():
            if field in SEAT_NAMES:
                assert any(leaf.index == "seat" for leaf in leaves(t)), (kind_name, field)


def dict_keys(details: ast.expr, module: ast.Module) -> set[str] | None:
    """The keys of the details a `log_gm` call records: its dict, or every dict assigned to
    the name it passes; None when neither."""
    if isinstance(details, ast.Name):
        values = [n.value for n in ast.walk(module) if isinstance(n, ast.Assign)
                  and any(getattr(t, "id", "") == details.id for t in n.targets)]
        dicts = [d for v in values for d in ast.walk(v) if isinstance(d, ast.Dict)]
    else:
        dicts = [details] if isinstance(details, ast.Dict) else []
    if not dicts:
        return None
    return {k.value for d in dicts for k in d.keys if isinstance(k, ast.Constant)}


def test_every_gm_act_the_services_record_is_declared_with_its_fields():
    """Each `log_gm(game, gm, "<act>", {...})` in games/ names an act of `GM_ACTS` and
    records only fields it declares; the one call with a variable act records a rule set's
    GM step (its parameters, declared by the rule set's `gm_steps` and checked above)."""
    calls, variable = [], []
    for path in sorted((ROOT / "games").rglob("*.py")):
        module = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(module):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "log_gm"):
                continue
            act, details = node.args[2], node.args[3]
            # an act is a string, or one of two ("watcher_approved" if … else …)
            acts = [act] if isinstance(act, ast.Constant) else (
                [act.body, act.orelse] if isinstance(act, ast.IfExp) else [])
            if acts and all(isinstance(a, ast.Constant) for a in acts):
                calls += [(a.value, dict_keys(details, module)) for a in acts]
            else:
                variable.append(str(path.relative_to(ROOT)))
    assert len(calls) >= 15
    assert variable == ["games/services/gm.py"]
    for act, keys in calls:
        assert act in GM_ACTS, f"log_gm act {act!r} is not declared in GM_ACTS"
        assert keys is not None, f"the details of {act!r} are not a dict the test can read"
        assert keys <= set(GM_ACTS[act].fields) - {"gm"}, (act, keys)
    for name in NAMES:
        for step, record in registry.get(name).schema.gm_steps.items():
            if step in GM_ACTS:  # the same act by another way: the same fields
                assert set(record.fields) == set(GM_ACTS[step].fields) - {"gm"}, step


# --- the check and the conversion can fail --------------------------------------------------

SCHEMA = Schema(events={"hit": kind("A hit.", seat=SEAT, seats=SEATS, n=NUMBER)})


def test_an_undeclared_field_a_wrong_type_or_a_seat_off_the_table_is_a_problem():
    assert SCHEMA.event_problems({"kind": "hit", "data": {"seat": 2, "n": 3}}, 5) == []
    assert SCHEMA.event_problems({"kind": "hit", "data": {"seat": 2, "pact": 1}}, 5) == [
        "hit: pact: not declared"]
    assert SCHEMA.event_problems({"kind": "hit", "data": {"n": [1]}}, 5) == [
        "hit: n=[1] is not a number"]
    assert SCHEMA.event_problems({"kind": "hit", "data": {"seats": [0, 5]}}, 5) == [
        "hit: seats[1]=5 is not a seat of 5"]
    assert SCHEMA.event_problems({"kind": "miss", "data": {}}, 5) == [
        "miss: no fields declared (the rule set's kinds.py, EVENTS)"]


@pytest.mark.slow(seconds=40)
@pytest.mark.parametrize(("name", "kind_name", "field"), [
    ("classic", "kill_proposed", "pact"), ("classic", "night_resolved", "protecting"),
    ("ninelives", "saint_fired", "voters"), ("gold", "flipped", "target")])
def test_the_played_events_would_show_a_field_left_undeclared(name, kind_name, field):
    """The canary: with one field taken out of its kind's declaration, the games above
    fail the check on it (these fields were once numbered from 0 in the export)."""
    schema = registry.get(name).schema
    record = schema.events[kind_name]
    fewer = {k: v for k, v in record.fields.items() if k != field}
    broken = Schema(events={**schema.events, kind_name: Record(fewer, record.about)})
    events, _ = played(name)
    found = {p for seats, e in events for p in broken.event_problems(e, seats)}
    assert f"{kind_name}: {field}: not declared" in found
    assert {p.split(":")[0] for p in found} == {kind_name}


def test_the_seats_of_a_value_are_read_by_its_type_only():
    record = SCHEMA.events["hit"]
    assert seats_in(record, {"seat": 2, "seats": [0, 4], "n": 3}) == [2, 0, 4]
    assert seats_in(record, {"n": 3, "pact": 1}) == []


# --- the page ------------------------------------------------------------------------------

def test_docs_list_every_field_of_every_kind_as_declared():
    text = events_doc.DOC.read_text(encoding="utf-8")
    assert events_doc.written(text) == text, "run .venv/bin/python scripts/events_doc.py"
    for name in NAMES:
        for kind_name in registry.get(name).schema.events:
            assert f"#### `{kind_name}`" in text
    for act in GM_ACTS:
        assert f"#### `gm_{act}`" in text


def test_the_docs_check_would_see_a_change():
    text = events_doc.DOC.read_text(encoding="utf-8")
    stale = text.replace("#### `kill_proposed`", "#### `kill_planned`")
    assert stale != text and events_doc.written(stale) == text
