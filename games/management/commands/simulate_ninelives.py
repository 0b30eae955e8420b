"""Play random legal games of 猫有n条命 and print games per second and the win rate per camp
with 95% intervals, for 5 and 6 players; the speed also as a ratio to a baseline measured in
the same run (what one game costs in JSON copies of a fresh state).

A thin shell over `games.engine.ninelives.simulate`; heavy, so it is a command, not a test.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from games.engine.ninelives.simulate import report, speed


class Command(BaseCommand):
    help = "Simulate 猫有n条命: games per second and win rate per camp (95% intervals)."

    def add_arguments(self, parser):
        parser.add_argument("--games", type=int, default=1000,
                            help="games per player count (default 1000)")
        parser.add_argument("--players", type=int, nargs="+", default=[5, 6],
                            help="player counts, 5 and/or 6 (default both)")
        parser.add_argument("--policy", choices=["random", "informed"], default="random")
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args, games: int, players: list[int], policy: str, seed: int,
               **options):
        if any(p not in (5, 6) for p in players):
            raise CommandError("猫有n条命 is played by 5 or 6 players")
        if games < 1:
            raise CommandError("--games must be at least 1")
        for count in players:
            self.stdout.write(report(speed(count, games, seed=seed, policy=policy)))
