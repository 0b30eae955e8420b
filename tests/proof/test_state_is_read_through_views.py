"""Leak safety by construction: a game's raw state is read only where the rules, the writers
and the readers of games/selectors/ work with it; every page, email, calendar feed and
template gets a view (`selectors.view_for`, `seat_view`, `gm_view`) or what a selector
made of one (`legal_actions_for`, `commitment_check`, `outcome_line`...), never the state
(docs/architecture.md, "Secrets"). The leak crawler (test_leak_crawler.py) is the witness
that the views themselves hide what they should.

Read from the source, like tests/test_layers.py. What counts as reading the state:
1. in the apps' Python (config, accounts, messaging, games; migrations only declare the
   column): an attribute `.state`, read or written (`game.state`, a transition's
   `t.state`); the word "state" as a string (`values("state")`, `getattr(game, "state")`,
   `F("state__secret")`, a template context's key) or as a keyword (`render(..., state=)`,
   `.update(state=...)`); SQL naming a `state` column; and a whole row read without naming
   its columns, which carries the state with the rest: a queryset's `.values()` or
   `.values_list()` with no fields, `model_to_dict`, `vars(obj)` or `obj.__dict__`, a
   manager's `.raw()`, SQL selecting `*`;
3. in games/selectors/ (allowed to read the state): a function that returns the raw state
   or a part of it as it is (`return game.state`, `return game.state["deal"]`, in a tuple or
   dict), rather than what the engine's view made of it;
2. in templates: a variable named `state` inside `{{ }}` or `{% %}` (`{{ game.state }}`,
   `{% with s=game.state.secret %}`), quoted words aside.

Each allowance below says why its module holds the raw state; one that no longer reads
it fails `test_every_allowance_is_still_needed`, so the list stays short. A canary shows the
check finds a new read in a view.
"""

from __future__ import annotations

import ast
import pathlib
import re
from dataclasses import dataclass

from scripts.code_graph import ROOT, app_files

# Where the raw state may be read: a folder, a module, or "module:function".
ALLOWED = {
    "games/engine/": "the rules: a state is what they take and what they give back",
    "games/services/": "the writers: they hand the state to the engine and store what it "
                       "returns, under the game lock",
    "games/selectors/": "the readers: every secret passes through the engine's view "
                        "(view_for, seat_view, gm_view); the other reads give a page the "
                        "engine's answer for one viewer (legal_actions_for, the GM's "
                        "console reads such as living_seats, commitment_check after the end, "
                        "the rollback plan)",
    "messaging/views.py:_without_game_columns": "names the game columns a forum page "
                                                 "defers (never loads), so reads none",
    "messaging/services.py:without_game_columns": "names the game columns the forum's "
        "writers leave out when they read a board's game (never reads them)",
    "games/awaiting.py": "who the engine awaits, worked out when a service writes the state "
                         "(for_game) and by the reminder sweep where that record is empty",
    "games/reminders.py": "the reminder sweep reads the state column only where the awaiting "
                          "record is empty, and gives it to awaiting.of_state (who is "
                          "awaited), never to an email",
}

TEMPLATES = ROOT / "templates"
_SQL = re.compile(r"\b(select|update|insert|where)\b.*\bstate\b", re.I | re.S)
_TAG = re.compile(r"{{.*?}}|{%.*?%}", re.S)
_QUOTED = re.compile(r"\"[^\"]*\"|'[^']*'")
_STATE_WORD = re.compile(r"\bstate\b")
_SELECT_ALL = re.compile(r"\bselect\s+(\w+\.)?\*", re.I)
# Queryset methods: a `.values()` reached through one of them (or a manager) reads rows.
_QUERYSET = {"objects", "filter", "exclude", "all", "order_by", "select_related",
             "prefetch_related", "only", "defer", "annotate", "distinct", "using",
             "select_for_update", "none", "reverse"}


@dataclass(frozen=True)
class Read:
    path: str       # relative to the project
    line: int
    function: str   # the enclosing function's qualified name ("" at module level)
    code: str

    def __str__(self):
        where = f"{self.path}:{self.line}" + (f" ({self.function})" if self.function else "")
        return f"{where}: {self.code}"


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings (they talk about the state)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) \
                and node.body and isinstance(node.body[0], ast.Expr) \
                and isinstance(node.body[0].value, ast.Constant):
            out.add(id(node.body[0].value))
    return out


def _reaches_rows(node: ast.AST) -> bool:
    """Whether the expression `node` is a queryset or manager (reached through `.objects` or
    a queryset method)."""
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute):
            if node.attr in _QUERYSET:
                return True
            node = node.value
        else:
            return False


