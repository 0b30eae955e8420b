"""Engine events and choices as sentences and form labels for people, in the reader's language
(announcements, 神的使者's messages, timelines, the action form).

The engine speaks in event kinds and data. Each rule set's presenter is an instance of
`Presenter` (games/presenters/interface.py: every method and table a presenter provides,
with the defaults a rule set may leave alone), named in the rule-set table
(games/rulesets.py), which hands it here with `register` (this package never imports the
table). The functions below take a rule set's name and call its presenter: where the
presenter answers None for one event (a GM's log entry, a kind it leaves alone) the generic
text of games/presenters/base.py is used. A rule set that was never registered is an error
(KeyError), never silently generic text.
"""

from __future__ import annotations

import logging
import re

from django.utils.translation import get_language, pgettext
from django.utils.translation import gettext as _

from messaging.words import words_as_text

from ..engine import reasons as engine_reasons
from .base import (
    SEAT_KEYS,
    VoteTally,
    generic_label,
    generic_text,
    listing,
    row_text,
    seat_name,
    who,
)
from .interface import Presenter
from .reasons import GM_REASONS

__all__ = ["SEAT_KEYS", "VoteTally", "announce_at_once", "because_chain", "because_text", "choice_label", "describe", "explanation", "field_label", "listing",
           "outcome_text", "reason_types", "result_lines", "param_label", "phase_end_title", "picker_entry", "phase_label", "phase_name", "phase_names", "phase_summary", "phase_step_title", "phase_title", "round_of", "plain_text", "review_facts", "review_intro", "review_secret", "refusal_text", "ruleset_name", "seat_camp",
           "round_thread_kinds", "round_thread_title", "seat_facts", "seat_name", "tally_line", "tally_markdown", "told_privately", "vote_heading", "vote_tallies", "who"]


_CJK = re.compile(r"[\u4e00-\u9fff]")
log = logging.getLogger(__name__)
# Shapes of engine sentences already logged as untranslated (one warning each per process).
_UNTRANSLATED: set[tuple[str, str]] = set()


# Each registered rule set's presenter and title (lazily translated), by name.
_REGISTERED: dict[str, tuple[Presenter, str]] = {}


def register(name: str, presenter: Presenter, title: str) -> None:
    """Called by games.rulesets.register for each entry of the rule-set table."""
    if name in _REGISTERED:
        raise ValueError(f"rule set {name!r} already has a presenter")
    _REGISTERED[name] = (presenter, title)


def unregister(name: str) -> None:
    del _REGISTERED[name]


def _presenter(ruleset: str) -> Presenter:
    return _REGISTERED[ruleset][0]


def ruleset_name(name: str) -> str:
    """The rule set's title in the reader's language."""
    return str(_REGISTERED[name][1])


def choice_label(ruleset: str, choice, names: dict[int, str]) -> str:
    """How the action form offers `choice` (a games.engine.base.Choice)."""
    return _presenter(ruleset).label(choice, names) or generic_label(choice, names)


def param_label(ruleset: str, key: str, value, names: dict[int, str]) -> str:
    """One value of a step's parameter as a picker shows it: a seat as "3 · 阿狗" (1-based),
    a card or camp by the rule set's `param_label(key, value)`, else the value."""
    if key in SEAT_KEYS and isinstance(value, int) and not isinstance(value, bool):
        return f"{value + 1} · {names[value]}" if names.get(value) else str(value + 1)
    text = _presenter(ruleset).param_label(key, value)
    if text:
        return text
    if isinstance(value, list):
        return " → ".join(str(v) for v in value)
    return str(value)


def picker_entry(ruleset: str, key: str, value, names: dict[int, str], choices=()) -> str:
    """One entry of the act form's picker for `key` (a card, a virtual player): the rule
    set's `pick_label(key, value, choices)` (it may add what the offered
    `choices` say of that value, e.g. the card a virtual player shows), else `param_label`."""
    text = _presenter(ruleset).pick_label(key, value, choices)
    return text or param_label(ruleset, key, value, names)


def field_label(name: str) -> str:
    """The action form's label for a free text or list field a Choice asks for."""
    labels = {
        "cards": _("Another order (optional): the first card is lost first, the core card "
                   "of the option above goes last; separate with commas"),
        "manifesto": _("Manifesto"),
        "story": _("Story"),
        "text": _("Text"),
        "reason": _("Reason"),
        "target": _("Target"),
        "pact": _("The death pact's bandit"),
        "card": _("Card"),
        "virtual": _("Virtual player"),
    }
    return str(labels.get(name, name))


