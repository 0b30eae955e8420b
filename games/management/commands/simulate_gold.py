"""Run the 谁偷了我的金币 simulations and print the Markdown tables for docs/rules/gold.md.

A thin shell over `games.engine.gold.simulate`; heavy, so it is a command, not a test.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from games.engine.gold.simulate import report


class Command(BaseCommand):
    help = "Simulate 谁偷了我的金币: coins by seat position and by strategy, with intervals."

    def add_arguments(self, parser):
        parser.add_argument("--games", type=int, default=2000,
                            help="games per table and strategy (default 2000)")
        parser.add_argument("--players", default="2-6",
                            help="a player count or a range such as 2-6 (default 2-6)")
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args, games: int, players: str, seed: int, **options):
        low, _, high = players.partition("-")
        try:
            counts = list(range(int(low), int(high or low) + 1))
        except ValueError as exc:
            raise CommandError("--players takes a number or a range like 2-6") from exc
        if not counts or counts[0] < 2 or counts[-1] > 6:
            raise CommandError("谁偷了我的金币 is played by 2 to 6 players")
        if games < 2:
            raise CommandError("--games must be at least 2 (an interval needs two games)")
        self.stdout.write(report(counts, games, seed))
