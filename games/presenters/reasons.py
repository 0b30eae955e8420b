"""Reasons in the reader's language: a rule set's reason codes (games/engine/reasons.py)
rendered through the gettext catalogue.

A presenter declares one `ReasonTexts`: for each code of its engine's table one msgid, the
English sentence with a named placeholder per argument,

    TEXTS = ReasonTexts(engine_reasons.R, {
        "attacked": gettext_noop("%(seat)s was attacked during %(phase)s (%(ref)s)."),
    }, renderers={CARD: card_name, PHASE: phase_text, WORD: word_text})

and `render(reason, names)` fills the msgid's translation with each argument in the
reader's words, chosen by the argument's declared type: a seat "3号阿狗", a list of seats
"3号阿狗、5号老黑", sections "§3.5.2、§8.1", a number or a person's words as they are; cards,
camps, phases and the rule set's own words by the presenter's renderers. The conformance
test (tests/presenters/test_reasons.py) checks that every code has a msgid, that the msgid's
placeholders are the code's arguments, and that the Chinese catalogue translates it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from ..engine import reasons as engine_reasons
from ..engine.reasons import GM_REASONS as GM_CODES
from ..engine.reasons import NUMBER, SEAT, SEATS, SECTIONS, TEXT, WORD, Reasons
from .base import listing, who

Renderer = Callable[..., str]

PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def sections_text(refs, names=None) -> str:
    """Rule sections the reader's way: "§3.5.2、§8.1"."""
    return listing(f"§{r}" for r in refs)


DEFAULT_RENDERERS: dict[str, Renderer] = {
    SEAT: lambda v, names: who(names, v),
    SEATS: lambda v, names: listing(who(names, s) for s in v),
    SECTIONS: sections_text,
    NUMBER: lambda v, names: str(v),
    TEXT: lambda v, names: str(v),
}


class ReasonTexts:
    """A rule set's reason codes as msgids, and the renderers of its argument types.

    `renderers` maps an argument type to `f(value, names) -> str`; a type without one of its
    own uses DEFAULT_RENDERERS."""

    def __init__(self, reasons: Reasons, msgids: Mapping[str, str], *,
                 renderers: Mapping[str, Renderer] | None = None):
        self.reasons = reasons
        self.msgids = dict(msgids)
        self.renderers = {**DEFAULT_RENDERERS, **(renderers or {})}

    def __contains__(self, code: str) -> bool:
        return code in self.msgids

    def render(self, reason: dict, names: dict[int, str]) -> str | None:
        """The reason in the active language, or None when its code is not this table's."""
        if not engine_reasons.is_reason(reason):
            return None
        code = reason["code"]
        msgid = self.msgids.get(code)
        declared = self.reasons.table.get(code)
        if msgid is None or declared is None:
            return None
        values = {}
        for name, kind in declared.items():
            value = reason["args"].get(name)
            render = self.renderers.get(kind)
            values[name] = render(value, names) if render else str(value)
        return _(msgid) % values

    def problems(self) -> list[str]:
        """Codes without a msgid, msgids without a code, placeholders that are not the
        code's arguments, argument types without a renderer."""
        out = [f"{self.reasons.ruleset}: no msgid for {code!r}"
               for code in self.reasons.codes() if code not in self.msgids]
        out += [f"{self.reasons.ruleset}: msgid for unknown code {code!r}"
                for code in self.msgids if code not in self.reasons]
        for code, msgid in self.msgids.items():
            declared = self.reasons.table.get(code, {})
            used = set(PLACEHOLDER.findall(msgid))
            if code in self.reasons and used != set(declared):
                out.append(f"{self.reasons.ruleset} {code!r}: placeholders {sorted(used)}, "
                           f"arguments {sorted(declared)}")
        kinds = {k for args in self.reasons.table.values() for k in args.values()}
        out += [f"{self.reasons.ruleset}: no renderer for argument type {k!r}"
                for k in sorted(kinds) if k not in self.renderers]
        return out


# The GM's own acts in the event log, the same in every rule set.
GM_ACTS = {
    "open_signups": gettext_noop("opened the sign-ups"),
    "draw_players": gettext_noop("drew the players by lot"),
    "pick_players": gettext_noop("picked the players"),
    "start_substitution": gettext_noop("started a replacement"),
    "cancel_substitution": gettext_noop("cancelled a replacement"),
    "end_phase_now": gettext_noop("ended the phase before its deadline"),
    "extend_deadline": gettext_noop("extended the deadline"),
    "pause": gettext_noop("paused the game"),
    "resume": gettext_noop("resumed the game"),
    "abort": gettext_noop("ended the game without a result"),
    "rollback": gettext_noop("rolled the game back"),
    "publish_announcement": gettext_noop("published a held announcement"),
    "foul_out": gettext_noop("put a seat out of the game for a foul"),
    "reject_manifesto": gettext_noop("rejected a manifesto"),
    "choose_camp_for": gettext_noop("set a free agent's default camp"),
}


def _gm_act(value, names=None) -> str:
    return _(GM_ACTS[value]) if value in GM_ACTS else str(value).replace("_", " ")


GM_REASONS = ReasonTexts(GM_CODES, {"gm_action": gettext_noop("GM action: %(act)s")},
                         renderers={WORD: _gm_act})