def _whole_row(node: ast.AST) -> bool:
    """A read of whole rows or objects, the state among their columns (rule 1's end)."""
    if isinstance(node, ast.Attribute) and node.attr == "__dict__":
        return True
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Name):
        if func.id == "model_to_dict":
            return True
        # vars(game); vars() and vars(SomeClass) read no row
        return func.id == "vars" and len(node.args) == 1 and not (
            isinstance(node.args[0], ast.Name)
            and (node.args[0].id[:1].isupper() or node.args[0].id in ("cls", "klass")))
    if isinstance(func, ast.Attribute):
        if func.attr in ("values", "values_list") and not node.args and not node.keywords:
            return _reaches_rows(func.value)
        if func.attr in ("values", "values_list") and not node.args:
            return _reaches_rows(func.value) and all(k.arg == "flat" or k.arg == "named"
                                                     for k in node.keywords)
        if func.attr == "raw":
            return _reaches_rows(func.value)
    return False


def _names_state(node: ast.AST, docstrings: set[int]) -> bool:
    if _whole_row(node):
        return True
    if isinstance(node, ast.Attribute):
        return node.attr == "state"
    if isinstance(node, ast.keyword):
        return node.arg == "state"
    if isinstance(node, ast.Constant) and isinstance(node.value, str) \
            and id(node) not in docstrings:
        text = node.value
        return text == "state" or text.startswith("state__") or bool(_SQL.search(text)) \
            or bool(_SELECT_ALL.search(text))
    return False


