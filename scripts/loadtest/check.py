"""The after-run checks of the load test (issue 9, part 1), from the database alone.

`check_games(game_ids, accepted)` answers "was anything lost?":
  - every step a player was told was accepted (collected from the HTTP answers during the
    run) is in the replay log (`games.Action`);
  - every phase advanced exactly once: one clock step per phase the clock ended, none for a
    phase the game's end closed (`end_reason` "over"), none on a phase still open; phase
    numbers 1, 2, 3... without a gap; `Game.version` == the number of advances;
  - the stored state is the replay of the stored steps and the events table holds exactly
    the engine log's events.
`phase_lag(game_ids)` measures, for each phase ended by its deadline, how late the clock was.

Preconditions: Django is set up; the games are not being written while this runs.
"""

from __future__ import annotations

import json
from collections import Counter

# Free-text fields a player types with a step; the server stores them in the step's params,
# but the answer that says "accepted" is judged by the choice the player made.
TEXT_KEYS = ("manifesto", "story", "reason")


def step_key(game_id: int, seat: int, kind: str, params: dict) -> str:
    """One accepted step as a comparable key (text fields left out)."""
    kept = {k: v for k, v in params.items() if k not in TEXT_KEYS}
    return json.dumps([game_id, seat, kind, kept], sort_keys=True, ensure_ascii=False)


def check_games(game_ids: list[int], accepted: list[dict]) -> dict:
    """What survived, per game. `accepted` holds {"game", "seat", "kind", "params"} dicts.

    Steps:
    1. count the logged player steps per key; every accepted step must find one of its own
       (a player told "accepted" twice for the same choice needs two logged steps);
    2. per game: replay the log and compare with the stored state and events;
    3. per game: phases numbered 1..n; each ended phase has exactly the clock steps its end
       reason calls for (1, or 0 for "over"); the open phase has none; version == advances.
    Returns counts and `problems`, a list of readable sentences (empty: all checks passed).
    """
    from games import services
    from games.engine.base import replay
    from games.models import Action, Game

    problems: list[str] = []
    logged = Counter(
        step_key(a.game_id, a.seat.number, a.kind, a.params)
        for a in Action.objects.filter(game_id__in=game_ids).exclude(seat=None)
        .select_related("seat"))
    wanted = Counter(step_key(r["game"], r["seat"], r["kind"], r["params"]) for r in accepted)
    lost = sum(max(0, n - logged[key]) for key, n in wanted.items())
    for key, n in wanted.items():
        if logged[key] < n:
            problems.append(f"accepted but not in the log ({n - logged[key]}x): {key}")

    out = {"games": 0, "accepted steps": sum(wanted.values()), "lost": lost,
           "phases ended": 0, "by deadline": 0, "double advances": 0, "problems": problems}
    for game in Game.objects.filter(pk__in=game_ids).order_by("pk"):
        out["games"] += 1
        steps = [a.as_step() for a in game.actions.order_by("seq")]
        setup = {"seats": game.seat_count, "config": game.config, "seed": game.seed}
        try:
            same = replay(services.ruleset_of(game), setup, steps) == game.state
        except ValueError as exc:
            same = False
            problems.append(f"game {game.pk}: the log does not replay: {exc}")
        if not same:
            problems.append(f"game {game.pk}: the replay of its log differs from its state")
        if game.events.exclude(seq=None).count() != len(game.state["log"]):
            problems.append(f"game {game.pk}: the events table differs from the engine log")
        phases = list(game.phases.order_by("seq"))
        if [p.seq for p in phases] != list(range(1, len(phases) + 1)):
            problems.append(f"game {game.pk}: phase numbers have a gap or a double")
        advances = 0
        for phase in phases:
            clock = Action.objects.filter(game=game, phase=phase, actor="clock").count()
            advances += clock
            if phase.ended_at is None:
                expected = 0
            else:
                out["phases ended"] += 1
                out["by deadline"] += phase.end_reason == "deadline"
                expected = 0 if phase.end_reason == "over" else 1
            if clock > 1:
                out["double advances"] += 1
            if clock != expected:
                problems.append(f"game {game.pk}: phase {phase.seq} ({phase.name} "
                                f"{phase.number}, {phase.end_reason or 'open'}) has {clock} "
                                f"clock steps, expected {expected}")
        if game.is_live and (not phases or phases[-1].ended_at is not None
                             or game.current_phase_id != phases[-1].pk):
            problems.append(f"game {game.pk}: running, but its last phase is not the open one")
        # A game ended by a player's step bumps the version once more (see _finish_if_over).
        finished_by_step = sum(p.end_reason == "over" for p in phases)
        if game.version != advances + finished_by_step:
            problems.append(f"game {game.pk}: version {game.version} but {advances} advances")
        if Action.objects.filter(game=game, actor="clock", phase=None).exists():
            problems.append(f"game {game.pk}: a clock step outside any phase")
    if out["games"] != len(set(game_ids)):
        problems.append(f"{len(set(game_ids)) - out['games']} games are missing")
    return out


def percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile (0..100) by the nearest-rank method; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))  # ceil(n * q / 100), at least 1
    return ordered[int(rank) - 1]


def phase_lag(game_ids: list[int]) -> list[float]:
    """Seconds from deadline to the phase actually advanced, for each phase the clock ended
    because its deadline passed (phases ended early, by the GM or by the game's end are not
    the clock's doing).

    "Advanced" is when the clock's step was written (`Action.created`): `Phase.ended_at` is
    the time the sweep *started*, which for the last games of a long sweep is earlier.
    """
    from games.models import Action

    rows = Action.objects.filter(game_id__in=game_ids, actor="clock",
                                 phase__end_reason="deadline").exclude(
        phase__deadline=None).values_list("phase__deadline", "created")
    return [(written - deadline).total_seconds() for deadline, written in rows]
