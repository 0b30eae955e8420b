"""The one golden-playthrough harness for every rule set (OpenSpiel's playthroughs).

A rule set's golden games live in `tests/engine/<ruleset>/golden_games.py` as a list
`GOLDEN` of `GoldenGame`; `tests/engine/test_golden.py` plays every one, compares its text
with `tests/engine/golden/<ruleset>/<name>.txt` byte for byte and replays its steps.

A missing file fails, and so does a changed one: the test never writes a file on its own.
To accept new texts, regenerate explicitly:

    UPDATE_GOLDEN=1 .venv/bin/pytest -p no:django -q tests/engine/test_golden.py

which writes every file and then skips each test (so a regenerating run is never green by
accident); review the diff with `git diff tests/engine/golden/` and run again without it.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
FLAG = "UPDATE_GOLDEN"


@dataclass(frozen=True)
class Played:
    """A golden game once played: its text, and what replaying it needs."""

    text: str
    setup: dict
    steps: list[dict]
    final: dict


@dataclass(frozen=True)
class GoldenGame:
    ruleset: str
    name: str
    play: Callable[[], Played]

    @property
    def path(self) -> Path:
        return GOLDEN_DIR / self.ruleset / f"{self.name}.txt"


def regenerating() -> bool:
    return os.environ.get(FLAG) == "1"


def check_golden(path: Path, text: str, *, regen: bool | None = None) -> None:
    """Fail unless `path` holds exactly `text`; with the flag, write it and skip."""
    if regen if regen is not None else regenerating():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        pytest.skip(f"{FLAG}=1: wrote {path.name}; review the diff and run again without it")
    if not path.exists():
        pytest.fail(f"golden file {path} is missing (write it with {FLAG}=1)")
    expected = path.read_bytes().decode("utf-8")
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                            str(path), "now", n=2))
        pytest.fail(f"golden playthrough {path.name} changed ({FLAG}=1 rewrites it):\n"
                    f"{diff[:6000]}")
