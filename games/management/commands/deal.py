"""Deal 猫有n条命 by hand: `python manage.py deal --players 5|6 [--seed N] [--count K]
[--format text|jsonl]`, print the exact number of valid deals (`--count-only`), or check deals
a GM typed in (`--check FILE`, one JSON deal per line, `-` for standard input), or
regenerate the dealer's shipped tables of completions (`--write-tables`, after a rule change).

A thin shell over `games.engine.ninelives.dealing` (see docs/rules/ninelives-dealing.md).
"""

from __future__ import annotations

import json
import random
import sys

from django.core.management.base import BaseCommand, CommandError

from games.engine.ninelives.cards import CAMP_NAMES_ZH, CARDS
from games.engine.ninelives.dealing import (
    SHIPPED_PLAYERS,
    Deal,
    commitment,
    count_deals,
    counts_file,
    counts_file_text,
    deal,
    free_agent_camps,
    new_salt,
    validate,
)
from games.presenters.ninelives import reason_text


def deal_text(number: int, d: Deal) -> str:
    """A deal for people: one line per seat (numbered from 1), Chinese and English names."""
    order = {card: i for i, card in enumerate(CARDS)}
    lines = [f"Deal {number} ({d.players} players)"]
    for seat, (camp, hand) in enumerate(zip(d.camps, d.hands, strict=True)):
        cards = ", ".join(f"{CARDS[c][2]} {c}" for c in sorted(hand, key=order.__getitem__))
        line = f"  Seat {seat + 1}  {CAMP_NAMES_ZH[camp]} {camp:<10}  {cards}"
        if camp == "free_agent":
            line += f"  (may choose: {', '.join(free_agent_camps(hand)) or 'none'})"
        lines.append(line)
    for kind in ("killer", "wolf"):
        cards = ", ".join(f"{CARDS[c][2]} {c}" for c in d.taints[kind])
        lines.append(f"  {CAMP_NAMES_ZH[kind]}属性 {kind} taint: {cards}")
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Deal 猫有n条命 uniformly among all valid deals, count them, or check typed-in deals."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, choices=[5, 6], default=5)
        parser.add_argument("--seed", type=int, default=None,
                            help="seed for a reproducible deal (default: unpredictable)")
        parser.add_argument("--count", type=int, default=1, help="deals to print (default 1)")
        parser.add_argument("--format", choices=["text", "jsonl"], default="text")
        parser.add_argument("--count-only", action="store_true",
                            help="print the exact number of valid deals and stop")
        parser.add_argument("--commit", action="store_true",
                            help="text format: add a SHA-256 commitment and its secret salt")
        parser.add_argument("--write-tables", action="store_true",
                            help="rebuild the shipped tables (deal_counts_5/6.json) and stop")
        parser.add_argument("--check", metavar="FILE",
                            help="validate deals (JSON, one per line; - for standard input)")

    def handle(self, *args, players: int, seed: int | None, count: int, format: str,
               count_only: bool, commit: bool, check: str | None, write_tables: bool,
               **options):
        if write_tables:
            for number in SHIPPED_PLAYERS:
                path = counts_file(number)
                path.write_text(counts_file_text(number), encoding="utf-8")
                self.stdout.write(f"wrote {path} ({count_deals(number):,} deals)")
            return
        if check:
            return self._check(check)
        if count_only:
            self.stdout.write(str(count_deals(players)))
            return
        if count < 1:
            raise CommandError("--count must be at least 1")
        rng = random.Random(seed)
        for number in range(1, count + 1):
            d = deal(players, rng)
            if format == "jsonl":
                self.stdout.write(json.dumps(d.to_json(), ensure_ascii=False))
                continue
            self.stdout.write(deal_text(number, d))
            if commit:
                salt = new_salt()
                self.stdout.write(f"  commitment {commitment(d, salt)}  (salt {salt}: keep it "
                                  f"secret until the end)")

    def _check(self, path: str) -> None:
        """Validate typed-in deals: one JSON object, a JSON list, or JSON lines."""
        if path == "-":
            text = sys.stdin.read()
        else:
            try:
                with open(path, encoding="utf-8") as stream:
                    text = stream.read()
            except OSError as exc:
                raise CommandError(f"cannot read {path}: {exc}") from None
        try:
            whole = json.loads(text)
            deals = whole if isinstance(whole, list) else [whole]
        except json.JSONDecodeError:
            try:
                deals = [json.loads(line) for line in text.splitlines() if line.strip()]
            except json.JSONDecodeError as exc:
                raise CommandError(f"not JSON: {exc}") from None
        bad = 0
        for number, data in enumerate(deals, 1):
            try:
                broken = validate(Deal.from_json(data))
            except ValueError as exc:
                bad += 1
                self.stdout.write(f"Deal {number}: malformed: {exc}")
                continue
            if broken:
                bad += 1
                self.stdout.write(f"Deal {number}: breaks {len(broken)} rule(s)")
                for v in broken:  # in the active language, as the site words it
                    self.stdout.write(f"  §{v.rule}: {reason_text(v.reason, {})}")
            else:
                self.stdout.write(f"Deal {number}: valid")
        if bad:
            raise CommandError(f"{bad} of {len(deals)} deal(s) break the rules")
