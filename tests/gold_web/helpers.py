"""Helpers shared by the gold web tests: engine-only random play, the Chinese catalogue with
the gold fragment merged in, and the msgids the gold presentation uses."""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path

from games.engine.base import Refusal, action
from games.engine.gold.rules import Gold

ROOT = Path(__file__).resolve().parents[2]
FRAGMENT = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "gold.po"
DJANGO_PO = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
PRESENTER = ROOT / "games" / "presenters_gold.py"
PANEL = ROOT / "templates" / "games" / "panels" / "gold.html"
RULES = ROOT / "games" / "engine" / "gold" / "rules.py"


def random_game(players: int, seed: int, *, miss: float = 0.2):
    """Play a whole game on the engine alone; return (every event, every Choice offered).

    1. Each seat the phase awaits acts with probability 1 - `miss`, choosing a random legal
       choice; the others let the deadline pass.
    2. The clock then ends the phase (defaults for the missed choices), until the end.
    """
    engine = Gold()
    rng = random.Random(seed)
    t = engine.initial_state(seats=players, config={"lead": None}, seed=f"web-{seed}")
    state, events, offered = t.state, list(t.events), []
    while not engine.phase(state).finished:
        for seat in sorted(engine.phase(state).awaiting):
            choices = engine.legal_actions(state, seat)
            offered += choices
            if rng.random() < miss:
                continue
            c = rng.choice(choices)
            result = engine.apply(state, action(seat, c.kind, **c.params))
            assert not isinstance(result, Refusal), result
            state, events = result.state, events + result.events
        t = engine.end_phase(state)
        state, events = t.state, events + t.events
    return events, offered, state


def python_msgids(path: Path = PRESENTER) -> set[str]:
    """Every string literal passed to `_()` in a Python module."""
    ids = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "_" and node.args
                and isinstance(node.args[0], ast.Constant)):
            ids.add(node.args[0].value)
    return ids


def template_msgids(path: Path = PANEL) -> set[str]:
    """Every constant msgid of a template, as Django's makemessages would extract it."""
    from django.utils.translation.template import templatize

    text = templatize(path.read_text())
    found = re.finditer(r"gettext\(u?('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\)", text)
    return {ast.literal_eval(m.group(1)) for m in found}


def refusal_reasons(path: Path = RULES) -> set[str]:
    """The English reason of every Refusal the engine can return."""
    reasons = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Refusal":
            reasons.add(node.args[1].value)
    return reasons


def read_catalog(path: Path):
    from babel.messages.pofile import read_po

    with open(path, "rb") as f:
        return read_po(f, locale="zh_Hans")


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"%\(\w+\)[sd]|\{\w+\}", text))


def build_chinese_catalog(directory: Path) -> Path:
    """django.po with the gold fragment merged in, compiled under `directory`; returns the
    directory to use as LOCALE_PATHS (the lead merges the fragment for real)."""
    from babel.messages.mofile import write_mo

    catalog = read_catalog(DJANGO_PO)
    for message in read_catalog(FRAGMENT):
        if not message.id:
            continue
        existing = catalog.get(message.id)
        if existing is None:
            catalog[message.id] = message
        else:
            existing.string = message.string
    out = directory / "zh_Hans" / "LC_MESSAGES"
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "django.mo", "wb") as f:
        write_mo(f, catalog)
    return directory
