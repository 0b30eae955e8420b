#!/usr/bin/env python
"""Drill: a Celery worker killed with SIGKILL in the middle of advancing phases. Each phase is
either fully advanced or not at all, and the next sweep finishes the work.

1. 300 toy games (--games) with hour-long nights; once all are made, every night falls due
   at the same moment (common.due_now), so the set-up's length decides nothing.
2. A worker with an embedded beat starts; the moment the first night has advanced (the
   sweeps advance the games one after another), it is killed with SIGKILL (no chance to
   clean up, a transaction may be open).
3. Check 1, right after the kill: every game is its log's replay, no phase ended twice,
   and each game either has its night ended (with the day opened) or not at all.
4. A new worker starts; once every night has ended and the worker's queues have run what
   was queued by then (common.drained: nothing left that could advance a night twice),
   check 2: every night ended exactly once, none before its deadline.

It waits on those states, never on a number of seconds (each wait has a generous limit,
and saying so, the drill fails).

`--canary` shows the drill can fail: after the new worker's work, one game's day is ended
by a sweep whose clock runs an hour fast (a phase ended before its deadline, as a second
advance would end it), which check 2 must find.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/killinggames_drill \
        .venv/bin/python scripts/drills/kill_worker.py [--games 300] [--canary]
Safe beside other work: its own database and broker folder.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time

import common

LIMIT = 900  # seconds any one wait may take before the drill gives up (a stuck worker)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--canary", action="store_true",
                        help="end one phase behind the clock's back: the drill must FAIL")
    args = parser.parse_args()
    count = args.games
    common.setup_django()
    from games.models import Action, Game, Phase

    games = common.toy_games("killworker-", count, minutes=60)
    ids = [g.pk for g in games]

    def advanced() -> int:
        return Action.objects.filter(game_id__in=ids, actor="clock").count()

    try:
        common.due_now(games)  # every night due at once, after the set-up
        first = common.worker("doomed", beat=True)
        began = time.time()
        if not common.wait_until(lambda: advanced() > 0, LIMIT, step=0.02):
            print(f"FAILED: no night advanced within {LIMIT} s of the worker's start")
            return 1
        common.kill_group(first, signal.SIGKILL)  # the worker and its embedded beat at once
        first.wait(10)
        killed_after = time.time() - began
        at_kill = advanced()
        check1 = common.check_games(games)
        # half-advanced would be: a night marked ended without its day, or the reverse
        half = sum(1 for g in ids
                   if Phase.objects.filter(game_id=g).count()
                   != 1 + Phase.objects.filter(game_id=g).exclude(ended_at=None).count())
        common.worker("survivor", beat=True)
        finished = common.wait_until(lambda: advanced() >= count, LIMIT)
        drained = common.drained(LIMIT)
    finally:
        common.stop_all()
    if args.canary:  # a sweep whose clock runs an hour fast ends one day before its time
        import datetime as dt

        from games import services

        day = Game.objects.get(pk=ids[0])
        services.advance_phase(game_id=day.pk, reason="deadline",
                               now=day.deadline + dt.timedelta(seconds=1))
    check2 = common.check_games(games)
    common.stop_games(games)
    print(f"{count} games due at once; worker killed with SIGKILL {killed_after:.1f} s after "
          f"its start, at the first advance seen")
    print(f"  nights advanced before the kill: {at_kill}")
    print(f"  right after the kill: games not their log's replay: {len(check1['bad'])}, "
          f"half-advanced games: {half}, phases ended twice: {check1['double advances']}")
    print(f"  after a new worker: nights ended {check2['phases ended']} of {count}"
          f"{'' if finished else ' (NOT all within the limit)'}, ended twice: "
          f"{check2['double advances']}, ended before their deadline: "
          f"{check2['ended before the deadline']}, games with a problem: {len(check2['bad'])}"
          f"; queues drained: {drained}")
    for line in (check1["problems"] + check2["problems"])[:10]:
        print("   ", line)
    survived = (not check1["bad"] and not half and 0 < at_kill < count and finished
                and drained and check2["phases ended"] == count
                and not check2["double advances"] and not check2["bad"])
    if at_kill >= count:
        print("  (every night had advanced before the kill: it did not land mid-run)")
    print("SURVIVED: all or nothing per phase; the next sweep finished the work" if survived
          else "FAILED")
    return 0 if survived else 1


if __name__ == "__main__":
    sys.exit(main())
