"""Helpers of the 猫有n条命 web tests: the Chinese catalogue (django.po) compiled afresh, and
the msgids the presentation uses (code and template), read the way Django's
makemessages would."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DJANGO_PO = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
PRESENTER = ROOT / "games" / "presenters" / "ninelives.py"
PANEL = ROOT / "templates" / "games" / "panels" / "ninelives.html"
ENGINE = ROOT / "games" / "engine" / "ninelives"


def python_msgids(path: Path = PRESENTER) -> set[tuple[str | None, str]]:
    """(context, msgid) of every `_("...")` and `pgettext("ctx", "...")` call of a module."""
    ids = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", None)
        args = node.args
        if not all(isinstance(a, ast.Constant) for a in args):
            continue
        if name == "_" and len(args) == 1:
            ids.add((None, args[0].value))
        elif name == "pgettext" and len(args) == 2:
            ids.add((args[0].value, args[1].value))
    return ids


def template_msgids(path: Path = PANEL) -> set[tuple[str | None, str]]:
    """(context, msgid) of every constant translation in a template."""
    from django.utils.translation.template import templatize

    text = templatize(path.read_text())
    ids = set()
    for m in re.finditer(r"pgettext\(u?('(?:[^'\\]|\\.)*'), u?('(?:[^'\\]|\\.)*')\)", text):
        ids.add((ast.literal_eval(m.group(1)), ast.literal_eval(m.group(2))))
    for m in re.finditer(r"(?<!p)gettext\(u?('(?:[^'\\]|\\.)*')\)", text):
        ids.add((None, ast.literal_eval(m.group(1))))
    return ids


def refusal_codes() -> set[str]:
    """The code of every Refusal the engine can return (every module of the rule set)."""
    codes = set()
    for path in ENGINE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Refusal"
                    and node.args and isinstance(node.args[0], ast.Constant)):
                codes.add(node.args[0].value)
    return codes


def engine_event_kinds() -> set[str]:
    """Every event kind the engine names as a constant in a `make_event(...)` call, plus
    the kinds of its dawn announcements (built in a list first, then emitted)."""
    kinds = set()
    for path in ENGINE.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "make_event"
                    and node.args and isinstance(node.args[0], ast.Constant)):
                kinds.add(node.args[0].value)
            if (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "append"
                    and node.args and isinstance(node.args[0], ast.Tuple)
                    and node.args[0].elts and isinstance(node.args[0].elts[0], ast.Constant)
                    and isinstance(node.args[0].elts[0].value, str)
                    and getattr(node.func.value, "id", None) == "announcements"):
                kinds.add(node.args[0].elts[0].value)
    return kinds


def read_catalog(path: Path):
    from babel.messages.pofile import read_po

    with open(path, "rb") as f:
        return read_po(f, locale="zh_Hans")


def ninelives_entries(catalog) -> list:
    """The catalogue's entries used by the presenter or the panel (by their locations)."""
    ours = (str(PRESENTER.relative_to(ROOT)), str(PANEL.relative_to(ROOT)))
    return [m for m in catalog if m.id and any(f in ours for f, _line in m.locations)]


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"%\(\w+\)[sd]", text))


def build_chinese_catalog(directory: Path) -> Path:
    """django.po compiled under `directory` (so a stale django.mo cannot change what the
    tests read); returns the directory to use as LOCALE_PATHS."""
    from babel.messages.mofile import write_mo

    catalog = read_catalog(DJANGO_PO)
    out = directory / "zh_Hans" / "LC_MESSAGES"
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "django.mo", "wb") as f:
        write_mo(f, catalog)
    return directory


CJK = re.compile(r"[\u4e00-\u9fff]")


def is_chinese_sentence(text: str) -> bool:
    """Mostly Chinese: CJK characters, and no English word of 4+ letters other than card
    codes (SNIPER...) and the seat's own names."""
    if not CJK.search(text):
        return False
    words = re.findall(r"\b[a-z]{4,}\b", text)
    return not words
