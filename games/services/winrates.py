"""Expected win rates per camp for a setup (rule set, seat count, options), from the rule
set's random-play simulator, computed by a Celery task on the slow queue and cached per
setup.

`estimate(...)` answers at once with where the setup's figures stand, which the add-game
form shows while it polls (games/admin/console.py `winrates_view`):
- "ready": the figures, from the cache (a setup already computed is never simulated again;
  the key is the setup itself, sorted JSON, so two GMs asking for the same setup share one
  computation);
- "queued": the task is in the slow queue since `waited` seconds, no worker has taken it
  yet;
- "running": a worker plays the games, `done` of `games`, with the `eta` in seconds worked
  out from its pace so far;
- "failed": the simulation raised (its error), shown for FAILED_TTL seconds; a poll after
  that queues it again;
- "unavailable": the cache or the broker cannot be reached (nothing is queued, a later
  poll asks again);
- "none": the rule set has no camps to count (gold pays coins to seats).
A setup the rules refuse raises `Refused` (the engine's reason): nothing is queued.

At most one simulation per setup, whatever the number of polls, GMs or redelivered
messages:
1. the request queues the task only when it adds the setup's state key (`cache.add`, atomic
   in Redis): "queued" for QUEUED_TTL seconds, so a burst of polls queues it once;
2. the task runs only when it adds the setup's run lock (RUN_TTL, renewed with each
   progress write, so a killed worker's lock lapses), and first looks for figures a run
   before it stored: a second message for the same setup does nothing.

Rule sets with camps to count: ninelives (killer/wolf/civilian/draw) and classic (police,
bandit, draw).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid

from celery import current_app
from django.core.cache import cache

from config import broker

from ..engine.classic import simulate as classic_sim
from ..engine.classic.rules import Classic
from ..engine.ninelives import simulate as ninelives_sim
from ..engine.ninelives.rules import NineLives
from .kernel import GameError

log = logging.getLogger(__name__)

TASK = "games.winrates"  # games/tasks.py, routed to the slow queue (settings)
GAMES = 400              # games per setup: a 95% interval of about ±5 points
TTL = 7 * 24 * 3600      # the figures
QUEUED_TTL = 600         # a request waits this long for a worker before it queues again
RUN_TTL = 120            # the run lock and the progress, renewed at each progress write
FAILED_TTL = 60          # a failure is shown this long; the next poll queues it again
PROGRESS_EVERY = 20      # games between progress writes


class Refused(Exception):
    """The rules refuse this setup: `message` says why (the engine's reason)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def supported(ruleset: str) -> bool:
    return ruleset in ("ninelives", "classic")


def key(ruleset: str, seats: int, config: dict) -> str:
    setup = json.dumps([ruleset, seats, config], sort_keys=True, ensure_ascii=False)
    return "winrates:" + hashlib.sha256(setup.encode()).hexdigest()


def _state_key(k: str) -> str:
    return k + ":state"


def _run_key(k: str) -> str:
    return k + ":run"


def compute(*, ruleset: str, seats: int, config: dict, games: int = GAMES) -> dict | None:
    """Play `games` random games of the setup; store and return
    {"games": n, "camps": {camp: [share, low, high]}} (95% Wilson intervals). Returns the
    stored figures without playing when a run before this one stored them, and None
    without playing when another run holds the setup's lock (or the cache is away)."""
    k = key(ruleset, seats, config)
    figures = cache.get(k)
    if figures is not None:
        return figures
    token = uuid.uuid4().hex
    if not cache.add(_run_key(k), token, RUN_TTL):
        log.info("win rates of %s: another run has this setup", k)
        return None
    started = time.time()

    def progress(done: int) -> None:
        cache.set(_state_key(k), {"status": "running", "done": done, "games": games,
                                  "started": started}, RUN_TTL)
        cache.touch(_run_key(k), RUN_TTL)

    try:
        figures = {"games": games, "camps": _play(ruleset, seats, config, games, progress)}
        cache.set(k, figures, TTL)
        cache.delete(_state_key(k))
        return figures
    except Exception as exc:
        cache.set(_state_key(k), {"status": "failed",
                                  "error": f"{type(exc).__name__}: {exc}"[:200]}, FAILED_TTL)
        raise
    finally:
        if cache.get(_run_key(k)) == token:
            cache.delete(_run_key(k))


def _play(ruleset: str, seats: int, config: dict, games: int, progress) -> dict:
    """{camp: [share, low, high]} over `games` random games, calling progress(done) every
    PROGRESS_EVERY games."""
    if ruleset == "ninelives":
        rules = NineLives()
        results, wilson = ninelives_sim.RESULTS, ninelives_sim.wilson

        def one(i: int) -> str:
            return ninelives_sim.play(seats, i, policy="random", rules=rules).result
    elif ruleset == "classic":
        rules = Classic()
        cfg = rules.validate_config(seats, config)
        results, wilson = classic_sim.RESULTS, classic_sim.wilson

        def one(i: int) -> str | None:
            return classic_sim.play_random_game(rules, seats, cfg, i)[0]
    else:
        raise ValueError(f"no win-rate simulator for {ruleset!r}")
    wins = dict.fromkeys(results, 0)
    progress(0)
    for i in range(games):
        result = one(i)
        if result is not None:
            wins[result] += 1
        if (i + 1) % PROGRESS_EVERY == 0 and i + 1 < games:
            progress(i + 1)
    # Both simulators' Wilson intervals end with (low, high); classic's starts with the share.
    return {camp: [k / games, *wilson(k, games)[-2:]] for camp, k in wins.items()}


def check(*, ruleset: str, seats: int, config: dict) -> None:
    """Refused with the rules' reason when they refuse this setup (the check a game's
    creation makes: the seat count, the options and a trial deal)."""
    from .lifecycle import check_settings

    try:
        check_settings(ruleset=ruleset, seat_count=seats, config=config, durations=None,
                       change_cutoff_minutes=0)
    except GameError as exc:
        raise Refused(exc.message) from None


def estimate(*, ruleset: str, seats: int, config: dict) -> dict:
    """Where this setup's figures stand (see the module's docstring), queueing the task when
    nothing is known of them yet. Refused (nothing queued) for a setup the rules refuse."""
    if not supported(ruleset):
        return {"status": "none"}
    k = key(ruleset, seats, config)
    figures = cache.get(k)
    if figures is not None:
        return {"status": "ready", "figures": figures}
    state = cache.get(_state_key(k))
    if state is None:
        check(ruleset=ruleset, seats=seats, config=config)
        kwargs = {"ruleset": ruleset, "seats": seats, "config": config}
        queued = {"status": "queued", "since": time.time()}
        if cache.add(_state_key(k), queued, QUEUED_TTL):
            if current_app.conf.task_always_eager:
                figures = compute(**kwargs)
                return {"status": "ready", "figures": figures} if figures else _shown(queued)
            if not broker.send(TASK, kwargs):  # the broker is down: the next poll asks again
                cache.delete(_state_key(k))
                return {"status": "unavailable"}
            return _shown(queued)
        state = cache.get(_state_key(k))  # another request queued it meanwhile
        if state is None:
            return {"status": "unavailable"}  # the cache cannot be reached
    return _shown(state)


def _shown(state: dict) -> dict:
    """A stored state as the form reads it: seconds, not timestamps."""
    now = time.time()
    if state["status"] == "queued":
        return {"status": "queued", "waited": max(0, round(now - state["since"]))}
    if state["status"] == "running":
        done, games = state["done"], state["games"]
        elapsed = max(0.0, now - state["started"])
        eta = round(elapsed / done * (games - done)) if done else None
        return {"status": "running", "done": done, "games": games, "eta": eta}
    return {"status": "failed", "error": state.get("error", "")}
