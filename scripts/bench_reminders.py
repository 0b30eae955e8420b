#!/usr/bin/env python
"""The reminder sweep at scale: 10,000 running games in PostgreSQL, 100 reminders due.

Prints, in one run: the queries and the time of a reminder sweep that sends the 100 due
reminders (median of --repeat runs; between runs the rows it wrote are removed, the games
rescheduled and the tables vacuumed), the time of an idle game sweep (`services.sweep`,
nothing due; ten beside every busy sweep, five before and five after) and of an idle
reminder sweep (nothing due; five after every busy sweep), and the ratios. The worker nudge that follows the
commit (one broker message for the sweep's emails) is counted, not sent; the emails' text
is written by the sender (games.mail.DEFERRED), not by the sweep. Uses DATABASE_URL, default
postgres://postgres@127.0.0.1:5432/killinggames_bench_reminders (created if missing).

    .venv/bin/python scripts/bench_reminders.py [--games 10000] [--due 100]

Target: at most 7 queries (the ORM sweep's budget, which tests/services/test_reminders.py holds
with its savepoint as 9 statements) and at most 10× the idle game sweep.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DATABASE_URL",
                      "postgres://postgres@127.0.0.1:5432/killinggames_bench_reminders")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("LOG_LEVEL", "WARNING")
IDLE_EACH = 5  # idle sweeps of each kind timed beside each busy sweep


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--due", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--profile", action="store_true", help="cProfile one busy sweep")
    parser.add_argument("--sort", default="tottime", help="the profile's order (cumulative…)")
    args = parser.parse_args()

    from bench_http import ensure_database  # same folder

    ensure_database(os.environ["DATABASE_URL"])
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    call_command("migrate", verbosity=0)
    from django.contrib.auth import get_user_model

    from accounts.models import Profile
    from games import mail, reminders, services
    from games.models import Game, OutboxEmail, ReminderLook, ReminderSent, Seat
    from messaging.models import Notification
    from tests import toy

    toy.register()
    nudged: list[int] = []
    batches: list[int] = []

    def nudge_many(pks):  # the broker message after the commit: counted, not sent
        nudged.extend(pks)
        batches.append(len(pks))

    mail.nudge_many = nudge_many
    mail.nudge = lambda pk: None  # the setup's own emails (game starts)
    User = get_user_model()
    Game.objects.filter(name__startswith="bench-").delete()
    users = []
    for i in range(5):
        user = User.objects.get_or_create(username=f"bench{i}",
                                          defaults={"email": f"bench{i}@example.com"})[0]
        Profile.objects.get_or_create(user=user, defaults={"display_name": f"bench{i}"})
        users.append(user)
    gm = User.objects.get_or_create(username="bench-gm", defaults={"is_staff": True})[0]

    t0 = time.perf_counter()
    # Night 1 of the toy rule set: each game's wolf owes a move, so one reminder per game.
    due = []
    for i in range(args.due):
        # 3-hour phases: the 1-hour mark is at most half the phase, so it is sent in them
        # (games/reminders.py scaled_marks)
        g = services.create_game(name=f"bench-due-{i}", ruleset="toy", gm=gm, seat_count=5,
                                 durations={"night": 3 * 60, "day": 3 * 60})
        due.append(services.start_game(game_id=g.pk, users=users))
    template = due[0]
    future = max(g.deadline for g in due) + dt.timedelta(days=3)
    idle = Game.objects.bulk_create([
        Game(name=f"bench-idle-{i}", ruleset="toy", seat_count=5, status="running",
             state=template.state, phase_name="night", phase_number=1, deadline=future,
             current_phase=None)
        for i in range(args.games - args.due)], batch_size=2000)
    ReminderLook.schedule({g.pk: future for g in idle})  # 48 h before their deadline
    Seat.objects.bulk_create([Seat(game=g, number=n, user=users[n]) for g in idle
                              for n in range(5)], batch_size=5000)
    # The 9,900 games and 49,500 seats built here are not the worker's: a worker holds none
    # of them, and kept alive they make every garbage collection during the measured sweeps
    # walk them (it was most of the "busy" time).
    del idle
    gc.collect()
    setup = time.perf_counter() - t0
    with connection.cursor() as c:
        c.execute("ANALYZE games_game")
        c.execute("ANALYZE games_seat")
        c.execute("ANALYZE games_reminderlook")
    running = Game.objects.filter(status="running").count()
    print(f"setup: {running} running games ({args.due} with a reminder due) in {setup:.1f} s")

    now = max(g.deadline for g in due) - dt.timedelta(minutes=20)  # inside the 1-hour mark
    due_ids = [g.pk for g in due]

    def reset():
        ReminderSent.objects.filter(phase__game_id__in=due_ids).delete()
        Notification.objects.filter(user__in=users, kind="deadline").delete()
        OutboxEmail.objects.filter(user__in=users, kind="reminders").delete()
        ReminderLook.objects.filter(game_id__in=due_ids).update(at=now - dt.timedelta(hours=1))
        # A real sweep never meets the dead rows of its own keys: reminder rows are never
        # deleted and written again, and a game's look is moved a few times a phase, not
        # twice a second. Without this, each repeat's claims check the dead rows the resets
        # left under the same keys (several times the claims' cost by the seventh) and the
        # next looks walk the looks' dead versions.
        with connection.cursor() as c:
            for model in (ReminderLook, ReminderSent, Notification, OutboxEmail):
                c.execute(f"VACUUM {connection.ops.quote_name(model._meta.db_table)}")

    gc_time = [0.0]
    gc_started = [0.0]

    def gc_clock(phase, info):
        if phase == "start":
            gc_started[0] = time.perf_counter()
        else:
            gc_time[0] += time.perf_counter() - gc_started[0]

    gc.callbacks.append(gc_clock)
    busy, queries = [], 0
    statement_times: list[list[float]] = []  # per busy sweep, each statement's time (s)
    idle_sweeps, idle_reminder_sweeps = [], []

    def timed(fn, samples, repeat=IDLE_EACH):
        for _ in range(repeat):
            t = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - t)

    # Each busy sweep between idle ones (game sweeps before and after it, reminder sweeps,
    # with nothing left due, after it), as the beat runs them: one now and then, not fifty in
    # a row (the fiftieth of a row runs about twice as fast as the first). On a noisy machine
    # the baseline and the figure then see the same moments.
    for _ in range(args.repeat):
        reset()
        timed(lambda: services.sweep(now=now), idle_sweeps)
        nudged.clear()
        batches.clear()
        timed_statements: list[float] = []
        statements: list[str] = []

        def clock(execute, sql, params, many, context, timed_statements=timed_statements,
                  statements=statements):
            started = time.perf_counter()
            try:
                return execute(sql, params, many, context)
            finally:
                timed_statements.append(time.perf_counter() - started)
                statements.append(" ".join(sql.split())[:90])

        # Timed as the idle sweeps are, without Django's query log (its debug cursor writes
        # each statement out again: half a millisecond of a busy sweep); the statements
        # are counted and timed by `clock` alone, and by the query log after the loop.
        with connection.execute_wrapper(clock):
            t = time.perf_counter()
            sent = reminders.send_due_reminders(now=now)
            busy.append(time.perf_counter() - t)
        queries = len(timed_statements)
        broker = len(batches)  # the worker nudges after the busy sweep's commit
        statement_times.append(timed_statements)
        if sent != args.due or len(nudged) != args.due:
            raise SystemExit(f"the sweep sent {sent} of {args.due} due reminders "
                             f"({len(nudged)} nudges)")
        timed(lambda: reminders.send_due_reminders(now=now), idle_reminder_sweeps)
        timed(lambda: services.sweep(now=now), idle_sweeps)
    busy_s = statistics.median(busy)
    print(f"garbage collection during the {args.repeat} busy sweeps: {gc_time[0] * 1000:.1f} ms")
    idle_sweep = statistics.median(idle_sweeps)
    idle_reminders = statistics.median(idle_reminder_sweeps)
    in_a_row: list[float] = []  # the baseline as the earlier figures took it: fifty at once
    timed(lambda: services.sweep(now=now), in_a_row, repeat=50)
    idle_in_a_row = statistics.median(in_a_row)
    connection.queries_log.clear()
    with CaptureQueriesContext(connection) as ctx:
        reminders.send_due_reminders(now=now)
    idle_queries = len(ctx)
    reset()  # one busy sweep more, untimed: its statements as Django's query log counts them
    with CaptureQueriesContext(connection) as ctx:
        reminders.send_due_reminders(now=now)
    logged = len([q for q in ctx.captured_queries if q["sql"] not in ("BEGIN", "COMMIT")])
    if logged != queries:
        raise SystemExit(f"the query log counts {logged} statements, the clock {queries}")
    if args.profile:
        import cProfile
        import pstats

        reset()
        prof = cProfile.Profile()
        gc.disable()  # its pauses land on whichever function runs then
        prof.runcall(reminders.send_due_reminders, now=now)
        gc.enable()
        pstats.Stats(prof).sort_stats(args.sort).print_stats(30)
    print(f"reminder sweep sending {args.due}:  {busy_s * 1000:8.1f} ms, {queries} queries "
          f"(median of {args.repeat}); {broker} broker message(s) after the commit")
    print(f"idle reminder sweep:           {idle_reminders * 1000:8.3f} ms, "
          f"{idle_queries} queries (median of {len(idle_reminder_sweeps)})")
    print(f"idle game sweep:               {idle_sweep * 1000:8.3f} ms "
          f"(median of {len(idle_sweeps)})")
    print(f"idle game sweep, 50 in a row:  {idle_in_a_row * 1000:8.3f} ms (median)")
    print(f"ratio busy reminders / idle game sweep:     {busy_s / idle_sweep:6.1f}  "
          f"(target <= 10)")
    print(f"  against the 50 in a row:                  {busy_s / idle_in_a_row:6.1f}")
    print(f"ratio busy reminders / idle reminder sweep: {busy_s / idle_reminders:6.1f}")
    reset()
    Game.objects.filter(name__startswith="bench-").delete()
    # Each statement's time as the driver saw it (round trip included; median of the busy
    # sweeps), beside its opening words.
    split = [statistics.median(times) * 1000 for times in zip(*statement_times, strict=True)]
    print("statements (median ms):\n  " + "\n  ".join(
        f"{ms:6.2f}  {sql}" for ms, sql in zip(split, statements, strict=True)))
    if queries > 7:
        raise SystemExit(f"{queries} queries (target <= 7)")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "scripts"))
    main()
