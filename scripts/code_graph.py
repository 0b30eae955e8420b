"""The project's own code as data: its modules, their functions and their import graph.

Used by scripts/code_metrics.py (the figures) and tests/test_layers.py (the rules). The apps
are config, accounts, messaging, games and the composition layer above them, web
(migrations excluded). A function's length is its
source lines from `def` to its last line, decorators excluded. The import graph has an edge
for every import statement (function-level imports included: they are cycles too, only
hidden). Importing a package's submodule (`from games.presenters import classic`,
`import games.presenters.classic`) is also an import of the package: Python runs the
package's __init__.py first, so whatever that imports is imported too. Only a package the
importing module itself belongs to is left out (it is already being imported when the
module runs).
"""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
APPS = ("config", "accounts", "messaging", "games", "web")


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
    """Project modules a file imports (anywhere in it): the deepest module named, and every
    package above it that the file is not itself inside."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def add(target: str) -> None:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        while target:
            if target in modules and target != name and not name.startswith(target + "."):
                found.add(target)
            target = target.rpartition(".")[0]

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


def bindings(tree: ast.AST, path: pathlib.Path, modules: set[str],
             root: pathlib.Path = ROOT) -> dict[str, str]:
    """Local name -> project module, for every name an import statement binds to a module."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name in modules:
                    bound[alias.asname] = alias.name
                elif not alias.asname and alias.name.split(".")[0] in {
                        m.split(".")[0] for m in modules}:
                    bound[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            for alias in node.names:
                full = f"{base}.{alias.name}" if base else alias.name
                if full in modules:
                    bound[alias.asname or alias.name] = full
    return bound


def _absolute(node: ast.ImportFrom, package: str) -> str:
    base = node.module or ""
    if node.level:
        parts = package.split(".")
        parts = parts[: len(parts) - node.level + 1]
        base = ".".join(parts + ([base] if base else []))
    return base


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_uses(path: pathlib.Path, modules: set[str],
                 root: pathlib.Path = ROOT) -> list[str]:
    """Where a file uses another project module's `_private` name: `from x import _y`, or
    `x._y` on a name bound to a project module ("line: text" entries)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    bound = bindings(tree, path, modules, root)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            if base == "__future__" or not any(
                    base == m or base.startswith(m + ".") or m.startswith(base + ".")
                    for m in modules):
                continue
            found += [f"{node.lineno}: from {base} import {a.name}"
                      for a in node.names if _private(a.name)]
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and node.value.id in bound and _private(node.attr)):
            found.append(f"{node.lineno}: {bound[node.value.id]}.{node.attr}")
    return found
