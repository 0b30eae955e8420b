"""`games/engine` is a pure library: no module in it imports Django, directly or through
another part of the project (docs: STYLE.md, "Rules are a library")."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENGINE = ROOT / "games" / "engine"
OUTSIDE = ("django", "config", "accounts", "messaging")   # Django or Django-backed packages


def engine_modules() -> list[str]:
    return sorted(".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                  for p in ENGINE.rglob("*.py"))


def forbidden_imports(path: pathlib.Path) -> list[str]:
    """Names of Django (or Django-backed project) modules a source file imports."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                  "import_module", "__import__")):
            names = [node.args[0].value]
        for name in names:
            top = name.split(".")[0]
            if top in OUTSIDE or (top == "games" and not name.startswith("games.engine")):
                found.append(name)
    return found


def test_no_engine_source_imports_django():
    files = sorted(ENGINE.rglob("*.py"))
    assert len(files) > 5
    offenders = {str(p.relative_to(ROOT)): forbidden_imports(p) for p in files}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_check_would_see_a_django_import(tmp_path):
    sample = tmp_path / "bad.py"
    sample.write_text("import os\n\ndef f():\n    from django.db import models\n"
                      "    import importlib\n    importlib.import_module('django.conf')\n"
                      "    from games.models import Game\n")
    assert sorted(forbidden_imports(sample)) == ["django.conf", "django.db", "games.models"]


def test_importing_the_whole_engine_loads_no_django():
    code = ("import importlib, sys\n"
            f"for name in {engine_modules()!r}:\n"
            "    importlib.import_module(name)\n"
            "print(sorted(m for m in sys.modules if m == 'django' or m.startswith('django.')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True, env={"PATH": "/usr/bin:/bin"}).stdout
    assert out.strip() == "[]"