def describe(ruleset: str, event: dict, names: dict[int, str]) -> str:
    """One readable sentence (Markdown allowed) for `event`."""
    return _presenter(ruleset).present(event, names) or generic_text(event, names)


def refusal_text(ruleset: str, refusal) -> str:
    """A refusal (games.engine.base.Refusal: a reason code and its arguments) in the reader's
    language: the rule set's `refusal(refusal)`, else its code rendered from the rule set's
    reasons table, else a general refusal."""
    text = _presenter(ruleset).refusal(refusal)
    if text:
        return text
    table = _presenter(ruleset).REASONS
    if table is not None and refusal.code in table:
        rendered = table.render({"code": refusal.code, "args": dict(refusal.params)}, {})
        if rendered:
            return rendered
    return _("The rules do not allow that now.")


def seat_facts(ruleset: str, view: dict, number: int) -> str:
    """Public facts about one seat for the game's home page (e.g. camps of lost cards), read
    from the viewer's view only; empty when the rule set has nothing to add."""
    if not view:
        return ""
    return _presenter(ruleset).seat_facts(view, number) or ""


def outcome_text(ruleset: str, outcome: dict | None, names: dict[int, str],
                 view: dict | None = None) -> str:
    """A finished game's result in the reader's language (the game home, the review, the
    archive, the profile):
    1. a game the GM aborted: "ended without a result" and the GM's reason (their own words);
    2. the rule set's `outcome(outcome, names, view)`;
    3. else the engine's reason for the result (`outcome["reason"]`) rendered from the rule
       set's reasons table."""
    if not outcome:
        return ""
    if outcome.get("result") == "aborted":
        reason = str(outcome.get("note") or "")
        # The GM's own words are shown to readers of their language (Chinese words, or any
        # on English pages).
        english = (get_language() or "").startswith("en")
        if not reason and outcome.get("reason"):
            # the engine's own record of the abort (the GM's step in the rules)
            return because_text(ruleset, outcome["reason"], names)
        if not reason or not (english or _CJK.search(reason)):
            return _("The game ended without a result.")
        return _("The game ended without a result: %(reason)s") % {"reason": reason}
    if ruleset in _REGISTERED:
        text = _presenter(ruleset).outcome(outcome, names, view)
        if text:
            return text
    reason = outcome.get("reason")
    return because_text(ruleset, reason, names) if reason else ""


def result_lines(ruleset: str, outcome: dict, names: dict[int, str],
                 view: dict | None = None) -> list[str]:
    """The lines of the game-over announcement that give the result: the rule set's own
    wording (which names the winners), else the engine's reason and the winners."""
    own = _presenter(ruleset).outcome(outcome, names, view) if ruleset in _REGISTERED else None
    if own:
        return [own]
    winners = listing(names.get(w, str(w + 1)) for w in outcome.get("winners") or []) \
        or _("nobody")
    return [_("The game is over: %(summary)s") % {"summary": outcome_text(ruleset, outcome, names,
                                                                           view)},
            _("Winners: %(names)s") % {"names": winners}]


def review_facts(ruleset: str, private, number: int, names: dict[int, str]) -> list | None:
    """(label, text) rows of a seat's private part at the end, in the reader's language;
    None when the rule set has no `review_facts` (the review then lists the data itself)."""
    if not isinstance(private, dict):
        return None
    return _presenter(ruleset).review_facts(private, number, names)


def review_intro(ruleset: str) -> str:
    """The review page's opening sentence: what the game hid, in the rule set's own terms
    (its `review_intro`), else in general terms (no rule set's notion in another's review:
    a classic review speaks of no loss order)."""
    return _presenter(ruleset).review_intro() or _(
        "Everything the game hid is shown here: each seat's secrets, the GM's secrets, every "
        "private action and result. Each event says who saw it at the time and why it "
        "happened.")


def told_privately(event: dict, names: dict[int, str]) -> str:
    """The line that heads a private event where anyone reads it (the review's and the watch
    page's timeline): "私下告知1号阿猫：". The event's sentence speaks to its seats ("你的身份：
    警。"), as 神的使者 told them; headed so, it reads right to every reader. "" for a public or
    a GM-only event."""
    vis = event.get("visibility") or {}
    seats = vis.get("seats") or []
    if vis.get("public") or not seats:
        return ""
    return _("Told privately to %(seats)s:") % {"seats": listing(who(names, s) for s in seats)}


