#!/usr/bin/env python
"""Drill: two beat processes running by mistake. Still exactly one advance per phase.

1. 20 toy games with 6-second phases; one worker and TWO `celery beat` processes, each
   sending a sweep every second.
2. After --seconds (default 45), everything is stopped and the database is checked:
   every ended phase has exactly one clock step and lasted until its deadline (a phase
   advanced twice would end the next one early), states are the replay of their logs.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/killinggames_drill \
        .venv/bin/python scripts/drills/two_beats.py
Safe beside other work: its own database and broker folder.
"""

from __future__ import annotations

import argparse
import sys
import time

import common


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=45)
    args = parser.parse_args()
    common.setup_django()
    games = common.toy_games("twobeats-", 20, minutes=0.1)
    try:
        common.worker("drill-worker", beat=False)
        common.beat("beat-a")
        common.beat("beat-b")
        time.sleep(args.seconds)
    finally:
        common.stop_all()
    result = common.check_games(games)
    common.stop_games(games)
    print(f"two beats for {args.seconds:g} s over {result['games']} games:")
    print(f"  phases ended: {result['phases ended']}")
    print(f"  phases ended twice: {result['double advances']}, ended before their deadline "
          f"(a second advance): {result['ended before the deadline']}")
    print(f"  games with a problem (replay, clock steps, deadlines): {len(result['bad'])}")
    for line in result["problems"][:10]:
        print("   ", line)
    survived = result["phases ended"] > 0 and not result["bad"] and not result["problems"]
    print("SURVIVED: exactly one advance per phase" if survived else "FAILED")
    return 0 if survived else 1


if __name__ == "__main__":
    sys.exit(main())
