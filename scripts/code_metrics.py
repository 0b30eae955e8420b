"""Size and shape of the project's own code: long functions, the largest modules, import cycles.

    .venv/bin/python scripts/code_metrics.py [--list]

The apps are config, accounts, messaging and games (migrations excluded). A function's length
is its source lines from `def` to its last line, decorators excluded. An import cycle is a
strongly connected set of two or more project modules in the graph of every import statement
(function-level imports included: they are cycles too, only hidden); importing a package's
submodule counts as importing the package too (its __init__.py runs first), unless the
importer is inside that package. `tests/test_layers.py` enforces the rules built on the
same graph (both use scripts/code_graph.py).
"""

from __future__ import annotations

import sys

from code_graph import ROOT, app_files, cycles, functions, import_graph


def main(argv: list[str]) -> int:
    files = app_files()
    long_ones = sorted(((length, f"{p.relative_to(ROOT)}:{line} {name}")
                        for p in files for name, line, length in functions(p) if length > 60),
                       reverse=True)
    sizes = sorted(((len(p.read_text(encoding="utf-8").splitlines()), str(p.relative_to(ROOT)))
                    for p in files), reverse=True)
    found = cycles(import_graph(files))
    print(f"functions over 60 lines: {len(long_ones)}; "
          f"over 100: {sum(1 for n, _ in long_ones if n > 100)}")
    if "--list" in argv:
        for length, where in long_ones:
            print(f"  {length:4d}  {where}")
    print("largest modules: " + ", ".join(f"{path} ({n})" for n, path in sizes[:3]))
    print(f"import cycles: {len(found)}")
    for component in found:
        print("  " + " <-> ".join(component))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