def review_secret(ruleset: str, secret, names: dict[int, str]) -> list | None:
    """(label, text) rows of the GM's secrets at the end, or None (see review_facts)."""
    if not isinstance(secret, dict):
        return None
    return _presenter(ruleset).review_secret(secret, names)


def seat_camp(ruleset: str, view: dict, number: int) -> str:
    """The camp a seat played, in the reader's language, read from the GM's view of a
    FINISHED game (the caller checks that); empty when the rule set has no camps (a
    presenter without `final_camp`)."""
    if not view:
        return ""
    return _presenter(ruleset).final_camp(view, number) or ""


def announce_at_once(ruleset: str) -> frozenset[str]:
    """Kinds of public events a player's step produces that go to the announcement thread at
    once (e.g. a flip in 谁偷了我的金币). Others wait for the end of the phase or stay on the
    game's timeline (a vote is shown in the vote thread instead)."""
    return frozenset(_presenter(ruleset).ANNOUNCE_AT_ONCE)


def phase_title(ruleset: str, name: str) -> str | None:
    """The rule set's own name for a phase, if its presenter gives one."""
    return _presenter(ruleset).phase_label(name)


def phase_name(ruleset: str, name: str, number: int, round: int | None = None) -> str:
    """THE name of one phase for people, the same on every page, email, message and title
    that names a phase: "第1夜", "第1天", "第1天的生死投票" (猫有n条命); "第1夜",
    "第1天 · 发言" (classic, whose phase number is its round); "第2轮 · 选牌" (gold, by its
    ROUND, never by its phase counter). The rule set's `phase_name(name, number, round)`,
    else "<phase> <number>".

    `round`: the round the phase belongs to, for a rule set whose phase numbers count every
    phase (gold); `round_of` reads it for the current phase, `phase_names` counts it for a
    game's phases. Callers never add the number themselves.
    """
    text = _presenter(ruleset).phase_name(name, number, round)
    return text or _("%(phase)s %(n)d") % {"phase": phase_label(name, ruleset), "n": number}


def round_of(ruleset: str, public: dict | None) -> int | None:
    """The round of the current phase, from the engine state's public part, for a rule set
    whose presenter has `round_of(public)` (gold); None for the others (their phase number
    is the round)."""
    return _presenter(ruleset).round_of(public or {})


def counts_rounds(ruleset: str) -> bool:
    """Whether the rule set's phase numbers count every phase, so that a stored phase's
    round is counted from the phases before it (`ROUND_OPENS`, gold); for the others a
    phase's name needs nothing but the phase."""
    return _presenter(ruleset).ROUND_OPENS is not None


def phase_names(ruleset: str, phases) -> list[str]:
    """The names (`phase_name`) of ALL of a game's phases, given in order from the first
    (objects with .name and .number: Phase rows). A rule set whose presenter names the phase
    that opens each round (`ROUND_OPENS`, gold's "pick") has its rounds counted from them."""
    opens = _presenter(ruleset).ROUND_OPENS
    out, rounds = [], 0
    for phase in phases:
        if opens is not None and phase.name == opens:
            rounds += 1
        out.append(phase_name(ruleset, phase.name, phase.number,
                              max(rounds, 1) if opens is not None else None))
    return out


def phase_label(name: str, ruleset: str | None = None) -> str:
    """A KIND of phase for people ("夜", "发言": the durations form), never one phase of a
    game (that is `phase_name`): the rule set's own, else a common one."""
    labels = {"night": _("Night"), "day": _("Day"), "runoff": _("Runoff vote"),
              "setup": _("Setup")}
    own = phase_title(ruleset, name) if ruleset else None
    return own or labels.get(name, name.replace("_", " ").capitalize())


def vote_tallies(ruleset: str, events: list[dict], names: dict[int, str]) -> list[VoteTally]:
    """The tallies of the votes in `events` (public engine events in order, each with its
    `phase_number`), as the rule set's presenter builds them; [] for a rule set without
    votes (its presenter has no `vote_tallies`)."""
    return _presenter(ruleset).vote_tallies(events, names)


def tally_line(row) -> str:
    """One candidate's line: "2号阿狗：3票（亲自投票：阿猫、老黑；委托投票：花花；诅咒 +1）"."""
    return row_text(row, _("%(seat)s: %(n)d votes"))