def state_reads(source: str, path: str) -> list[Read]:
    """Every place in `source` (the module at `path`) that names the raw state."""
    tree = ast.parse(source, path)
    docstrings = _docstrings(tree)
    lines = source.splitlines()
    found: list[Read] = []

    def walk(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = function
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                inner = f"{function}.{child.name}" if function else child.name
            if _names_state(child, docstrings):
                line = getattr(child, "lineno", None) or getattr(node, "lineno", 0)
                found.append(Read(path, line, function, lines[line - 1].strip()))
            walk(child, inner)

    walk(tree, "")
    return found


def template_reads(text: str, path: str) -> list[Read]:
    """Every template tag or variable that names `state` (quoted words are text)."""
    found = []
    for match in _TAG.finditer(text):
        if _STATE_WORD.search(_QUOTED.sub("", match.group())):
            line = text.count("\n", 0, match.start()) + 1
            found.append(Read(path, line, "", match.group()))
    return found


# What a returned value may be made of and still be the state as it is (rule 3): a container
# of it, a part of it, a choice between it and something else.
_AS_IT_IS = (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Starred, ast.IfExp, ast.BoolOp,
             ast.Subscript)


def _hands_out_state(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute) and node.attr == "state":
        return True
    if isinstance(node, ast.Subscript):
        return _hands_out_state(node.value)
    if isinstance(node, _AS_IT_IS):
        return any(_hands_out_state(child) for child in ast.iter_child_nodes(node)
                   if isinstance(child, ast.expr))
    return False


def raw_returns(source: str, path: str) -> list[Read]:
    """Every `return` in `source` that hands out the raw state or a part of it as it is."""
    tree = ast.parse(source, path)
    lines = source.splitlines()
    found: list[Read] = []

    def walk(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = function
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                inner = f"{function}.{child.name}" if function else child.name
            if isinstance(child, ast.Return) and child.value is not None \
                    and _hands_out_state(child.value):
                found.append(Read(path, child.lineno, function, lines[child.lineno - 1].strip()))
            walk(child, inner)

    walk(tree, "")
    return found


def selector_raw_returns(root: pathlib.Path = ROOT) -> list[Read]:
    return [r for p in app_files(root) if p.relative_to(root).as_posix().startswith(
                "games/selectors/")
            for r in raw_returns(p.read_text(encoding="utf-8"), p.relative_to(root).as_posix())]


def allowance(read: Read) -> str | None:
    """The ALLOWED entry that covers `read`, if any."""
    for entry in ALLOWED:
        path, _, function = entry.partition(":")
        if function:
            if read.path == path and (read.function == function
                                      or read.function.startswith(function + ".")):
                return entry
        elif read.path == path or (path.endswith("/") and read.path.startswith(path)):
            return entry
    return None


def python_reads(root: pathlib.Path = ROOT) -> list[Read]:
    return [r for p in app_files(root)
            for r in state_reads(p.read_text(encoding="utf-8"), p.relative_to(root).as_posix())]


def all_template_reads(root: pathlib.Path = TEMPLATES) -> list[Read]:
    return [r for p in sorted(root.rglob("*")) if p.is_file()
            for r in template_reads(p.read_text(encoding="utf-8"),
                                    p.relative_to(ROOT).as_posix())]


# --- the rules ------------------------------------------------------------------------------

def test_the_raw_state_is_read_only_where_it_is_allowed():
    stray = [r for r in python_reads() if allowance(r) is None]
    assert not stray, ("the raw game state is read outside the rules, the services and the "
                       "selectors; read it through a selector that returns a view (or what "
                       "the page needs):\n" + "\n".join(map(str, stray)))


def test_no_template_names_the_state():
    found = all_template_reads()
    assert not found, "templates get views, never the state:\n" + "\n".join(map(str, found))


def test_every_allowance_is_still_needed():
    used = {allowance(r) for r in python_reads()}
    unused = sorted(set(ALLOWED) - used)
    assert not unused, f"no longer reads the raw state: drop it from ALLOWED: {unused}"


def test_no_selector_hands_out_the_raw_state():
    found = selector_raw_returns()
    assert not found, ("a selector returns the raw state (or a part of it) to its caller; "
                       "return what the engine's view made of it:\n" + "\n".join(map(str, found)))


def test_the_web_pages_read_the_state_through_selectors():
    """The pages that used to read it themselves (the review, the act page and vote box,
    the commitment page) and everything else under games/web/ read none now."""
    assert not [r for r in python_reads() if r.path.startswith("games/web/")]


# --- the check can fail ---------------------------------------------------------------------

A_NEW_VIEW = '''
"""A page that talks about the state in its docstring, which is fine."""
from django.db.models import F
from django.shortcuts import render


def peek(request, pk):
    """Shows the game's state (this docstring is no read)."""
    game = Game.objects.get(pk=pk)
    secret = game.state["secret"]
    rows = Game.objects.values_list("state", flat=True)
    deal = Game.objects.filter(pk=pk).values(F("state__secret"))
    raw = getattr(game, "state")
    sql = "SELECT g.state FROM games_game g WHERE g.id = %s"
    return render(request, "games/peek.html", {"state": secret, "rows": rows, "deal": deal,
                                               "raw": raw, "sql": sql})


def rows(request):
    everything = Game.objects.filter(pk=1).values()
    listed = Game.objects.values_list(flat=False)
    one = model_to_dict(Game.objects.get(pk=1))
    fields = vars(one), one.__dict__
    raw = Game.objects.raw("SELECT * FROM games_game")
    return everything, listed, fields, raw


def fine(request, state):
    """Names that merely look alike: a parser's `state` argument, read marks."""
    state.pos += 1
    return ThreadReadState.objects.filter(user=request.user), "read_state"


def not_rows(d, presenter):
    return d.values(), {}.values(), vars(Presenter), vars(), presenter.raw({"kind": 1})
'''


def test_the_check_finds_a_new_read_in_a_view():
    reads = state_reads(A_NEW_VIEW, "games/web/peek.py")
    assert sorted({r.line for r in reads}) == [10, 11, 12, 13, 14, 15, 20, 21, 22, 23, 24], \
        "\n".join(map(str, reads))
    assert {r.function for r in reads} == {"peek", "rows"}
    assert all(allowance(r) is None for r in reads)
    # The same lines in the GM's console are refused too: the GM's pages read through
    # selectors like every other page.
    moved = state_reads(A_NEW_VIEW, "games/admin/console.py")
    assert moved and all(allowance(r) is None for r in moved)
    assert allowance(Read("games/admin/console.py", 1, "seat_rows", "")) is None
    assert allowance(Read("games/services/steps.py", 1, "submit_action", "")) is not None
    assert allowance(Read("games/web/review.py", 1, "review", "")) is None


A_SELECTOR = '''
def raw(game):
    return game.state


def part(game):
    return game.state["deal"]


def pair(game, user):
    return game.phase, {"state": game.state} if user else None


def viewed(game, user):
    return view_for(game.state, user), game.state_version
'''


def test_the_check_finds_a_selector_handing_out_the_state():
    found = raw_returns(A_SELECTOR, "games/selectors/peek.py")
    assert [r.function for r in found] == ["raw", "part", "pair"], "\n".join(map(str, found))


def test_the_check_finds_the_state_in_a_template():
    template = """<p data-state="{% if open %}open{% endif %}">{% trans "The state is rebuilt" %}</p>
{{ game.state.secret.deal }}
{% with s=game.state %}{{ s }}{% endwith %}
{{ view.public|json_script:"state" }}"""
    reads = template_reads(template, "templates/games/peek.html")
    assert [r.line for r in reads] == [2, 3]
