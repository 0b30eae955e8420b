"""Measure the 猫有n条命 dealer against plain rejection sampling and the forum's greedy method,
with one `random.shuffle` of the deck as the floor (figures in docs/rules/ninelives-dealing.md).

A thin shell over `games.engine.ninelives.dealing_bench`; heavy, so a command, not a test.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from games.engine.ninelives.dealing_bench import measure, report


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

    def handle(self, *args, players: list[int], deals: int, seconds: float, greedy: int,
               seed: int, **options):
        if any(p not in (5, 6) for p in players):
            raise CommandError("猫有n条命 is played by 5 or 6 players")
        if deals < 2 or greedy < 1 or seconds <= 0:
            raise CommandError("--deals must be at least 2, --greedy at least 1, --seconds > 0")
        for count in players:
            self.stdout.write(report(measure(count, seed=seed, ours=deals, greedy=greedy,
                                             rejection_seconds=seconds)))
