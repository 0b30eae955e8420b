#!/usr/bin/env python
"""Drill: a Celery worker killed with SIGKILL in the middle of advancing phases. Each phase is
either fully advanced or not at all, and the next sweep finishes the work.

1. 300 toy games whose night lasts 3 seconds (the day after it lasts an hour), so that
   they all fall due at once and the sweeps advance them one after another.
2. A worker with an embedded beat starts; as soon as some games have advanced but not all,
   it is killed with SIGKILL (no chance to clean up, a transaction may be open).
3. Check 1, right after the kill: every game is its log's replay, no phase ended twice,
   and each game either has its night ended (with the day opened) or not at all.
4. A new worker starts; check 2: every night ended exactly once.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/killinggames_drill \
        .venv/bin/python scripts/drills/kill_worker.py
Safe beside other work: its own database and broker folder.
"""

from __future__ import annotations

import signal
import sys
import time

import common

GAMES = 300


def main() -> int:
    common.setup_django()
    from games.models import Action, Phase

    games = common.toy_games("killworker-", GAMES, minutes=0.05)
    from games.models import Game

    Game.objects.filter(pk__in=[g.pk for g in games]).update(durations={"night": 0.05,
                                                                        "day": 60})
    ids = [g.pk for g in games]

    def advanced() -> int:
        return Action.objects.filter(game_id__in=ids, actor="clock").count()

    try:
        first = common.worker("doomed", beat=True)
        started = time.time()
        common.wait_until(lambda: advanced() > 0, 120, step=0.05)
        time.sleep(0.3)  # well inside the run of sweeps
        common.kill_group(first, signal.SIGKILL)  # the worker and its embedded beat at once
        first.wait(10)
        killed_after = time.time() - started
        at_kill = advanced()
        check1 = common.check_games(games)
        # half-advanced would be: a night marked ended without its day, or the reverse
        half = sum(1 for g in ids
                   if Phase.objects.filter(game_id=g).count()
                   != 1 + Phase.objects.filter(game_id=g).exclude(ended_at=None).count())
        common.worker("survivor", beat=True)
        common.wait_until(lambda: advanced() >= GAMES, 180)
        time.sleep(3)  # a few more sweeps: nothing may advance twice
    finally:
        common.stop_all()
    check2 = common.check_games(games)
    common.stop_games(games)
    print(f"{GAMES} games due at once; worker killed with SIGKILL {killed_after:.1f} s after "
          f"the first advance")
    print(f"  nights advanced before the kill: {at_kill}")
    print(f"  right after the kill: games not their log's replay: {len(check1['bad'])}, "
          f"half-advanced games: {half}, phases ended twice: {check1['double advances']}")
    print(f"  after a new worker: nights ended {check2['phases ended']} of {GAMES}, "
          f"ended twice: {check2['double advances']}, ended before their deadline: "
          f"{check2['ended before the deadline']}, games with a problem: {len(check2['bad'])}")
    for line in (check1["problems"] + check2["problems"])[:10]:
        print("   ", line)
    survived = (not check1["bad"] and not half and 0 < at_kill < GAMES
                and check2["phases ended"] == GAMES and not check2["double advances"]
                and not check2["bad"])
    if not 0 < at_kill < GAMES:
        print("  (the kill did not land mid-run: run again)")
    print("SURVIVED: all or nothing per phase; the next sweep finished the work" if survived
          else "FAILED")
    return 0 if survived else 1


if __name__ == "__main__":
    sys.exit(main())