def tally_markdown(tally: VoteTally) -> str:
    """The tally as 神的使者's result post in the vote thread."""
    return tally.as_markdown(count_label=_("%(seat)s: %(n)d votes"),
                             none_label=_("No votes."))


def vote_heading(ruleset: str, phase) -> str:
    """A vote thread's heading: the rule set's `vote_heading(name, number)` ("第1天投票",
    "第1天 · 第1次生死投票"), else the phase's name and number."""
    text = _presenter(ruleset).vote_heading(phase.name, phase.number)
    return text or phase_name(ruleset, phase.name, phase.number)


def plain_text(text: str) -> str:
    """A presenter's text for a place that shows it as text (a timeline, an email): every
    player's-words block as a header line and indented words, no Markdown marker."""
    return words_as_text(text, _("Player's words"))


def round_thread_kinds(ruleset: str) -> frozenset[str]:
    """Public kinds that go to the round's record thread (see `round_thread_title`)."""
    return frozenset(_presenter(ruleset).ROUND_THREAD_KINDS)


def round_thread_title(ruleset: str, number: int) -> str:
    return (_presenter(ruleset).round_thread_title(number)
            or _("Round %(n)d") % {"n": number})


def phase_end_title(ruleset: str, name: str, number: int, public: dict | None,
                    names: dict[int, str]) -> str:
    """The title of the announcement that ends a phase: the rule set's `end_title` (with the
    round, not the phase's counter, and the seat concerned), else "<phase> <n> ends".
    `public` is the engine state's public part before the phase ended."""
    text = _presenter(ruleset).end_title(name, number, public or {}, names)
    return text or pgettext("title", "%(phase)s is over") % {
        "phase": phase_name(ruleset, name, number, round_of(ruleset, public))}


def phase_step_title(ruleset: str, name: str, number: int, public: dict | None,
                     names: dict[int, str]) -> str:
    """The title of an announcement a player's step makes at once."""
    text = _presenter(ruleset).step_title(name, number, public or {}, names)
    return text or phase_name(ruleset, name, number, round_of(ruleset, public))


def phase_summary(ruleset: str, name: str, number: int, events: list[dict],
                  names: dict[int, str]) -> str:
    """The line at the head of the announcement that ends a phase: what happened, in a few
    words, from the rule set's `phase_summary` ("" when it has none for this phase)."""
    return _presenter(ruleset).phase_summary(name, number, events, names) or ""


# --- the engine's explanations ------------------------------------------------------------

def because_text(ruleset: str, reason, names: dict[int, str]) -> str:
    """One reason of an event's `because` chain (games/engine/reasons.py: a code and its
    arguments) in the reader's language, from the rule set's `REASONS` table or the reasons
    every rule set shares (the GM's acts). A reason no table knows is shown as its code and
    logged once as a warning (the rule sets' conformance tests fail on it first); anything
    that is not a reason is shown as nothing."""
    if not engine_reasons.is_reason(reason):
        return ""
    table = _presenter(ruleset).REASONS
    text = (table.render(reason, names) if table is not None else None) \
        or GM_REASONS.render(reason, names)
    if text is not None:
        return text
    shape = (ruleset, reason["code"])
    if shape not in _UNTRANSLATED:
        _UNTRANSLATED.add(shape)
        log.warning("no sentence for the %s engine's reason %r", ruleset, reason["code"])
    return str(reason["code"])


def reason_types(ruleset: str, code: str) -> dict[str, str]:
    """The declared argument types of a reason code ({} for a code no table knows)."""
    table = _presenter(ruleset).REASONS
    if table is not None and code in table.reasons:
        return table.reasons.table[code]
    return GM_REASONS.reasons.table.get(code, {})


def because_chain(ruleset: str, event: dict, names: dict[int, str]) -> list[str]:
    """The event's `because` chain, sentence by sentence, in the reader's language."""
    return [text for text in (because_text(ruleset, b, names)
                              for b in event.get("because") or []) if text]


def explanation(ruleset: str, event: dict, text: str, names: dict[int, str]) -> list[str]:
    """The chain to show under the event's sentence `text` (a timeline, the console): the
    translated chain, or nothing when `text` already holds every sentence of it (a GM note
    that is its chain, in any language)."""
    chain = because_chain(ruleset, event, names)
    return [] if all(b in text for b in chain) else chain
