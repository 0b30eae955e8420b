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

from django.conf import settings
from django.core.cache import cache
from django.db.models import Exists, OuterRef, Q, QuerySet

from config.build import BUILD

from .. import rulesets
from ..engine.base import AUDIENCE, replay
from ..models import Action, Game, Phase
from .secrets import approved_watchers

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
    view = rulesets.engine(game.ruleset).view(state_through(game, phase, steps), AUDIENCE)
    return Watched(phase=phase, view=view, steps=steps)


def state_through(game: Game, phase: Phase, steps: list[Action]) -> dict:
    """The engine state at the end of `phase`: the replay of `steps` (every step taken up to
    and including the one that ended it), kept under the phase and the last step."""
    key = ":".join(str(part) for part in (
        "watch-state", game.pk, phase.pk, phase.seq, len(steps),
        steps[-1].pk if steps else 0, BUILD))

    def state():
        return replay(rulesets.engine(game.ruleset), {
            "seats": game.seat_count, "config": game.config, "seed": game.seed},
            [a.as_step() for a in steps])

    return cache.get_or_set(key, state, SECONDS)



def graveyards_hidden_from(user) -> QuerySet:
    """The graveyard boards `user` may not see (messaging.rules hides them: registered in
    GamesConfig.ready): those of games not over, but for their approved watchers (a dead
    player who chose to watch, an outsider the GM let in: games.services.watching) and, for
    an active staff account, the games it runs. Nobody else, the living, the dead who do not
    watch and visitors included, reads a word of them before the end: whoever reads one
    writes nothing the living read (games.selectors.secrets)."""
    hidden = Game.objects.exclude(graveyard=None).exclude(
        status__in=(Game.Status.FINISHED, Game.Status.ABORTED))
    if user is not None and user.is_authenticated:
        uid = user.pk
        hidden = hidden.exclude(Exists(
            approved_watchers().filter(game=OuterRef("pk"), user_id=uid)))
        if user.is_active and user.is_staff:
            hidden = hidden.exclude(Q(gm_id=uid) | Exists(Game.co_gms.through.objects.filter(
                game_id=OuterRef("pk"), user_id=uid)))
    return hidden.values("graveyard_id")


def graveyard_budget(board_id: int) -> tuple[str, int] | None:
    """A graveyard's posts count in a budget of their own (messaging.hooks.post_budget:
    registered in GamesConfig.ready); other boards' posts are the forum's."""
    if Game.objects.filter(graveyard_id=board_id).exists():
        return "graveyard", settings.GRAVEYARD_POSTS_PER_MINUTE
    return None
