"""The suite's budget (tests/budget.py): the table is read from docs/operations.md, time is
summed per top directory, and a directory over its budget (or with none) is named."""

from __future__ import annotations

from tests import budget


def test_the_docs_hold_a_budget_for_every_test_directory_within_ten_minutes_on_two_workers():
    table = budget.budgets()
    folders = {f"tests/{p.name}/" for p in budget.DOC.parents[1].joinpath("tests").iterdir()
               if p.is_dir() and (p / "__init__.py").exists() and p.name != "factories"}
    assert folders <= set(table), folders - set(table)
    assert "tests/" in table
    assert sum(table.values()) <= 10 * 60 * 2


def test_time_is_summed_per_top_directory_and_the_ones_over_are_named(tmp_path):
    doc = tmp_path / "ops.md"
    doc.write_text("## Tests\n### The suite's budget\n| directory | worker-s | why |\n|---|---|---|\n"
                   "| `tests/web/` | 100 | pages |\n| `tests/` | 5 | rules |\n### Next\n"
                   "| `tests/engine/` | 9 | not this table |\n")
    table = budget.budgets(doc)
    assert table == {"tests/web/": 100, "tests/": 5}
    assert budget.directory_of("tests/web/classic/test_x.py::test_y[1]") == "tests/web/"
    assert budget.directory_of("tests/test_layers.py::test_z") == "tests/"
    lines, over = budget.report({"tests/web/": 120.0, "tests/": 1.0, "tests/engine/": 3.0},
                                table, workers=2)
    assert over == ["tests/engine/", "tests/web/"]
    assert any(line.startswith("tests/web/") and "OVER BUDGET" in line for line in lines)
    assert "about 1.0 min of wall time on 2 worker(s)" in lines[-1]
