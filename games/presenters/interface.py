"""The presenter interface: what every rule set's presenter provides, in one class.

Each rule set's presenter module (classic.py, gold.py, ninelives.py) ends with a subclass of
`Presenter` that declares its own functions as the methods it overrides; the rule-set table
(games/rulesets.py) holds one instance per rule set and hands it to this package
(`games.presenters.register`). The machinery in games/presenters/__init__.py calls the
methods directly: a method a rule set leaves alone answers with the default here (None: the
generic text of base.py; an empty table), so a rule set without votes has no tallies and one
whose phase number is its round has no `round_of`.

The system check (games/checks.py, games.E006) runs `problems(presenter)` on every
registered rule set at start-up: every member of the interface is there, a method callable
with the interface's arguments, a table of its kind; and its class declares nothing the
interface does not know (a misspelt method would otherwise be a silent default).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping

from .reasons import ReasonTexts


class Presenter:
    """Engine events and choices of one rule set as text in the reader's language.

    `names` maps a 0-based seat to its player's display name; every sentence numbers seats
    from 1. A method returning None leaves that one case to the generic text.
    """

    # --- tables ---------------------------------------------------------------------------
    # kind -> sentence writer, one per event kind the engine declares (games.E002)
    EVENTS: Mapping[str, Callable] = {}
    # public kinds a player's step announces at once (a flip in 谁偷了我的金币)
    ANNOUNCE_AT_ONCE: frozenset[str] = frozenset()
    # public kinds posted in the round's record thread instead of an announcement
    ROUND_THREAD_KINDS: frozenset[str] = frozenset()
    # the phase that opens each round, for a rule set whose phase numbers count every
    # phase (gold); None: the phase number is the round
    ROUND_OPENS: str | None = None
    # the rule set's reason codes as sentences (games/presenters/reasons.py); None: a rule
    # set whose engine gives no reasons (a test's toy)
    REASONS: ReasonTexts | None = None

    # --- events, choices, refusals ------------------------------------------------------------
    def present(self, event: dict, names: dict[int, str]) -> str | None:
        """An event, or the confirmation of a step (`kind` the step's, `data` its params)."""
        return None

    def label(self, choice, names: dict[int, str]) -> str | None:
        """How the action form offers a `Choice`."""
        return None

    def param_label(self, key: str, value) -> str | None:
        """One value of a step's parameter (a card, a camp) as a picker shows it."""
        return None

    def pick_label(self, key: str, value, choices) -> str | None:
        """One entry of the act form's picker, with what the offered `choices` say of it."""
        return None

    def refusal(self, refusal) -> str | None:
        """A `Refusal` as a sentence for the player."""
        return None

    # --- seats and results ------------------------------------------------------------------
    def seat_facts(self, view: dict, number: int) -> str:
        """Public facts of a seat for the game's home page, from the viewer's view."""
        return ""

    def final_camp(self, view: dict, number: int) -> str:
        """The camp a seat played, from the GM's view of a finished game ("": no camps)."""
        return ""

    def outcome(self, outcome: dict, names: dict[int, str], view: dict | None) -> str | None:
        """A finished game's result (Game.outcome: result, winners, summary)."""
        return None

    def review_facts(
        self, private: dict, number: int, names: dict[int, str]
    ) -> list[tuple[str, str]] | None:
        """(label, text) rows of a seat's private part at the end; None: the data itself."""
        return None

    def review_secret(self, secret: dict, names: dict[int, str]) -> list[tuple[str, str]] | None:
        """(label, text) rows of the GM's secrets at the end; None: the data itself."""
        return None

    def review_intro(self) -> str | None:
        """The review page's opening: what the game hid, in the rule set's own terms (a
        猫有n条命 loss order, a classic ghost); None: the general sentence."""
        return None

    # --- phases, rounds, votes ------------------------------------------------------------------
    def phase_label(self, name: str) -> str | None:
        """The rule set's name for a KIND of phase ("夜", "发言")."""
        return None

    def phase_name(self, name: str, number: int, round: int | None) -> str | None:
        """THE name of one phase ("第1夜", "第2轮 · 选牌")."""
        return None

    def round_of(self, public: dict) -> int | None:
        """The current phase's round, for a rule set whose phase numbers count every phase."""
        return None

    def vote_tallies(self, events: list[dict], names: dict[int, str]) -> list:
        """Its votes' tallies (base.VoteTally) from public events; [] without votes."""
        return []

    def vote_heading(self, name: str, number: int) -> str | None:
        """A vote thread's heading ("第1天 · 第1次生死投票")."""
        return None

    def round_thread_title(self, number: int) -> str | None:
        """The title of the round's record thread (see ROUND_THREAD_KINDS)."""
        return None

    def phase_summary(
        self, name: str, number: int, events: list[dict], names: dict[int, str]
    ) -> str | None:
        """The line heading a phase-end announcement."""
        return None

    def end_title(self, name: str, number: int, public: dict, names: dict[int, str]) -> str | None:
        """The title of the announcement that ends a phase, from the public state."""
        return None

    def step_title(self, name: str, number: int, public: dict, names: dict[int, str]) -> str | None:
        """The title of an announcement a player's step makes at once."""
        return None


TABLES = {
    "EVENTS": Mapping,
    "ANNOUNCE_AT_ONCE": frozenset,
    "ROUND_THREAD_KINDS": frozenset,
    "ROUND_OPENS": (str, type(None)),
    "REASONS": (ReasonTexts, type(None)),
}
METHODS = tuple(
    name
    for name, member in vars(Presenter).items()
    if inspect.isfunction(member) and not name.startswith("_")
)
MEMBERS = frozenset(TABLES) | frozenset(METHODS)


def _arity(name: str) -> int:
    """How many arguments the interface passes to method `name` (self excluded)."""
    return len(inspect.signature(getattr(Presenter, name)).parameters) - 1


def problems(presenter) -> list[str]:
    """What `presenter` lacks or gets wrong against the interface, one sentence each ([]:
    it implements every member)."""
    found = []
    for name, kind in TABLES.items():
        if not hasattr(presenter, name):
            found.append(f"has no {name}")
        elif not isinstance(getattr(presenter, name), kind):
            found.append(f"{name} is not a {getattr(kind, '__name__', 'str or None')}")
    for name in METHODS:
        method = getattr(presenter, name, None)
        if method is None:
            found.append(f"has no method {name}")
        elif not callable(method):
            found.append(f"{name} is not callable")
        else:
            try:
                inspect.signature(method).bind(*[None] * _arity(name))
            except TypeError:
                found.append(f"{name} does not take the interface's {_arity(name)} arguments")
            except ValueError:  # a builtin without a signature: taken on trust
                pass
    for klass in type(presenter).__mro__:
        if klass in (Presenter, object):
            continue
        found += [
            f"{klass.__name__}.{name} is not part of the presenter interface"
            for name in vars(klass)
            if not name.startswith("_") and name not in MEMBERS
        ]
    return found
