"""The suite's time budget: worker-seconds per test directory against the table in
docs/operations.md ("The suite's budget"), printed at the end of every run.

A test's worker-seconds are the durations pytest reports for its setup, call and teardown
(under xdist the workers send them to the controller, which sums them). A directory is the
first folder under tests/ (tests/web/classic counts as tests/web); the test files directly
under tests/ count as `tests/`. A directory over its budget is named in the output; the run's
outcome is not changed by it (a loaded machine would fail healthy runs): the budget is a
line each change holds, and CI's log shows who crossed it.
"""

from __future__ import annotations

import pathlib
import re
from collections import defaultdict

DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "operations.md"
HEADING = "### The suite's budget"
_ROW = re.compile(r"^\|\s*`(tests/[\w/]*)`\s*\|\s*(\d+)\s*\|")


def budgets(doc: pathlib.Path = DOC) -> dict[str, int]:
    """{directory: worker-seconds} from the table under HEADING (its rows `| `tests/web/` |
    330 | … |`); {} when the doc has none."""
    if not doc.exists():
        return {}
    text = doc.read_text(encoding="utf-8")
    start = text.find(HEADING)
    if start < 0:
        return {}
    out = {}
    for line in text[start:].splitlines()[1:]:
        if line.startswith("#"):
            break
        match = _ROW.match(line)
        if match:
            out[match.group(1).rstrip("/") + "/"] = int(match.group(2))
    return out


def directory_of(nodeid: str) -> str:
    parts = nodeid.split("::")[0].split("/")
    return f"{parts[0]}/{parts[1]}/" if len(parts) > 2 else f"{parts[0]}/"


def report(spent: dict[str, float], table: dict[str, int], workers: int) -> tuple[list[str],
                                                                                 list[str]]:
    """The lines to print, and the directories over budget."""
    lines = [f"{'directory':<22}{'worker-s':>10}{'budget':>9}"]
    over = []
    for name in sorted(set(spent) | set(table)):
        used, budget = spent.get(name, 0.0), table.get(name)
        mark = ""
        if budget is None:
            mark = "  (no budget: add it to docs/operations.md)"
            over.append(name)
        elif used > budget:
            mark = "  OVER BUDGET"
            over.append(name)
        lines.append(f"{name:<22}{used:>10.0f}{'' if budget is None else budget:>9}{mark}")
    total, allowed = sum(spent.values()), sum(table.values())
    lines.append(f"{'all':<22}{total:>10.0f}{allowed:>9}   about {total / max(workers, 1) / 60:.1f}"
                 f" min of wall time on {workers} worker(s)")
    return lines, over


class Budget:
    def __init__(self, config):
        self.config = config
        self.spent: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report):
        self.spent[directory_of(report.nodeid)] += report.duration

    def pytest_terminal_summary(self, terminalreporter):
        if not self.spent:
            return
        workers = getattr(self.config.option, "numprocesses", None) or 1
        if not isinstance(workers, int):
            workers = 1
        lines, over = report(dict(self.spent), budgets(), workers)
        terminalreporter.section("the suite's budget (docs/operations.md)")
        for line in lines:
            terminalreporter.write_line(line)
        if over:
            terminalreporter.write_line("over budget: " + ", ".join(over))


def pytest_configure(config):
    if not hasattr(config, "workerinput"):  # the controller (or a run without xdist)
        config.pluginmanager.register(Budget(config), "suite-budget")
