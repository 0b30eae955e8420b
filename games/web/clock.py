"""What the pages say when the game clock has stopped: the beat sweeper (games.sweep) has not
completed a sweep for READY_SWEEP_INTERVALS intervals (config/health.py reads its heartbeat,
the same reading `/readyz` makes).

1. The game's GM and co-GMs, on the game's page and in the 天神 console, are told while the
   game runs: how long ago the clock last checked the deadlines (or that nothing says it
   ever did: it never ran, or Redis, which keeps the record, cannot be reached), that a
   deadline that passes will not end its phase, and what to do.
2. Everyone else is told only that the deadline has passed and is being processed, once a
   running game's deadline has passed: nothing technical, nothing that depends on who asks.
3. While the clock runs nothing is shown.

The notice depends on the clock, not on the game's version, so it is never part of a kept
page part (games/web/pages.py `home_parts`) or of a page kept whole for anonymous readers: the game's
page writes it on every answer. The heartbeat is read once per call at most (a cache read,
never a query), and only when something could be shown (a running game, and a viewer who
runs it or a deadline that has passed).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.translation import gettext as _

from config import health

from ..models import Game
from ..reminders import time_left

TEMPLATE = "games/_clock_notice.html"


@dataclass(frozen=True)
class Notice:
    text: str
    for_gm: bool  # the GM's wording (what is wrong and what to do), else the neutral one


def gm_text(clock: health.Clock) -> str:
    """The GM's warning for a stopped `clock`: what is wrong, what it means, what to do."""
    if clock.age is None:  # none recorded, or unreadable: the page cannot tell which
        return _("The game clock has stopped: there is no record of it checking the "
                 "deadlines (it has not run, or Redis, which keeps the record, cannot be "
                 "reached), so a deadline that passes will not end its phase. Check that "
                 "Redis, the Celery worker and beat are running, and restart them through "
                 "their supervisor (docs/operations.md). Meanwhile you can end a phase by "
                 "hand in the console (“End phase now…”).")
    return _("The game clock has stopped: it last checked the deadlines %(ago)s ago, so a "
             "deadline that passes will not end its phase. Check that the Celery worker and "
             "beat are running, and restart them through their supervisor "
             "(docs/operations.md). Meanwhile you can end a phase by hand in the console "
             "(“End phase now…”).") % {"ago": time_left(dt.timedelta(seconds=clock.age))}


def notice(game: Game, *, runs: bool) -> Notice | None:
    """What the clock means for a viewer of `game` (None: nothing to say). `runs`: the viewer
    is the game's GM or a co-GM (`selectors.is_gm`, or the same facts read with the page's
    row). Reads `game.status` and `game.deadline` and, when something could be shown, the
    heartbeat once."""
    if game.status != Game.Status.RUNNING:
        return None
    due = game.deadline is not None and game.deadline <= timezone.now()
    if not (runs or due):
        return None
    clock = health.clock()
    if not clock.stopped:
        return None
    if runs:
        return Notice(gm_text(clock), for_gm=True)
    return Notice(_("The deadline has passed; the phase is being processed…"), for_gm=False)


def notice_html(game: Game, *, runs: bool) -> str:
    """`notice` as the game page shows it ("" when there is nothing to say)."""
    found = notice(game, runs=runs)
    return render_to_string(TEMPLATE, {"notice": found}) if found is not None else ""
