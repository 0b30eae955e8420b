"""谁偷了我的金币 through games.services (fixtures `gold_players`, `gold_gm`, `start_gold` in
tests/conftest.py): driving a game, the secrecy checks of a seat's page, engine-only random
play, and the msgids the gold pages use."""

from __future__ import annotations

import ast
import datetime as dt
import itertools
import random
import re
from pathlib import Path

from django.utils import timezone

from games import services
from games.engine.base import Refusal, action
from games.engine.gold.rules import CARD_NAMES_ZH, CARDS, Gold, judge
from games.models import Event, Game
from games.presenters import describe
from tests.factories import ROOT, fresh, user_of

PRESENTER = ROOT / "games" / "presenters" / "gold.py"
PANEL = ROOT / "templates" / "games" / "panels" / "gold.html"

T0 = dt.datetime(2025, 3, 1, 12, 0, tzinfo=dt.UTC)
DURATIONS = {"pick": 60, "priority": 30, "operation": 30}
NAMES = ["金子", "银子", "铜子"]
CARD_NAMES = tuple(CARD_NAMES_ZH.values())


# --- driving a game through games.services (Django needed from here on) -----------

def act(game: Game, number: int, kind: str, now: dt.datetime | None = None, **params):
    """Seat `number` submits a step through the service, just before the current deadline."""
    game = fresh(game)
    when = now or (game.deadline - dt.timedelta(minutes=20) if game.deadline else timezone.now())
    return services.submit_action(game_id=game.pk, user=user_of(game, number), kind=kind,
                                  params=params, now=when)


def after_deadline(game: Game) -> dt.datetime:
    """A moment when the sweeper must end the current phase (deadline + grace + 1 s)."""
    game = fresh(game)
    return game.deadline + services.grace() + dt.timedelta(seconds=1)


def picks_for(virtual: list[str], players: int, wanted) -> tuple[str, ...] | None:
    """The first combination of picks (in seat order) whose preliminary shares satisfy
    `wanted(shares)`, judged by the engine's own coin rule; None if there is none."""
    for picks in itertools.product(CARDS, repeat=players):
        result = judge(list(picks) + virtual)
        if wanted([result.per_card[c] for c in picks]):
            return picks
    return None


def seed_where(players: int, wanted) -> tuple[str, tuple[str, ...]]:
    """A seed whose first-round virtual cards allow picks satisfying `wanted(shares)`, and
    those picks. The table is read from the engine (what `start_game` will deal)."""
    for n in range(200):
        seed = f"gold-web-{n}"
        state = Gold().initial_state(seats=players, config={"lead": 0}, seed=seed).state
        picks = picks_for([v["shown"] for v in state["public"]["virtual"]], players, wanted)
        if picks:
            return seed, picks
    raise LookupError("no seed gives such a table")


def pick_all(game: Game, picks, now: dt.datetime | None = None) -> Game:
    for number, card in enumerate(picks):
        act(game, number, "pick", card=card, now=now)
    return fresh(game)


# --- what a seat's page must not show ------------------------------------------------------

def cover_cells(html: str) -> dict[str, tuple[str, str]]:
    """The panel's shown and face-down columns, by row (`seat-0`, `virtual-2`...)."""
    rows = re.findall(r'<tr data-(seat|virtual)="(\d+)"[^>]*>(.*?)</tr>', html, re.S)
    cells = {}
    for kind, index, body in rows:
        shown = re.search(r'<td class="shown">(.*?)</td>', body, re.S)
        cover = re.search(r'<td class="cover">(.*?)</td>', body, re.S)
        cells[f"{kind}-{index}"] = (shown.group(1), cover.group(1))
    return cells


def assert_hides_others(html: str, game: Game, number: int, names: dict[int, str]) -> int:
    """Check one page seat `number` sees; return how many hidden cards were checked.

    Precondition: `game` is fresh and `html` is unescaped.
    1. If the page holds the panel: a place with a face-down card that is neither this
       seat's own nor turned up shows "?" and no card; before the reveal no other seat's
       pick shows.
    2. No sentence of an event addressed only to other seats appears anywhere on the page.
    """
    pub = game.state["public"]
    checked = 0
    if 'id="gold-panel"' in html:
        cells = cover_cells(html)
        mine = game.state["private"][number].get("face_down") or {}
        places = [("seat", j, spot) for j, spot in enumerate(pub["table"])]
        places += [("virtual", v, spot) for v, spot in enumerate(pub["virtual"])]
        for kind, j, spot in places:
            shown, cover = cells[f"{kind}-{j}"]
            if kind == "seat" and spot is None and j != number:
                assert not any(c in shown for c in CARDS + CARD_NAMES), "a pick shows early"
            if not spot or not spot["covered"] or spot["cover"] is not None:
                continue
            if mine.get(kind) == j:
                continue  # its own face-down card: the seat may see it
            checked += 1
            assert "?" in cover and not any(c in cover for c in CARDS + CARD_NAMES), (
                number, kind, j, cover)
    for e in Event.objects.filter(game=game, public=False).exclude(audience=""):
        if f",{number}," not in e.audience:
            text = describe("gold", e.as_engine_event(), names)
            assert text not in html, f"seat {number + 1} sees '{text}'"
    return checked


def random_game(players: int, seed: int, *, miss: float = 0.2):
    """Play a whole game on the engine alone; return (every event, every Choice offered,
    the final state).

    1. Each seat the phase awaits acts with probability 1 - `miss`, choosing a random legal
       choice; the others let the deadline pass.
    2. The clock then ends the phase (defaults for the missed choices), until the end.
    """
    engine = Gold()
    rng = random.Random(seed)
    t = engine.initial_state(seats=players, config={"lead": None}, seed=f"web-{seed}")
    state, events, offered = t.state, list(t.events), []
    while not engine.phase(state).finished:
        for seat in sorted(engine.phase(state).awaiting):
            choices = engine.legal_actions(state, seat)
            offered += choices
            if rng.random() < miss:
                continue
            c = rng.choice(choices)
            result = engine.apply(state, action(seat, c.kind, **c.params))
            assert not isinstance(result, Refusal), result
            state, events = result.state, events + result.events
        t = engine.end_phase(state)
        state, events = t.state, events + t.events
    return events, offered, state


def python_msgids(path: Path = PRESENTER) -> set[str]:
    """Every string literal passed to `_()` or `gettext_noop()` (the table of the engine's
    reasons) in a Python module."""
    ids = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if (isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("_", "gettext_noop")
                and node.args and isinstance(node.args[0], ast.Constant)):
            ids.add(node.args[0].value)
    return ids


def template_msgids(path: Path = PANEL) -> set[str]:
    """Every constant msgid of a template, as Django's makemessages would extract it."""
    from django.utils.translation.template import templatize

    text = templatize(path.read_text())
    found = re.finditer(r"gettext\(u?('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\)", text)
    return {ast.literal_eval(m.group(1)) for m in found}


# Where gold's own entries come from (makemessages writes these as the entries' locations;
# the refusals' entries still name the engine, where their sentences used to be).
GOLD_SOURCES = ("games/presenters/gold.py", "templates/games/panels/gold.html",
                "games/engine/gold/")


def gold_entries(catalog) -> list:
    """The catalogue's entries used by the gold presenter, panel or engine (by location)."""
    return [m for m in catalog if m.id and any(
        f.startswith(GOLD_SOURCES) for f, _line in m.locations)]


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"%\(\w+\)[sd]|\{\w+\}", text))
