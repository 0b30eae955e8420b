"""Play random games of Classic 杀人游戏 and print the win rate per side (95% intervals),
with and without each 2.0 variant, and games per second, for 11, 12 and 16 players.

A thin shell over `games.engine.classic.simulate`; heavy, so it is a command, not a test.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from games.engine.classic.simulate import VARIANTS, run, table


class Command(BaseCommand):
    help = ("Simulate Classic 杀人游戏 with random play: win rate per side (95% intervals) "
            "with and without each variant, and games per second.")

    def add_arguments(self, parser):
        parser.add_argument("--games", type=int, default=2000,
                            help="games per player count and rule mix (default 2000)")
        parser.add_argument("--players", type=int, nargs="+", default=[11, 12, 16],
                            help="player counts between 11 and 16 (default 11 12 16)")
        parser.add_argument("--variants", nargs="+", default=list(VARIANTS),
                            choices=list(VARIANTS), metavar="VARIANT",
                            help="rule mixes to compare (default all): "
                                 + "; ".join(VARIANTS))
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args, games: int, players: list[int], variants: list[str], seed: int,
               **options):
        if any(p < 11 or p > 16 for p in players):
            raise CommandError("Classic is played by 11 to 16 players")
        if games < 1:
            raise CommandError("--games must be at least 1")
        if "classic" not in variants:
            variants = ["classic", *variants]   # the baseline every shift is measured from

        def progress(tally):
            self.stderr.write(f"{tally.seats} players, {tally.variant}: {tally.games} games "
                              f"in {tally.seconds:.1f} s")

        tallies = run(seats=players, variants=variants, games=games, seed=seed,
                      progress=progress)
        self.stdout.write(table(tallies))
