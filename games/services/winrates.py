"""Expected win rates per camp for a setup (rule set, seat count, options), from the rule
set's random-play simulator, computed by a Celery task and cached per setup.

`request(...)` answers at once: the cached figures, or None after queueing the task
("games.winrates", games/tasks.py) that calls `compute`. The cache key is the setup itself
(sorted JSON), so two GMs asking for the same setup share one computation; a "pending" mark
keeps a burst of polls from queueing the task again and again. Without Redis (cache or
broker) the answer stays None ("calculating…"): the mark is not kept, the task not sent
(config.broker.send never raises), and a later poll asks again.

Rule sets with camps to count: ninelives (killer/wolf/civilian/draw) and classic (police,
bandit, draw). Gold pays coins to seats, not a camp's win: no figures (None from `supported`).
"""

from __future__ import annotations

import hashlib
import json
import logging

from celery import current_app
from django.core.cache import cache

from config import broker

from ..engine.classic import simulate as classic_sim
from ..engine.classic.rules import Classic
from ..engine.ninelives import simulate as ninelives_sim

log = logging.getLogger(__name__)

TASK = "games.winrates"  # games/tasks.py
GAMES = 400              # games per setup: a 95% interval of about ±5 points
TTL = 7 * 24 * 3600
PENDING_TTL = 600


def supported(ruleset: str) -> bool:
    return ruleset in ("ninelives", "classic")


def key(ruleset: str, seats: int, config: dict) -> str:
    setup = json.dumps([ruleset, seats, config], sort_keys=True, ensure_ascii=False)
    return "winrates:" + hashlib.sha256(setup.encode()).hexdigest()


def compute(*, ruleset: str, seats: int, config: dict, games: int = GAMES) -> dict:
    """Play `games` random games of the setup; store and return
    {"games": n, "camps": {camp: [share, low, high]}} (95% Wilson intervals)."""
    if ruleset == "ninelives":
        stats = ninelives_sim.simulate(seats, games)
        camps = {camp: list(rate) for camp, rate in stats["rates"].items()}
    elif ruleset == "classic":
        rules = Classic()
        cfg = rules.validate_config(seats, config)
        wins = dict.fromkeys(classic_sim.RESULTS, 0)
        for i in range(games):
            result, _rounds = classic_sim.play_random_game(rules, seats, cfg, i)
            if result is not None:
                wins[result] += 1
        camps = {camp: list(classic_sim.wilson(k, games)) for camp, k in wins.items()}
    else:
        raise ValueError(f"no win-rate simulator for {ruleset!r}")
    figures = {"games": games, "camps": camps}
    cache.set(key(ruleset, seats, config), figures, TTL)
    return figures


def request(*, ruleset: str, seats: int, config: dict) -> dict | None:
    """The cached figures of this setup, or None ("calculating…") after making sure the
    task is queued (once per PENDING_TTL)."""
    k = key(ruleset, seats, config)
    figures = cache.get(k)
    if figures is not None or not supported(ruleset):
        return figures
    if cache.add(k + ":pending", True, PENDING_TTL):
        kwargs = {"ruleset": ruleset, "seats": seats, "config": config}
        if current_app.conf.task_always_eager:
            return compute(**kwargs)
        if not broker.send(TASK, kwargs):  # the broker is down: the next poll asks again
            cache.delete(k + ":pending")
    return None
