"""A 猫有n条命 game run through games.services with a fixed deal and named players (fixtures
`nl_players`, `nl_gm`, `start_ninelives` in tests/conftest.py), and the msgids the
presentation uses (code and template), read the way Django's makemessages would.

The tests read `game.state` (the truth) only to decide what to play and what must not leak;
every check of what a player sees goes through a message, an announcement or a page.
"""

from __future__ import annotations

import ast
import datetime as dt
import random
import re
from pathlib import Path

from games import services
from games.engine.prose import prose
from games.models import Game
from messaging.models import Message, Thread
from tests.engine.ninelives.deals import FIVE, SIX
from tests.factories import ROOT, fresh, user_of

DURATIONS = {"night": 24 * 60, "day": 24 * 60, "runoff": 12 * 60}
NAMES = ["阿猫", "阿狗", "小白", "老黑", "花花", "大黄"]
# A kill statement of real sentences, at least the 100 characters §3.5.2 asks (games/engine/prose.py).
MANIFESTO = prose(random.Random("factories"), 120)

PRESENTER = ROOT / "games" / "presenters" / "ninelives.py"
PANEL = ROOT / "templates" / "games" / "panels" / "ninelives.html"
ENGINE = ROOT / "games" / "engine" / "ninelives"


def python_msgids(path: Path = PRESENTER) -> set[tuple[str | None, str]]:
    """(context, msgid) of every `_("...")`, `gettext_noop("...")` (the table of the engine's
    sentences) and `pgettext("ctx", "...")` call of a module."""
    ids = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", None)
        args = node.args
        if not all(isinstance(a, ast.Constant) for a in args):
            continue
        if name in ("_", "gettext_noop") and len(args) == 1:
            ids.add((None, args[0].value))
        elif name == "pgettext" and len(args) == 2:
            ids.add((args[0].value, args[1].value))
    return ids


def template_msgids(path: Path = PANEL) -> set[tuple[str | None, str]]:
    """(context, msgid) of every constant translation in a template."""
    from django.utils.translation.template import templatize

    text = templatize(path.read_text())
    ids = set()
    for m in re.finditer(r"pgettext\(u?('(?:[^'\\]|\\.)*'), u?('(?:[^'\\]|\\.)*')\)", text):
        ids.add((ast.literal_eval(m.group(1)), ast.literal_eval(m.group(2))))
    for m in re.finditer(r"(?<!p)gettext\(u?('(?:[^'\\]|\\.)*')\)", text):
        ids.add((None, ast.literal_eval(m.group(1))))
    return ids


def refusal_codes() -> set[str]:
    """The code of every Refusal the engine can return (every module of the rule set)."""
    codes = set()
    for path in ENGINE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Refusal"
                    and node.args and isinstance(node.args[0], ast.Constant)):
                codes.add(node.args[0].value)
    return codes


def engine_event_kinds() -> set[str]:
    """Every event kind the engine declares (games/engine/ninelives/kinds.py, its schema):
    the played games of tests/engine/test_event_fields.py hold the engine to emitting only
    declared kinds, and to emitting every one of them."""
    from games.engine import registry

    return set(registry.get("ninelives").schema.events)


def ninelives_entries(catalog) -> list:
    """The catalogue's entries used by the presenter or the panel (by their locations)."""
    ours = (str(PRESENTER.relative_to(ROOT)), str(PANEL.relative_to(ROOT)))
    return [m for m in catalog if m.id and any(f in ours for f, _line in m.locations)]


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"%\(\w+\)[sd]", text))


CJK = re.compile(r"[\u4e00-\u9fff]")


def is_chinese_sentence(text: str) -> bool:
    """Mostly Chinese: CJK characters, and no English word of 4+ letters other than card
    codes (SNIPER...) and the seat's own names."""
    if not CJK.search(text):
        return False
    words = re.findall(r"\b[a-z]{4,}\b", text)
    return not words


# --- driving a game through the services --------------------------------------------------

def start(nl_players, nl_gm, *, deal: dict = FIVE, now: dt.datetime | None = None) -> Game:
    """A running game dealt `deal` (seat i = NAMES[i]), started `now` (default: the real
    clock, so that pages post before the deadlines)."""
    players = deal["players"]
    g = services.create_game(name="九命局", ruleset="ninelives", gm=nl_gm,
                             seat_count=players, config={"players": players, "deal": deal},
                             durations=dict(DURATIONS))
    return services.start_game(game_id=g.pk, users=nl_players[:players], seed="nl-web", now=now)


def act(game: Game, number: int, kind: str, now: dt.datetime | None = None, **params):
    """Seat `number` submits a step through the service, well before the deadline."""
    game = fresh(game)
    when = now or game.current_phase.started_at + dt.timedelta(minutes=1)
    return services.submit_action(game_id=game.pk, user=user_of(game, number), kind=kind,
                                  params=params, now=when)


def conversation(game: Game, number: int) -> str:
    """Every message 神的使者 and the seat exchanged in the seat's conversation, in order."""
    seat = game.seats.get(number=number)
    return "\n".join(Message.objects.filter(conversation=seat.conversation)
                     .order_by("created_at", "id").values_list("body", flat=True))


def announcements(game: Game) -> list[str]:
    thread = Thread.objects.get(board=game.board, key="announcements")
    return list(thread.posts.order_by("id").values_list("body", flat=True))


def default_orders(deal: dict) -> dict[int, list[str]]:
    """For each non-free-agent seat: its hand with the first card of its camp moved last."""
    from games.engine.ninelives.cards import camp_of

    orders = {}
    for seat, entry in enumerate(deal["seats"]):
        if entry["camp"] == "free_agent":
            continue
        core = next(c for c in entry["cards"] if camp_of(c) == entry["camp"])
        orders[seat] = [c for c in entry["cards"] if c != core] + [core]
    return orders


__all__ = ["FIVE", "SIX", "MANIFESTO", "fresh", "user_of", "act", "conversation",
           "announcements", "default_orders"]
