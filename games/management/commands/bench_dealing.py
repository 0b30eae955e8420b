"""Measure the 猫有n条命 dealer against plain rejection sampling and the forum's greedy method,
with one `random.shuffle` of the deck as the floor (figures in docs/rules/ninelives-dealing.md);
or, with `--warm-up`, the first deal of a fresh process.

`--warm-up` starts fresh Python processes that import the dealer and time (1) the first deal,
which reads the shipped tables of completions (`deal_counts_N.json`), (2) building those
tables by the whole dynamic programme, which is what every fresh process did before they were
shipped, and (3) the baseline, in the same process: 1,000 `random.shuffle`s of the deck. It
prints the medians and the ratios to the baseline.

A thin shell over `games.engine.ninelives.dealing_bench`; heavy, so a command, not a test.
"""

from __future__ import annotations

import statistics
import subprocess
import sys

from django.core.management.base import BaseCommand, CommandError

from games.engine.ninelives.dealing_bench import measure, report

FRESH = """
import random, time
t0 = time.perf_counter()
from games.engine.ninelives import dealing
t1 = time.perf_counter()
{work}
t2 = time.perf_counter()
cards = list(dealing.rules_for({players}).deck.elements())
rng = random.Random(2)
t3 = time.perf_counter()
for _ in range(1000):
    rng.shuffle(cards)
t4 = time.perf_counter()
print(t1 - t0, t2 - t1, t4 - t3)
"""
FIRST_DEAL = "dealing.deal({players}, random.Random(1))"
BUILD = "dealing.build_counts(dealing.rules_for({players}))"


def fresh(players: int, work: str) -> tuple[float, float, float]:
    """(import, work, baseline) seconds in a new Python process."""
    script = FRESH.format(players=players, work=work.format(players=players))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout
    first, second, third = map(float, out.split())
    return first, second, third


def warm_up_report(players: int, runs: int) -> str:
    deals = [fresh(players, FIRST_DEAL) for _ in range(runs)]
    builds = [fresh(players, BUILD) for _ in range(max(1, runs // 2))]
    imp = statistics.median(d[0] for d in deals) * 1e3
    first = statistics.median(d[1] for d in deals) * 1e3
    base = statistics.median([d[2] for d in deals] + [b[2] for b in builds]) * 1e3
    build = statistics.median(b[1] for b in builds) * 1e3
    return (f"{players} players, fresh process (median of {runs}): first deal {first:,.1f} ms "
            f"with the shipped tables (import {imp:,.0f} ms before it); building the tables, "
            f"as every fresh process did before: {build:,.0f} ms\n"
            f"  baseline in the same processes: 1,000 shuffles of the deck {base:,.1f} ms; "
            f"first deal = {first / base:.1f}x the baseline (before: {build / base:,.0f}x)")


class Command(BaseCommand):
    help = "Deals per second: ours, rejection sampling, the forum's greedy method; the floor."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, nargs="+", default=[5, 6],
                            help="player counts, 5 and/or 6 (default both)")
        parser.add_argument("--deals", type=int, default=20_000,
                            help="deals timed for our dealer (default 20000)")
        parser.add_argument("--seconds", type=float, default=5.0,
                            help="time given to rejection sampling (default 5)")
        parser.add_argument("--greedy", type=int, default=5_000,
                            help="runs of the greedy method (default 5000)")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--warm-up", action="store_true",
                            help="time the first deal of fresh processes instead")
        parser.add_argument("--runs", type=int, default=5,
                            help="fresh processes for --warm-up (default 5)")

    def handle(self, *args, players: list[int], deals: int, seconds: float, greedy: int,
               seed: int, warm_up: bool, runs: int, **options):
        if any(p not in (5, 6) for p in players):
            raise CommandError("猫有n条命 is played by 5 or 6 players")
        if warm_up:
            if runs < 1:
                raise CommandError("--runs must be at least 1")
            for count in players:
                self.stdout.write(warm_up_report(count, runs))
            return
        if deals < 2 or greedy < 1 or seconds <= 0:
            raise CommandError("--deals must be at least 2, --greedy at least 1, --seconds > 0")
        for count in players:
            self.stdout.write(report(measure(count, seed=seed, ours=deals, greedy=greedy,
                                             rejection_seconds=seconds)))
