"""Labelled values of a game's settings and records, in the reader's language, for the
pages that show them as facts (the admin's settings page and record lists): the rule set's
title, each phase's length ("夜：10 分钟"), each rule option with its chosen value, the change
cut-off, why a phase ended, who may read an event. Never an engine key and never JSON: a
value no label knows is left out here (the superuser's raw view shows the data itself).
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from .. import rulesets
from . import listing, phase_label, who


def minutes_text(minutes) -> str:
    """A length in minutes: "2 小时" for whole hours, else "90 分钟" (fractions of a minute,
    used by demos and tests, as seconds)."""
    if isinstance(minutes, bool) or not isinstance(minutes, int | float):
        return "—"
    if minutes != int(minutes):
        return _("%(n)d s") % {"n": round(minutes * 60)}
    minutes = int(minutes)
    if minutes >= 60 and minutes % 60 == 0:
        return _("%(n)d h") % {"n": minutes // 60}
    return _("%(n)d min") % {"n": minutes}


def labelled(label, value) -> str:
    """One fact as "label: value" ("夜：10 分钟")."""
    return pgettext("label and value", "%(label)s: %(value)s") % {"label": label, "value": value}


def ruleset_title(name: str) -> str:
    """The rule set's title ("猫有n条命"), or its name if the table does not hold it."""
    return str(rulesets.get(name).title) if name in rulesets.names() else name


def duration_lines(ruleset: str, durations: dict) -> list[str]:
    """Each phase's length, in the rule set's order of phases: ["夜：10 分钟", …]; a phase
    without a length of its own takes a day (Game.minutes_for)."""
    phases = list(rulesets.get(ruleset).phases) if ruleset in rulesets.names() else []
    phases += [p for p in durations or {} if p not in phases]
    return [
        labelled(phase_label(p, ruleset), minutes_text((durations or {}).get(p, 24 * 60)))
        for p in phases
    ]


def cutoff_text(minutes: int) -> str:
    """The change cut-off: "截止前 2 分钟"."""
    return _("%(length)s before the deadline") % {"length": minutes_text(minutes)}


def option_lines(ruleset: str, config: dict, names: dict[int, str] | None = None) -> list[str]:
    """Each rule option the rule set declares with the value `config` holds:
    ["守护神（2.0）：警神和匪神各一", "鬼匪和毒药（2.0）：否", …]; the config's other keys (a
    fixed deal of a test, a key no option sets) are not options a GM chose."""
    if ruleset not in rulesets.names():
        return []
    out = []
    for option in rulesets.get(ruleset).options:
        value = option.from_config(config or {})
        if option.kind == "bool":
            text = _("yes") if value else _("no")
        elif option.kind == "choice":
            text = next((str(label) for v, label, _c in option.values if v == value), "—")
        elif value is None:
            text = "—"
        else:
            text = who(names or {}, value - 1) if names else _("seat %(n)d") % {"n": value}
        out.append(labelled(option.label, text))
    return out


def end_reason_label(reason: str) -> str:
    """Why a phase ended (Phase.end_reason), "" for a phase still open."""
    return str(
        {
            "deadline": _("at its deadline"),
            "early": _("early: everyone had acted"),
            "gm": _("ended by the GM"),
            "over": _("the game ended"),
        }.get(reason, reason)
    )


def audience_text(public: bool, seats: list[int], names: dict[int, str]) -> str:
    """Who may read an event: "公开", "仅天神", or the seats by number and name."""
    if public:
        return _("public")
    if not seats:
        return _("the GM only")
    return listing(who(names, s) for s in seats)


def result_label(result: str) -> str:
    """A game's result code (Game.outcome["result"], the archive's outcome filter) in words:
    "平民阵营获胜" for 猫有n条命's "civilian", "匪方获胜" for classic's "bandit", "平局" for any
    rule set's "draw"; a code no rule set writes is shown as it is."""
    labels = {
        "civilian": pgettext("result", "the civilian camp won"),
        "killer": pgettext("result", "the killer camp won"),
        "wolf": pgettext("result", "the wolf camp won"),
        "police": pgettext("result", "the police side won"),
        "bandit": pgettext("result", "the bandits won"),
        "draw": pgettext("result", "a draw"),
        "win": pgettext("result", "one player won"),
        "tie": pgettext("result", "a shared win"),
        "aborted": pgettext("result", "aborted"),
    }
    return str(labels.get(result, result))
