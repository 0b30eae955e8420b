"""The layers of the apps (config, accounts, messaging, games), read from the source like the
engine's purity test (docs/architecture.md, "Rules of the house"):

1. nothing imports games.tasks (Celery finds it; everyone else names a task);
2. games.mail imports no service, directly or through another module;
3. no module uses another module's `_private` name;
4. no import cycle among the project's modules (importing a package's submodule imports the
   package too: its __init__.py runs first);
5. arrows point down: the apps are layered config < accounts < messaging < games < web (the
   composition layer), and no module imports one of a layer above its own, at module level
   or inside a function; a string that names a module above to import it
   (`import_module("games.x")`, `import_string(...)`, a `"games.x.y"` path handed to an
   importer) counts too. Django's own settings and URL configuration name the apps by string
   to load them (INSTALLED_APPS, include(), Celery task names): those are declarations, not
   imports, and config/settings.py and config/urls.py may hold them.

Each rule has a canary: the same check run on a small tree that breaks it must complain.
The graph comes from scripts/code_graph.py (scripts/code_metrics.py prints its figures).
"""

from __future__ import annotations

import pathlib

from scripts.code_graph import ROOT, app_files, cycles, import_graph, module_name, private_uses


def graph(root: pathlib.Path = ROOT) -> dict[str, set[str]]:
    return import_graph(app_files(root), root)


def importers_of_tasks(g: dict[str, set[str]]) -> list[str]:
    return sorted(m for m, deps in g.items() if "games.tasks" in deps)


