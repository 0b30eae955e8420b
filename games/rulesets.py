"""The rule-set table: everything the service knows about each rule set, in one place.

    name -> engine (games/engine/<name>/), presenter (the `PRESENTER` of
            games/presenters/<name>.py, a games.presenters.interface.Presenter), the seat's
            panel template (templates/games/panels/<name>.html), a title, the rules page
            (docs/rules/<name>.md), the event kinds the engine declares it can emit and
            what its dead may write on the game's board (`DeadTalk`)

Imported by GamesConfig.ready(), so a broken import is a crash at start-up. The system check
in games/checks.py verifies every entry (the presenter implements the presenter interface
and has a sentence for every declared event kind, the panel template and the rules page
exist). `register` hands each presenter down to games.presenters, which never imports this
table. Tests and benchmarks add a rule set of their own
with `register(...)` and take it out again with `unregister(name)`; a process started by
them (a Celery worker, gunicorn) is given one by the EXTRA_RULESETS environment variable
("module:function" callables that call `register`, run by GamesConfig.ready()).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

from django.utils.translation import gettext_lazy as _

from . import presenters
from .engine import registry
from .engine.base import RuleSet
from .engine.classic.kinds import EVENT_KINDS as CLASSIC_KINDS
from .engine.classic.rules import Classic
from .engine.gold.kinds import EVENT_KINDS as GOLD_KINDS
from .engine.gold.rules import Gold
from .engine.ninelives.kinds import EVENT_KINDS as NINELIVES_KINDS
from .engine.ninelives.rules import NineLives
from .presenters.classic import PRESENTER as classic_presenter
from .presenters.gold import PRESENTER as gold_presenter
from .presenters.interface import Presenter
from .presenters.ninelives import PRESENTER as ninelives_presenter

DOCS = Path(__file__).resolve().parents[1] / "docs" / "rules"


@dataclass(frozen=True)
class DeadTalk:
    """What a dead seat may write on its game's board while the game runs (the GM board and
    the seat's conversation with 神的使者 are not the game's board). Every rule set declares
    one; games/services/ghosts.py applies it.

    replies: a dead seat may reply in a thread, at most `Game.ghost_reply_max_chars`
             characters; False: no reply at all.
    threads: MOVE_TO_GM_BOARD, a dead seat's new thread is written, then moved to the game's
             GM board until the game ends; REFUSE, no new thread.
    """
    replies: bool
    threads: str

    MOVE_TO_GM_BOARD = "move_to_gm_board"
    REFUSE = "refuse"

    def __post_init__(self):
        if self.threads not in (self.MOVE_TO_GM_BOARD, self.REFUSE):
            raise ValueError(f"unknown dead-talk rule for threads: {self.threads!r}")


# Seed 002 §7.2: the dead may reply briefly; their new threads go to the GM board.
GHOST_POSTS = DeadTalk(replies=True, threads=DeadTalk.MOVE_TO_GM_BOARD)
# The dead have left the game and write nothing on its board (seed 001 §3.14).
SILENT = DeadTalk(replies=False, threads=DeadTalk.REFUSE)


@dataclass(frozen=True)
class RuleSetEntry:
    name: str
    engine: RuleSet
    presenter: Presenter  # games/presenters/interface.py
    panel: str           # template path of the seat's "my hand" panel
    title: str           # lazily translated
    rules_doc: Path
    event_kinds: tuple[str, ...]
    dead_talk: DeadTalk  # what a dead seat may write on the game's board
    summary: str = ""    # one line for the add-game form (lazily translated)
    phases: tuple[str, ...] = ()          # the engine's phase names, each with a duration
    presets: tuple[Preset, ...] = ()      # phase-length presets, the first is the default
    options: tuple[Option, ...] = ()      # the rule options a GM chooses at creation
    # Whether a seat's role stays what was dealt for the whole game (classic, gold): a
    # watcher's delay hides nothing then, so open watching by outsiders needs the GM's
    # explicit acceptance of the risk (games.services.watching).
    roles_fixed: bool = True


@dataclass(frozen=True)
class Preset:
    """Named phase lengths (minutes per phase name) with a change cut-off that fits them:
    the cut-off is always shorter than the shortest phase."""
    key: str
    label: str
    durations: dict
    cutoff: int
    # The add form's starting value of "end a phase as soon as everyone has acted": off for
    # the forum standard (seed 002 §5.7: the GM decides, after reviewing the manifestos).
    early_end: bool = True

    def __post_init__(self):
        if self.durations and self.cutoff >= min(self.durations.values()):
            raise ValueError(f"preset {self.key}: the cut-off must be shorter than every phase")


@dataclass(frozen=True)
class Option:
    """One rule option as a typed form field. kind: "bool", "choice" or "seat" (a seat
    number shown 1-based and stored 0-based; empty stores None). A choice's `values` are
    (value, label, config) triples: `config` is written into the game's config when chosen
    (so one choice may set several engine keys, e.g. the guardian mode)."""
    key: str
    label: str
    kind: str
    default: object = None
    values: tuple = ()
    help: str = ""

    def to_config(self, value) -> dict:
        if self.kind == "choice":
            for v, _label, config in self.values:
                if v == value:
                    return dict(config)
            raise ValueError(value)
        if self.kind == "seat":
            return {self.key: None if value in (None, "") else int(value) - 1}
        return {self.key: bool(value)}

    def from_config(self, config: dict):
        """The form value that the stored `config` corresponds to (the default if none)."""
        if self.kind == "choice":
            for v, _label, fragment in self.values:
                if all(config.get(k) == x for k, x in fragment.items()):
                    return v
            return self.default
        if self.kind == "seat":
            value = config.get(self.key)
            return None if value is None else value + 1
        return bool(config.get(self.key, self.default))


TABLE: dict[str, RuleSetEntry] = {}


def register(*, name: str, engine: type[RuleSet], presenter: Presenter, panel: str,
             title: str, rules_doc: Path, event_kinds: tuple[str, ...], dead_talk: DeadTalk,
             summary: str = "", phases: tuple[str, ...] = (), presets: tuple[Preset, ...] = (),
             options: tuple[Option, ...] = (), roles_fixed: bool = True) -> RuleSetEntry:
    """Add a rule set to the table (its engine to games.engine.registry, its presenter and
    title to games.presenters). `dead_talk` has no default: each rule set says what its dead
    may write."""
    if name in TABLE:
        raise ValueError(f"rule set {name!r} is already in the table")
    registry.register(name, engine)
    entry = RuleSetEntry(name=name, engine=registry.get(name), presenter=presenter,
                         panel=panel, title=title, rules_doc=rules_doc,
                         event_kinds=tuple(event_kinds), dead_talk=dead_talk, summary=summary,
                         phases=tuple(phases), presets=tuple(presets), options=tuple(options),
                         roles_fixed=roles_fixed)
    presenters.register(name, presenter, title)
    TABLE[name] = entry
    return entry


def unregister(name: str) -> None:
    """Take a rule set added by `register` out of the table again."""
    del TABLE[name]
    registry.unregister(name)
    presenters.unregister(name)


def register_extra(spec: str) -> None:
    """Run each "module:function" of a comma-separated list (EXTRA_RULESETS); each calls
    `register`. An unknown module or function is an error, not a skipped name."""
    for item in filter(None, (part.strip() for part in spec.split(","))):
        module, _sep, function = item.partition(":")
        getattr(importlib.import_module(module), function)()


def get(name: str) -> RuleSetEntry:
    """The entry of `name`. Raises KeyError for a name the table does not hold."""
    return TABLE[name]


def engine(name: str) -> RuleSet:
    return TABLE[name].engine


def names() -> list[str]:
    return list(TABLE)


def _presets(standard: dict, fast: dict, turbo: dict, cutoffs=(10, 5, 2)) -> tuple:
    return (Preset("standard", _("Forum standard"), standard, cutoffs[0], early_end=False),
            Preset("fast", _("Fast"), fast, cutoffs[1]),
            Preset("turbo", _("Turbo"), turbo, cutoffs[2]))


register(name="ninelives", engine=NineLives, presenter=ninelives_presenter,
         panel="games/panels/ninelives.html", title=_("Nine Lives (猫有n条命)"),
         rules_doc=DOCS / "ninelives.md", event_kinds=NINELIVES_KINDS,
         dead_talk=GHOST_POSTS,  # seed 002 §7.2
         # hands shrink as cards are lost, and what a seat still holds is the secret
         roles_fixed=False,
         summary=_("Cards and lives: killers, wolves and civilians; a day vote and a runoff."),
         phases=("night", "day", "runoff"),
         # seed 002 §5: night 24 h, day 24 h, the runoff extends the day by 24 h
         presets=_presets({"night": 1440, "day": 1440, "runoff": 1440},
                          {"night": 60, "day": 60, "runoff": 30},
                          {"night": 10, "day": 10, "runoff": 5}))
register(name="classic", engine=Classic, presenter=classic_presenter,
         panel="games/panels/classic.html", title=_("Classic killing game"),
         rules_doc=DOCS / "classic.md", event_kinds=CLASSIC_KINDS,
         # seed 001 §3.14: after their last words (left through the action page during the
         # last-words phase, published by the service) the dead leave the game
         dead_talk=SILENT,
         summary=_("Police against bandits among civilians; optional 2.0 variants."),
         phases=("night", "extra_check", "last_words", "speech", "tie_speech", "vote",
                 "tie_vote"),
         # docs/rules/classic.md "Setting up a game"
         presets=_presets({"night": 1440, "extra_check": 240, "last_words": 360, "speech": 120,
                           "tie_speech": 120, "vote": 60, "tie_vote": 60},
                          {"night": 60, "extra_check": 15, "last_words": 15, "speech": 10,
                           "tie_speech": 10, "vote": 10, "tie_vote": 10},
                          {"night": 10, "extra_check": 5, "last_words": 5, "speech": 3,
                           "tie_speech": 3, "vote": 3, "tie_vote": 3}, cutoffs=(10, 3, 1)),
         options=(
             Option("variant_ghost_poison", _("Ghost bandit and poison (2.0)"), "bool", False),
             Option("guardians", _("Guardians (2.0)"), "choice", "none", values=(
                 ("none", _("No guardian"), {"guardian": False, "dual_guardians": False}),
                 ("single", _("One guardian, free stance"),
                  {"guardian": True, "dual_guardians": False}),
                 ("dual", _("A police and a bandit guardian"),
                  {"guardian": False, "dual_guardians": True}))),
             Option("all_civilians_dead", _("When every civilian is dead"), "choice", "seed",
                    values=(("seed", _("Each rule text's own rule"), {"all_civilians_dead": "seed"}),
                            ("draw", _("A draw"), {"all_civilians_dead": "draw"}),
                            ("bandit", _("The bandits win"), {"all_civilians_dead": "bandit"}))),
         ))
register(name="gold", engine=Gold, presenter=gold_presenter,
         panel="games/panels/gold.html", title=_("Who Stole My Gold"),
         rules_doc=DOCS / "gold.md", event_kinds=GOLD_KINDS,
         # seed 000: nobody dies (every seat plays every round); a seat that were ever out
         # would have left the game, as in Classic
         dead_talk=SILENT,
         summary=_("A card game of coins: killers, assassins and thieves over several rounds."),
         phases=("pick", "priority", "operation"),
         # docs/rules/gold.md "One phase, one deadline"
         presets=_presets({"pick": 1440, "priority": 360, "operation": 360},
                          {"pick": 60, "priority": 15, "operation": 15},
                          {"pick": 10, "priority": 5, "operation": 5}),
         options=(Option("lead", _("First lead (seat number; empty: by lot)"), "seat", None),))
