"""Issue 12 item 6: CI runs `ruff check` before the tests and fails on a finding; the
Makefile's phony `ci` is a real target."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)


def _commands(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()
            if line.strip() and not line.strip().startswith("#")]


def test_ci_lints_before_the_tests_and_stops_on_a_finding():
    script = (ROOT / ".ci" / "run").read_text()
    assert "set -euo pipefail" in script  # a non-zero ruff stops the run
    commands = _commands(script)
    lint = commands.index(".venv/bin/ruff check .")
    assert lint < commands.index("make test")
    assert not any("ruff" in c and ("|| true" in c or "--exit-zero" in c) for c in commands)


def test_every_phony_make_target_exists():
    makefile = (ROOT / "Makefile").read_text()
    phony = re.search(r"^\.PHONY:(.*)$", makefile, re.M).group(1).split()
    targets = set(re.findall(r"^([A-Za-z][\w-]*):", makefile, re.M))
    assert set(phony) <= targets, set(phony) - targets
    assert re.search(r"^ci:\n\tbash \.ci/run$", makefile, re.M)
