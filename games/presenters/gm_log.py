"""The GM's own log entries (services.kernel.log_gm: kind "gm_<what>") as sentences in the
reader's language: "演示天神 开放了报名。", "演示天神 抽签决定了玩家（种子 …）。". The console's event
log and the post-game review's timeline both name a GM's step this way, never by its key.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from . import phase_label
from .base import who


def kind_title(kind: str) -> str:
    """The heading of a GM step's form."""
    titles = {
        "foul_out": _("Foul a seat out"),
        "reject_manifesto": _("Reject a manifesto"),
        "choose_camp_for": _("Set a seat's default camp"),
        "abort": _("End the game without a result"),
    }
    return str(titles.get(kind, _("Another GM step")))


def gm_log_text(event: dict, names: dict[int, str], ruleset: str | None = None) -> str | None:
    """A GM's own log entry (services.kernel.log_gm: kind "gm_<what>") as a sentence, or
    None for an entry that is not one. `ruleset` names a phase run inside another (the
    end of a phase with Classic's extra check) as the rule set does."""
    kind = event.get("kind", "")
    if not kind.startswith("gm_"):
        return None
    data = event.get("data") or {}
    what = kind[3:]
    # services.kernel.log_gm writes "system" for an act nobody signed (a task's)
    by = data.get("gm") if data.get("gm") not in (None, "", "system") else _("the GM")
    seat = data.get("seat")
    seat_text = who(names, seat) if isinstance(seat, int) and not isinstance(seat, bool) else ""
    texts = {
        "open_signups": _("%(by)s opened sign-ups."),
        "draw_players": (
            _("%(by)s drew the players by lot (seed %(seed)s).")
            if data.get("seed")
            else _("%(by)s drew the players by lot.")
        ),
        "pick_players": _("%(by)s picked the players."),
        "pause": _("%(by)s paused the game."),
        "resume": _("%(by)s resumed the game."),
        "abort": _("%(by)s aborted the game."),
        "end_phase_now": _("%(by)s ended the phase before its deadline."),
        "extend_deadline": _("%(by)s extended the deadline by %(minutes)s minutes."),
        "publish_announcement": _("%(by)s published a held announcement."),
        "start_substitution": _("%(by)s started a replacement for seat %(seat)s."),
        "cancel_substitution": _("%(by)s cancelled a replacement."),
        "foul_out": _("%(by)s fouled out seat %(seat)s."),
        "reject_manifesto": _("%(by)s rejected the manifesto of seat %(seat)s."),
        "approve_manifesto": _("%(by)s approved the manifesto of seat %(seat)s."),
        "choose_camp_for": _("%(by)s set a default camp for seat %(seat)s."),
        "add_co_gm": _("%(by)s named a co-GM."),
        "watcher_approved": _("%(by)s let an outsider watch the game."),
        "watcher_refused": _("%(by)s turned down an outsider's request to watch."),
        "rollback": (
            _("%(by)s took back the last step of %(seat)s.")
            if seat_text
            else _("%(by)s rolled back the end of a phase.")
        ),
    }
    inner = data.get("inner")
    if what == "end_phase_now" and inner in ("wait", "skip", "running"):
        text = {
            "wait": _("%(by)s closed the phase's choices before its deadline: %(inner)s "
                      "began and goes on until the deadline."),
            "skip": _("%(by)s ended the phase before its deadline without waiting for "
                      "%(inner)s."),
            "running": _("%(by)s ended the phase before its deadline, %(inner)s with it."),
        }[inner]
    else:
        text = texts.get(what, _("%(by)s: %(what)s."))
    return str(text) % {
        "inner": _inner_name(str(data.get("phase") or ""), ruleset),
        "by": by,
        "minutes": data.get("minutes", "?"),
        "seat": seat_text,
        "seed": data.get("seed", ""),
        "what": kind_title(what),
    }


def _inner_name(phase: str, ruleset: str | None) -> str:
    """A phase run inside another (Classic's extra check) as the rule set names its kind."""
    if ruleset and phase:
        return phase_label(phase, ruleset)
    return _("what runs inside the phase")
