"""The one golden-playthrough harness for every rule set (OpenSpiel's playthroughs).

A rule set's golden games live in `tests/engine/<ruleset>/golden_games.py` as a list
`GOLDEN` of `GoldenGame`; `tests/engine/test_golden.py` plays every one, compares its text
with `tests/engine/golden/<ruleset>/<name>.txt` byte for byte and replays its steps.

A golden file is written for a person to review, in Chinese (zh-hans, the catalogue
compiled afresh from locale/zh_Hans/LC_MESSAGES/django.po), through the presenters, as the
players and the GM read the game: never an engine key, never JSON. `write` plays a game's
steps from its setup and writes:

1. a header: the rule set, the game, the seats numbered from 1 with the fixtures' player
   names, the rule options and the seed;
2. for the setup and then each step, a block titled with who took it and what, as the
   action form offers it (`choice_label`), the step's own words when no event quotes them;
3. the step's new events, each with who saw it, read from every viewer's `view()`
   ("所有人", "仅天神", or the seats: "3号小白、5号花花"), its sentence (`describe`) and its
   causes (`because_chain`), one "因为：" line each;
4. the public view ("公开"): the phase's name (`phase_name`), the seats it awaits, each
   seat's public facts (`seat_facts`) and what the rule set's `Reader.public` adds;
5. each seat's and the GM's own part ("各自所见"), as the rule set's `Reader` writes it
   from the presenters (`review_facts`, `review_secret`, card and camp names);
6. the outcome (`outcome_text`) and the winners.

Parts 4 and 5 are written whole at the setup, then only the lines a step changed (a line
is "label：text"; a label that is gone reads "label：—"), so each step shows what it did.

A missing file fails, and so does a changed one: the test never writes a file on its own.
To accept new texts, regenerate explicitly:

    UPDATE_GOLDEN=1 make test PYTEST_ARGS=tests/engine/test_golden.py PYTEST_WORKERS=0

which writes every file and then skips each test (so a regenerating run is never green by
accident); review the diff with `git diff tests/engine/golden/` and run again without it.
The harness needs Django's settings and translations (pytest-django sets them up) but no
database.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest
from django.test import override_settings
from django.utils import translation

from games.engine.base import GM, SPECTATOR, Choice, Refusal
from games.engine.registry import get
from games.presenters import (
    because_chain,
    choice_label,
    describe,
    field_label,
    listing,
    outcome_text,
    phase_name,
    plain_text,
    round_of,
    ruleset_name,
    seat_facts,
    who,
)
from games.presenters.labels import labelled, option_lines, result_label
from tests.factories import build_chinese_catalog

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
FLAG = "UPDATE_GOLDEN"

# The fixtures' players (tests/factories/<ruleset>.py NAMES), and more for larger tables.
NAMES = {
    "ninelives": ["阿猫", "阿狗", "小白", "老黑", "花花", "大黄"],
    "classic": ["阿猫", "阿狗", "小白", "老黑", "花花", "大黄", "小红", "阿青", "木木", "豆豆",
                "球球", "乐乐"],
    "gold": ["金子", "银子", "铜子", "铁子", "锡子", "铅子"],
}
# Text fields of a step: the words a player (or the GM) wrote.
WORDS = ("manifesto", "story", "text", "reason")


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


# --- Chinese, as the players read it ------------------------------------------------------

@cache
def _catalogue() -> str:
    """django.po compiled into a directory kept for this process, so a stale django.mo
    cannot change a golden file (tests/factories `build_chinese_catalog`)."""
    directory = tempfile.mkdtemp(prefix="golden-locale-")
    return str(build_chinese_catalog(Path(directory)))


@contextmanager
def chinese() -> Iterator[None]:
    """zh-hans active, with the catalogue compiled afresh."""
    with override_settings(LOCALE_PATHS=[_catalogue()]), translation.override("zh-hans"):
        yield


# --- how a rule set's views read ------------------------------------------------------------

def _nothing(view: dict, names: dict[int, str]) -> list[str]:
    return []


@dataclass(frozen=True)
class Reader:
    """A rule set's part of a golden file, written from its presenters. Each function takes
    a view and the seat names and returns lines of text:

    own     a seat's own part (view["me"]);
    secret  the GM's own part (view["secret"], view["private"]);
    public  what the public part holds beyond the phase and each seat's `seat_facts`.
    """
    own: Callable[[dict, dict[int, str]], list[str]]
    secret: Callable[[dict, dict[int, str]], list[str]]
    public: Callable[[dict, dict[int, str]], list[str]] = field(default=_nothing)


def facts_line(rows) -> str:
    """(label, text) rows of a presenter as one line: "阵营：杀手；手牌：杀手、恶魔"."""
    return "；".join(labelled(label, text) for label, text in rows or [])


def plain(text: str) -> list[str]:
    """A presenter's sentence (Markdown) as lines of plain text: a player's words as a
    header line and indented words, bold dropped, blank lines left out."""
    return [line.rstrip() for line in plain_text(text).replace("**", "").split("\n")
            if line.strip()]


def _key(line: str) -> str:
    return line.split("：", 1)[0]


def changes(before: list[str] | None, now: list[str]) -> list[str]:
    """The lines of a view part to write after a step: all of them the first time, then
    the new or changed ones, and "label：—" for a label that is gone. Lines are
    "label：text"; the label names what the line is about (a seat, "阶段", "手牌"…)."""
    if before is None:
        return list(now)
    labels = {_key(line) for line in now}
    return ([line for line in now if line not in before]
            + [f"{_key(line)}：—" for line in before if _key(line) not in labels])


def _block(label: str, lines: list[str], indent: str = "  ") -> list[str]:
    """`label：line` for one line, else the label and the lines indented below it."""
    if len(lines) == 1:
        return [f"{indent}{label}：{lines[0]}"]
    return [f"{indent}{label}："] + [f"{indent}  {line}" for line in lines]


# --- the writer ---------------------------------------------------------------------------------

def write(ruleset: str, name: str, setup: dict, steps: list[dict], reader: Reader) -> Played:
    """Play `steps` from `setup` and write the golden text (the module docstring's layout),
    in Chinese."""
    with chinese():
        return _Writer(ruleset, setup, reader).play(name, steps)


class _Writer:
    """One golden game's text, step by step (see `write`)."""

    def __init__(self, ruleset: str, setup: dict, reader: Reader):
        self.ruleset, self.setup, self.reader = ruleset, setup, reader
        self.rules = get(ruleset)
        self.seats = setup["seats"]
        self.names = dict(enumerate(NAMES[ruleset][:self.seats]))
        self.viewers = [*range(self.seats), SPECTATOR, GM]
        self.shown: set[int] = set()
        self.last_public: list[str] | None = None
        self.last_own: dict = {}

    def play(self, name: str, steps: list[dict]) -> Played:
        state = self.rules.initial_state(**self.setup).state
        out = self.header(name) + self.block(state, None, 0)
        for number, step in enumerate(steps, 1):
            result = self.rules.step(state, step)
            assert not isinstance(result, Refusal), (number, step, result)
            state = result.state
            out += self.block(state, step, number)
        out += self.ending(state)
        return Played("\n".join(out) + "\n", self.setup, steps, state)

    # 1. the header
    def header(self, name: str) -> list[str]:
        seats = listing(who(self.names, s) for s in range(self.seats))
        lines = [f"# {ruleset_name(self.ruleset)} · 黄金对局 {name}",
                 f"# {self.seats}个座位：{seats}"]
        options = option_lines(self.ruleset, self.setup.get("config") or {}, self.names)
        if options:
            lines.append(f"# 规则选项：{'；'.join(options)}")
        lines += [f"# 种子：{self.setup['seed']}",
                  "# 由 tests/engine/golden.py 写成；UPDATE_GOLDEN=1 重写（见该文件）。", ""]
        return lines

    # 2-5. one step
    def block(self, state: dict, step: dict | None, number: int) -> list[str]:
        views = {v: self.rules.view(state, v) for v in self.viewers}
        events = [e for e in views[GM]["log"] if e["seq"] not in self.shown]
        self.shown |= {e["seq"] for e in events}
        written = [self.event_lines(e, views) for e in events]
        lines = [self.title(step, number)]
        if step is not None:
            lines += self.words(step, written)
        if written:
            lines.append("事件：")
            lines += [line for event in written for line in event]
        public = self.public_lines(state, views[SPECTATOR])
        changed = changes(self.last_public, public)
        if changed:
            lines += ["公开："] + [f"  {line}" for line in changed]
        self.last_public = public
        own = []
        for v in self.viewers:
            if v == SPECTATOR:
                continue  # the spectator sees the public part and the public events only
            text = (self.reader.secret(views[v], self.names) if v == GM
                    else self.reader.own(views[v], self.names)) or ["—"]
            changed = changes(self.last_own.get(v), text)
            if changed:
                own += _block(self.viewer_name(v), changed)
            self.last_own[v] = text
        if own:
            lines += ["各自所见："] + own
        return lines + [""]

    def viewer_name(self, viewer) -> str:
        return "天神" if viewer == GM else who(self.names, viewer)

    def title(self, step: dict | None, number: int) -> str:
        if step is None:
            return "== 开局 =="
        if step["actor"] not in (GM, *range(self.seats)):
            return f"== 第{number}步 · 时间到，本阶段结束 =="
        label = choice_label(self.ruleset, Choice(step["kind"], dict(step["params"])),
                             self.names)
        return f"== 第{number}步 · {self.viewer_name(step['actor'])}：{label} =="

    def words(self, step: dict, written: list[list[str]]) -> list[str]:
        """The step's own words, unless one of its events already quotes them."""
        quoted = "\n".join(line for event in written for line in event)
        return [f"  {field_label(key)}：{value}" for key, value in step["params"].items()
                if key in WORDS and isinstance(value, str) and value
                and value.strip() not in quoted]

    def event_lines(self, event: dict, views: dict) -> list[str]:
        sentence = plain(describe(self.ruleset, event, self.names)) or [event["kind"]]
        lines = [f"  #{event['seq']} [{self.audience(event['seq'], views)}] {sentence[0]}"]
        lines += [f"      {line}" for line in sentence[1:]]
        for reason in because_chain(self.ruleset, event, self.names):
            text = plain(reason)
            lines.append(f"      因为：{text[0] if text else ''}")
            lines += [f"        {line}" for line in text[1:]]
        return lines

    def audience(self, seq: int, views: dict) -> str:
        """Who saw event `seq`, read from every viewer's view."""
        saw = [v for v in self.viewers if any(e["seq"] == seq for e in views[v]["log"])]
        assert GM in saw, f"the GM's view lacks event {seq}"
        if SPECTATOR in saw:
            assert len(saw) == len(self.viewers), f"public event {seq} hidden from a seat"
            return "所有人"
        seats = [v for v in saw if v != GM]
        return listing(who(self.names, s) for s in seats) if seats else "仅天神"

    def public_lines(self, state: dict, view: dict) -> list[str]:
        info = self.rules.phase(state)
        phase = "对局结束" if info.finished else phase_name(
            self.ruleset, info.name, info.number, round_of(self.ruleset, view["public"]))
        awaiting = listing(who(self.names, s) for s in sorted(info.awaiting)) or "无人"
        lines = [f"阶段：{phase}", f"等待：{awaiting}"]
        lines += [f"{who(self.names, s)}：{seat_facts(self.ruleset, view, s) or '—'}"
                  for s in range(self.seats)]
        return lines + self.reader.public(view, self.names)

    # 6. the end
    def ending(self, state: dict) -> list[str]:
        outcome = self.rules.outcome(state)
        assert outcome is not None, "a golden game must reach its end"
        data = {"result": outcome.result, "winners": list(outcome.winners),
                "reason": outcome.reason}
        winners = listing(who(self.names, s) for s in outcome.winners) or "无"
        text = plain(outcome_text(self.ruleset, data, self.names,
                                  self.rules.view(state, GM)))
        return ["== 结果 ==", f"  {result_label(outcome.result)}：{text[0]}",
                *[f"  {line}" for line in text[1:]], f"  获胜：{winners}"]
