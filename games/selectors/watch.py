"""What a watcher sees (观战: games/web/watch.py): the game as it stood at the end of the
phase `Game.watch_delay` phases before the current one, through the engine's AUDIENCE view
(every seat's private part and every event some seat saw; never the GM's secret part nor a
GM-only event), and the steps taken up to that end.

The state at the end of a phase is the replay of the steps up to and including the step that
ended it (each step is stored with the phase it was taken in; the clock's `end_phase` with
the phase it closed). A past phase does not change, except by the GM's rollback, which
removes steps: the replayed state is kept under the phase and the last step it holds.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.cache import cache

from config.build import BUILD

from .. import rulesets
from ..engine.base import AUDIENCE, replay
from ..models import Action, Game, Phase

SECONDS = 3600


@dataclass(frozen=True)
class Watched:
    """The watch page's data: the last phase shown whole, the AUDIENCE view of the state at
    its end, and the steps taken up to it (oldest first)."""

    phase: Phase
    view: dict
    steps: list[Action]


def watched_phase(game: Game) -> Phase | None:
    """The last phase a watcher sees whole: the one `game.watch_delay` phases before the
    current one; None when there is none yet (the first phases of a game) or nobody watches
    this game (`watch_delay` 0). Precondition: `game` runs or is paused."""
    if not game.watch_delay or game.current_phase_id is None:
        return None
    return game.phases.filter(seq=game.current_phase.seq - game.watch_delay).first()


def watched(game: Game) -> Watched | None:
    """What a watcher of `game` sees now (the module's rule), or None before the first phase
    they may see has ended. Precondition: the caller has checked that the viewer watches."""
    phase = watched_phase(game)
    if phase is None:
        return None
    steps = list(Action.objects.filter(game=game, phase__seq__lte=phase.seq).order_by("seq"))
    key = ":".join(str(part) for part in (
        "watch-state", game.pk, phase.pk, phase.seq, len(steps),
        steps[-1].pk if steps else 0, BUILD))
    engine = rulesets.engine(game.ruleset)

    def state():
        return replay(engine, {"seats": game.seat_count, "config": game.config,
                               "seed": game.seed}, [a.as_step() for a in steps])

    return Watched(phase=phase, view=engine.view(cache.get_or_set(key, state, SECONDS),
                                                 AUDIENCE), steps=steps)