def reachable(g: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for dep in g.get(todo.pop(), ()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def services_reached_by_mail(g: dict[str, set[str]]) -> list[str]:
    return sorted(m for m in reachable(g, "games.mail")
                  if m == "games.services" or m.startswith("games.services."))


def private_users(root: pathlib.Path = ROOT) -> dict[str, list[str]]:
    files = app_files(root)
    modules = {module_name(p, root) for p in files}
    found = {str(p.relative_to(root)): private_uses(p, modules, root) for p in files}
    return {path: uses for path, uses in found.items() if uses}


def tree(tmp_path: pathlib.Path, files: dict[str, str]) -> pathlib.Path:
    for name in ("config", "accounts", "messaging", "games", "web"):
        (tmp_path / name).mkdir(exist_ok=True)
        (tmp_path / name / "__init__.py").write_text("")
    for path, text in files.items():
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return tmp_path


# --- 1. nothing imports games.tasks ----------------------------------------------------------

def test_nothing_imports_the_celery_tasks():
    g = graph()
    assert "games.tasks" in g and len(g) > 50
    assert importers_of_tasks(g) == []


def test_the_tasks_check_would_see_an_import(tmp_path):
    root = tree(tmp_path, {"games/tasks.py": "", "games/views.py": "def f():\n"
                           "    from .tasks import sweep\n"})
    assert importers_of_tasks(graph(root)) == ["games.views"]


# --- 2. mail imports no service -----------------------------------------------------------------

def test_mail_reaches_no_service():
    g = graph()
    assert "games.mail" in g
    assert services_reached_by_mail(g) == []


def test_the_mail_check_would_see_a_service_two_steps_away(tmp_path):
    root = tree(tmp_path, {"games/mail.py": "from . import helpers\n",
                           "games/helpers.py": "from games.services import kernel\n",
                           "games/services/__init__.py": "", "games/services/kernel.py": ""})
    # importing the kernel runs games/services/__init__.py first: both are reached
    assert services_reached_by_mail(graph(root)) == ["games.services", "games.services.kernel"]


# --- 3. no module borrows another's _private names ---------------------------------------------

def test_no_module_uses_another_modules_private_names():
    assert private_users() == {}


def test_the_private_check_would_see_both_ways_of_borrowing(tmp_path):
    root = tree(tmp_path, {
        "games/services.py": "def _lock():\n    pass\n",
        "games/community.py": "from .services import _lock\nfrom . import services\n\n"
                              "def f():\n    return services._lock, services.__doc__\n",
        "games/fine.py": "from __future__ import annotations\nimport os\n\n"
                         "def g():\n    return os._exit\n"})
    assert private_users(root) == {
        "games/community.py": ["1: from games.services import _lock", "5: games.services._lock"]}


# --- 4. no import cycles --------------------------------------------------------------------------

def test_no_import_cycles():
    assert cycles(graph()) == []


def test_the_cycle_check_would_see_a_hidden_cycle(tmp_path):
    root = tree(tmp_path, {"games/a.py": "from . import b\n",
                           "games/b.py": "def f():\n    from games import c\n",
                           "games/c.py": "import games.a\n", "games/d.py": "from . import a\n"})
    assert cycles(graph(root)) == [["games.a", "games.b", "games.c"]]


def test_importing_a_submodule_imports_its_package_so_that_cycle_shows(tmp_path):
    # The shape the rule-set table and the presenters once had: the table imports a
    # presenter module, whose package's __init__ imports the table back.
    root = tree(tmp_path, {"games/rulesets.py": "from .presenters import classic\n",
                           "games/presenters/__init__.py": "from .. import rulesets\n",
                           "games/presenters/classic.py": "from .base import who\n",
                           "games/presenters/base.py": ""})
    assert cycles(graph(root)) == [["games.presenters", "games.rulesets"]]


def test_a_dotted_import_inside_a_function_imports_every_package_on_the_way(tmp_path):
    root = tree(tmp_path, {"games/table.py": "def f():\n    import games.pkg.deep.leaf\n",
                           "games/pkg/__init__.py": "",
                           "games/pkg/deep/__init__.py": "from games.table import f\n",
                           "games/pkg/deep/leaf.py": ""})
    g = graph(root)
    assert g["games.table"] == {"games.pkg", "games.pkg.deep", "games.pkg.deep.leaf"}
    assert cycles(g) == [["games.pkg.deep", "games.table"]]


def test_a_module_importing_a_sibling_does_not_import_its_own_package(tmp_path):
    # games.pkg is already being imported when its submodules run: no cycle through it.
    root = tree(tmp_path, {"games/pkg/__init__.py": "from .sub import x\n",
                           "games/pkg/sub.py": "from . import other\nfrom games.pkg import other\n",
                           "games/pkg/other.py": ""})
    assert graph(root)["games.pkg.sub"] == {"games.pkg.other"}
    assert cycles(graph(root)) == []


# --- 5. arrows point down ---------------------------------------------------------------------

LAYERS = ("config", "accounts", "messaging", "games", "web")
# Where naming an app by string is Django's or Celery's own declaration, not an import.
DECLARATIONS = {"config/settings.py", "config/urls.py", "config/celery.py"}


def _string_imports(root: pathlib.Path) -> dict[str, set[str]]:
    """Modules named by a string handed to an importer (import_module, import_string,
    __import__) or stored as a dotted path to one of the project's modules' names."""
    import ast

    from scripts.code_graph import app_files, module_name

    files = app_files(root)
    modules = {module_name(p, root) for p in files}
    out: dict[str, set[str]] = {}
    for path in files:
        if path.relative_to(root).as_posix() in DECLARATIONS:
            continue
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and node.value.count(".") >= 1 and " " not in node.value:
                target = node.value
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target.split(".")[0] in LAYERS and "." in target:
                    found.add(target)
        if found:
            out[module_name(path, root)] = found
    return out


def upward_imports(root: pathlib.Path = ROOT) -> list[str]:
    rank = {name: i for i, name in enumerate(LAYERS)}
    g = graph(root)
    for module, named in _string_imports(root).items():
        g.setdefault(module, set()).update(named)
    found = []
    for module, deps in sorted(g.items()):
        for dep in sorted(deps):
            if any(other.startswith(dep + ".") for other in deps):
                continue  # a package on the way to a deeper module named: that one says it
            if rank[dep.split(".")[0]] > rank[module.split(".")[0]]:
                found.append(f"{module} -> {dep}")
    return found


def test_arrows_point_down():
    assert upward_imports() == []


def test_the_layer_check_would_see_an_upward_import_of_every_shape(tmp_path):
    root = tree(tmp_path, {
        "accounts/views.py": "def f():\n    from games import services\n",
        "config/live.py": "import messaging.rules\n",
        "messaging/mail.py": "DEFERRED = {'x': 'games.reminders.text'}\n",
        "games/reminders.py": "def text():\n    pass\n",
        "games/services.py": "", "messaging/rules.py": "",
        "web/profiles.py": "from games import services\n",   # down: fine
        "games/pages.py": "from messaging import rules\n"})  # down: fine
    assert upward_imports(root) == ["accounts.views -> games.services",
                                    "config.live -> messaging.rules",
                                    "messaging.mail -> games.reminders"]
