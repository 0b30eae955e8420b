"""The drills' verdicts, from the database and the mail that arrived: each function takes what
a drill collected and answers with counts and `problems` (readable sentences; empty: the
property holds). Nothing here starts a process or changes the environment, so the canaries
in tests/proof/test_drill_checks.py feed these functions crafted rows that break each
property and see them fail.

1. `check_games`: every phase advanced once, at or after its deadline, and every game is
   its log's replay (the load test's checker, scripts/loadtest/check.py, which the drills
   share);
2. `check_emails`: at least one email, and every outbox row's message arrived exactly once
   (none missing, none twice, none that no row asked for);
3. `check_result_notices`: every seat's private results (the on-site result notices the
   games wrote) have their email, one each, and each email arrived once.

Preconditions: Django is set up; the games are not being written while these run.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1]
if str(SCRIPTS) not in sys.path:
    sys.path.insert(0, str(SCRIPTS))

from loadtest.check import check_games as check_log  # noqa: E402


def check_games(games, *, max_lag: float | None = None) -> dict:
    """What survived, per game (`games`: Game rows or ids), from the database alone:
    1. the stored state is the replay of the stored steps, the events table the engine log;
    2. phases numbered 1, 2, 3... without a gap; each ended phase ended by exactly one clock
       step (none when a player's step ended the game);
    3. each phase the clock ended lasted until its deadline and was ended by it: a phase
       advanced twice shows here, since the second advance ends the next phase early;
    4. with `max_lag`, each ended within `max_lag` seconds after its deadline.
    Returns counts, `problems` and `bad` (the ids of games with a problem)."""
    ids = [getattr(g, "pk", g) for g in games]
    return check_log(ids, [], max_lag=max_lag)


def check_emails(expected: Counter, arrived: Counter) -> dict:
    """`expected`: (to, subject) -> how many outbox rows asked for that message; `arrived`:
    (to, subject) -> how many times it was written or received. The property: some email
    was sent at all (a drill that wrote none proves nothing about "none twice"), and every
    row's message arrived exactly as often as rows asked for it."""
    twice = {k: n - expected[k] for k, n in arrived.items() if n > expected[k] and expected[k]}
    missing = {k: expected[k] - arrived[k] for k in expected if arrived[k] < expected[k]}
    unexpected = {k: n for k, n in arrived.items() if not expected[k]}
    problems = []
    if not sum(arrived.values()):
        problems.append("no email arrived at all")
    problems += [f"arrived {n} more time(s) than sent: {k}" for k, n in twice.items()]
    problems += [f"never arrived ({n}x): {k}" for k, n in missing.items()]
    problems += [f"arrived without an outbox row ({n}x): {k}" for k, n in unexpected.items()]
    return {"emails": sum(arrived.values()), "rows": sum(expected.values()),
            "twice": sum(twice.values()), "missing": sum(missing.values()),
            "unexpected": sum(unexpected.values()), "problems": problems}


def outbox_counter(rows) -> Counter:
    """(to, subject) -> rows, for `check_emails`'s `expected`."""
    return Counter((row.to, row.subject) for row in rows)


def check_result_notices(games, arrived: Counter) -> dict:
    """Each seat of `games` was told its private results (the deal tells every seat at
    least its role): one on-site result notice per message from 神的使者 (Notification of
    kind "result" in the seat's conversation). Each notice of a player who wants results by
    email has exactly one "results" outbox row naming the game, and each such row arrived
    (`arrived`: (to, subject) -> count) exactly once."""
    from games.models import Game, OutboxEmail
    from games.notifications import wants
    from messaging.models import Notification

    problems: list[str] = []
    out = {"games": 0, "result notices": 0, "result emails": 0, "arrived": 0,
           "problems": problems}
    for game in Game.objects.filter(pk__in=[getattr(g, "pk", g) for g in games]):
        out["games"] += 1
        for seat in game.seats.select_related("user__profile", "conversation").order_by("number"):
            user = seat.user
            notices = Notification.objects.filter(
                kind=Notification.Kind.RESULT, user=user,
                conversation=seat.conversation).count() if seat.conversation_id else 0
            out["result notices"] += notices
            if not notices:
                problems.append(f"game {game.pk} seat {seat.number}: no private result at all")
            rows = [r for r in OutboxEmail.objects.filter(kind="results", to=user.email)
                    if f"[{game.name}]" in r.subject or f"【{game.name}】" in r.subject]
            out["result emails"] += len(rows)
            if len(rows) != (notices if wants(user, "email_results") else 0):
                problems.append(f"game {game.pk} seat {seat.number}: {notices} result notices "
                                f"but {len(rows)} result emails")
            # All of a seat's result emails in one game share their address and subject.
            for key, n in Counter((r.to, r.subject) for r in rows).items():
                out["arrived"] += min(arrived[key], n)
                if arrived[key] != n:
                    problems.append(f"game {game.pk} seat {seat.number}: {n} result emails "
                                    f"but {arrived[key]} arrived")
    if not out["result notices"]:
        problems.append("no result notice at all")
    return out
