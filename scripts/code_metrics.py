"""Size and shape of the project's own code: long functions, the largest modules, import cycles.

    .venv/bin/python scripts/code_metrics.py [--list]

The apps are config, accounts, messaging and games (migrations excluded). A function's length
is its source lines from `def` to its last line, decorators excluded. An import cycle is a
strongly connected set of two or more project modules in the graph of every import statement
(function-level imports included: they are cycles too, only hidden); importing a package's
submodule does not count as importing the package. `tests/test_layers.py` enforces the rules
built on the same graph.
"""

from __future__ import annotations

import ast
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
APPS = ("config", "accounts", "messaging", "games")


def app_files(root: pathlib.Path = ROOT) -> list[pathlib.Path]:
    return sorted(p for app in APPS for p in (root / app).rglob("*.py")
                  if "migrations" not in p.parts)


def module_name(path: pathlib.Path, root: pathlib.Path = ROOT) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")


def functions(path: pathlib.Path) -> list[tuple[str, int, int]]:
    """(qualified name, first line, length) of every function and method in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[tuple[str, int, int]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                found.append((name, child.lineno, child.end_lineno - child.lineno + 1))
                walk(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(tree, "")
    return found


def imports_of(path: pathlib.Path, modules: set[str], root: pathlib.Path = ROOT) -> set[str]:
    """Project modules a file imports (anywhere in it), resolved to the deepest module named."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def add(target: str) -> None:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != name:
            found.add(target)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                add(full if full in modules else base)
    return found


def import_graph(files: list[pathlib.Path], root: pathlib.Path = ROOT) -> dict[str, set[str]]:
    modules = {module_name(p, root) for p in files}
    return {module_name(p, root): imports_of(p, modules, root) for p in files}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of two or more modules (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    result: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        result.append(sorted(component))
    return sorted(result)


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
