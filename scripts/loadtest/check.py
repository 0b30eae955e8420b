"""The after-run checks of the load test, from the database alone.

`check_games(game_ids, accepted)` answers "was anything lost?":
  - every step a player was told was accepted (collected from the HTTP answers during the
    run) is in the replay log (`games.Action`);
  - every phase advanced exactly once, and not before its deadline: one clock step per phase
    the clock ended, none for a phase the game's end closed (`end_reason` "over"), none on a
    phase still open; every phase the clock ended lasted until its deadline (`ended_at` and
    the clock step's time at or after `deadline`), and was ended by it (`end_reason`
    "deadline"; these games never end a phase early). Counting clock steps per phase row
    alone cannot see a phase advanced twice: each advance opens a new row, so the second
    one ends the *next* phase, with one clock step of its own, before its deadline;
    phase numbers 1, 2, 3... without a gap; `Game.version` == the number of advances;
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


def check_games(game_ids: list[int], accepted: list[dict], *, max_lag: float | None = None,
                early_allowed: bool = False) -> dict:
    """What survived, per game. `accepted` holds {"game", "seat", "kind", "params"} dicts.

    `max_lag`: seconds after its deadline by which the clock must have ended each phase
    (None: not checked; the drills that measure the clock pass SWEEP_INTERVAL_SECONDS +
    grace + slack). `early_allowed`: phases may end before their deadline by every seat
    having acted ("early") or by the GM ("gm"); off for the load test and the drills, whose
    games turn early ends off and have no GM at work.

    Steps:
    1. count the logged player steps per key; every accepted step must find one of its own
       (a player told "accepted" twice for the same choice needs two logged steps);
    2. per game: replay the log and compare with the stored state and events;
    3. per game: phases numbered 1..n; each ended phase has exactly the clock steps its end
       reason calls for (1, or 0 for "over"); the open phase has none; version == advances;
    4. per phase the clock ended: ended by its deadline, not before it (`ended_at` and the
       clock step's `created` >= `deadline`), and within `max_lag` of it when given.
    Returns counts, `problems` (readable sentences; empty: all checks passed) and `bad`
    (the ids of the games with a problem).
    """
    from games import services
    from games.engine.base import replay
    from games.models import Action, Game

    problems: list[str] = []
    bad: set[int] = set()

    def problem(game_id: int, text: str) -> None:
        problems.append(f"game {game_id}: {text}")
        bad.add(game_id)

    logged = Counter(
        step_key(a.game_id, a.seat.number, a.kind, a.params)
        for a in Action.objects.filter(game_id__in=game_ids).exclude(seat=None)
        .select_related("seat"))
    wanted = Counter(step_key(r["game"], r["seat"], r["kind"], r["params"]) for r in accepted)
    lost = sum(max(0, n - logged[key]) for key, n in wanted.items())
    for key, n in wanted.items():
        if logged[key] < n:
            problems.append(f"accepted but not in the log ({n - logged[key]}x): {key}")
            bad.add(json.loads(key)[0])

    out = {"games": 0, "accepted steps": sum(wanted.values()), "lost": lost,
           "phases ended": 0, "by deadline": 0, "double advances": 0,
           "ended before the deadline": 0, "late": 0, "problems": problems, "bad": bad}
    for game in Game.objects.filter(pk__in=game_ids).order_by("pk"):
        out["games"] += 1
        steps = [a.as_step() for a in game.actions.order_by("seq")]
        setup = {"seats": game.seat_count, "config": game.config, "seed": game.seed}
        try:
            same = replay(services.ruleset_of(game), setup, steps) == game.state
        except ValueError as exc:
            same = False
            problem(game.pk, f"the log does not replay: {exc}")
        if not same:
            problem(game.pk, "the replay of its log differs from its state")
        if game.events.exclude(seq=None).count() != len(game.state["log"]):
            problem(game.pk, "the events table differs from the engine log")
        phases = list(game.phases.order_by("seq"))
        if [p.seq for p in phases] != list(range(1, len(phases) + 1)):
            problem(game.pk, "phase numbers have a gap or a double")
        clock_steps = {}
        for step in Action.objects.filter(game=game, actor="clock").order_by("seq"):
            clock_steps.setdefault(step.phase_id, []).append(step)
        advances = 0
        for phase in phases:
            own = clock_steps.get(phase.pk, [])
            clock = len(own)
            advances += clock
            name = f"phase {phase.seq} ({phase.name} {phase.number}, {phase.end_reason or 'open'})"
            if phase.ended_at is None:
                expected = 0
            else:
                out["phases ended"] += 1
                out["by deadline"] += phase.end_reason == "deadline"
                expected = 0 if phase.end_reason == "over" else 1
            if clock > 1:
                out["double advances"] += 1
            if clock != expected:
                problem(game.pk, f"{name} has {clock} clock steps, expected {expected}")
            if phase.ended_at is None or phase.end_reason == "over":
                continue
            if phase.end_reason != "deadline" and not early_allowed:
                problem(game.pk, f"{name} was not ended by its deadline")
            if phase.end_reason != "deadline" and early_allowed:
                continue
            if phase.deadline is None:
                problem(game.pk, f"{name} ended by the clock but has no deadline")
                continue
            written = max([phase.ended_at] + [step.created for step in own])
            first = min([phase.ended_at] + [step.created for step in own])
            if first < phase.deadline:
                out["ended before the deadline"] += 1
                problem(game.pk, f"{name} ended {(phase.deadline - first).total_seconds():.1f} "
                                 f"s before its deadline (advanced twice?)")
            lag = (written - phase.deadline).total_seconds()
            if max_lag is not None and lag > max_lag:
                out["late"] += 1
                problem(game.pk, f"{name} ended {lag:.1f} s after its deadline "
                                 f"(at most {max_lag:g} s)")
        if game.is_live and (not phases or phases[-1].ended_at is not None
                             or game.current_phase_id != phases[-1].pk):
            problem(game.pk, "running, but its last phase is not the open one")
        # A game ended by a player's step bumps the version once more (see _finish_if_over).
        finished_by_step = sum(p.end_reason == "over" for p in phases)
        if game.version != advances + finished_by_step:
            problem(game.pk, f"version {game.version} but {advances} advances")
        if Action.objects.filter(game=game, actor="clock", phase=None).exists():
            problem(game.pk, "a clock step outside any phase")
    if out["games"] != len(set(game_ids)):
        problems.append(f"{len(set(game_ids)) - out['games']} games are missing")
    out["bad"] = sorted(bad)
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
