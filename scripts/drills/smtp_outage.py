#!/usr/bin/env python
"""Drill: the SMTP server stopped while reminders and private-result notices fall due.

A real SMTP sink (aiosmtpd, in this process) receives the mail; a real Celery worker with
an embedded beat runs the outbox, the reminders and the sweep against the drill's own
PostgreSQL database. The drill:
1. starts the sink, the worker and beat, and waits until the worker runs tasks;
2. stops the sink, then starts GAMES toy games whose players want results and a reminder
   1 h before the deadline, each an hour into a two-hour night (common.hour_left), so every
   reminder is due at once and stays true for an hour: the deal notices and the reminders
   are written as outbox rows and fail to send;
3. keeps the sink stopped for --outage seconds (default 120), and in any case until every
   game's reminder is recorded and every outbox row of its players has failed at least
   once; then restarts it on the same port;
4. waits until every outbox row is sent and the worker has run what was queued by then
   (common.drained: a second send would have happened), and checks
   (scripts/drills/checks.py): messages arrived at all, every row's message arrived at the
   sink exactly once (none missing, none twice, none without a row), every reminder
   recorded (ReminderSent) has its message, and every seat's private results (the result
   notices the games wrote: 5 a game at the deal) have exactly one result email each,
   which arrived.
It waits on those states, never on a number of seconds (each wait has a generous limit).
`--canary` shows it can fail: once all is sent, one row loses its "sent" mark, as an outbox
that forgot a delivery would, and is sent again; the drill must say FAIL ("received
twice").
It touches only its own rows: the outbox rows to its players' addresses, its `smtp` games
(stopped at the end).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/kg_mail_drill \\
        .venv/bin/python scripts/drills/smtp_outage.py [--outage 120] [--games 10] [--canary]
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import threading
import time

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/kg_mail_drill")
import checks  # noqa: E402
import common  # noqa: E402  (sets the drill's environment before Django)
from aiosmtpd.controller import Controller  # noqa: E402


class Sink:
    """Keeps every message it accepts: (to, subject, Message-ID) -> count."""

    def __init__(self):
        self.received: list[tuple[str, str, str]] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        from email import message_from_bytes
        from email.header import decode_header, make_header

        msg = message_from_bytes(envelope.content)
        subject = str(make_header(decode_header(msg["Subject"] or "")))
        with self.lock:
            for rcpt in envelope.rcpt_tos:
                self.received.append((rcpt, subject, msg["Message-ID"] or ""))
        return "250 OK"


LIMIT = 600  # seconds any one wait may take before the drill gives up


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--outage", type=float, default=120)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--canary", action="store_true",
                        help="send one delivered row again: the drill must FAIL")
    args = parser.parse_args()
    from bench_http import free_port

    port = free_port()
    os.environ.update(EMAIL_URL=f"smtp://127.0.0.1:{port}", EMAIL_TIMEOUT="5",
                      OUTBOX_INTERVAL_SECONDS="5", OUTBOX_RETRY_BASE_SECONDS="5",
                      OUTBOX_RETRY_MAX_SECONDS="40", REMINDER_INTERVAL_SECONDS="5",
                      LOG_LEVEL="WARNING")
    common.setup_django()
    from django.contrib.auth import get_user_model
    from django.db.models import Max, Sum
    from django.utils import timezone

    from accounts.models import Profile
    from games import services
    from games.models import Game, OutboxEmail, ReminderSent

    addresses = [f"smtp{i}@example.org" for i in range(5)]
    OutboxEmail.objects.filter(to__in=addresses).delete()  # a previous run's, never others'
    Game.objects.filter(name__startswith="smtp").delete()
    sink = Sink()
    smtp = Controller(sink, hostname="127.0.0.1", port=port)
    smtp.start()
    common.worker("mailworker", beat=True)
    if not common.drained(LIMIT):
        print(f"FAIL: the worker ran no task within {LIMIT} s")
        return 1

    smtp.stop()
    t_stop = time.time()
    print(f"SMTP sink on :{port} stopped (at least {args.outage:.0f} s)")
    User = get_user_model()
    gm = User.objects.get_or_create(username="smtpgm", defaults={"is_staff": True})[0]
    users = []
    for i in range(5):
        u = User.objects.get_or_create(username=f"smtp{i}",
                                       defaults={"email": f"smtp{i}@example.org"})[0]
        Profile.objects.update_or_create(user=u, defaults={
            "display_name": f"smtp{i}", "reminder_hours": "1", "email_results": True})
        users.append(u)
    games = []
    for n in range(args.games):
        game = services.create_game(name=f"smtp{n}", ruleset="toy", gm=gm, seat_count=5,
                                    durations={"night": 120, "day": 120}, early_end=False)
        games.append(services.start_game(game_id=game.pk, users=users))
    common.hour_left(games)  # every reminder due now, the night an hour from its end
    mine = OutboxEmail.objects.filter(to__in=addresses)
    # The outage lasts until every reminder is written and every row has failed once.
    written = common.wait_until(lambda: ReminderSent.objects.filter(
        phase__game__in=games).count() >= args.games and mine.exists()
        and not mine.filter(attempts=0).exists(), LIMIT)
    time.sleep(max(0.0, args.outage - (time.time() - t_stop)))  # the outage's length itself
    during = mine.filter(sent_at__isnull=False).count()
    failed_tries = mine.aggregate(n=Sum("attempts"))["n"] or 0
    smtp = Controller(sink, hostname="127.0.0.1", port=port)
    smtp.start()
    t_back = time.time()
    print(f"SMTP sink back after {t_back - t_stop:.0f} s")
    total = mine.count()
    ok = common.wait_until(lambda: not mine.filter(sent_at=None).exists(), LIMIT, 1)
    t_done = time.time()
    if args.canary:  # an outbox that forgot one delivery sends it again
        again = mine.exclude(sent_at=None).order_by("pk").first()
        OutboxEmail.objects.filter(pk=again.pk).update(sent_at=None,
                                                       next_attempt_at=timezone.now())
        common.wait_until(lambda: not mine.filter(sent_at=None).exists(), LIMIT, 1)
    drained = common.drained(LIMIT)  # anything sent twice has arrived by now
    common.stop_all()
    smtp.stop()

    rows = OutboxEmail.objects.filter(to__in=addresses)
    arrived = collections.Counter((to, subject) for to, subject, _mid in sink.received)
    emails = checks.check_emails(checks.outbox_counter(rows), arrived)
    results = checks.check_result_notices(games, arrived)
    reminders = ReminderSent.objects.filter(phase__game__in=games).count()
    reminder_rows = rows.filter(kind="reminders").count()
    figures = {
        "outage seconds": round(t_back - t_stop),
        "every reminder written and every row failed once during it": written,
        "outbox rows": total,
        "reminders recorded": reminders,
        "reminder emails (rows)": reminder_rows,
        "private-result notices (rows)": rows.filter(kind="results").count(),
        "sent during the outage": during,
        "failed attempts during the outage": failed_tries,
        "max attempts of one row": rows.aggregate(n=Max("attempts"))["n"],
        "all sent": ok,
        "seconds from SMTP back to the last sent": round(t_done - t_back, 1),
        "worker's queues drained after": drained,
        "messages received": len(sink.received),
        "received twice": emails["twice"],
        "rows without their message": emails["missing"],
        "messages without a row": emails["unexpected"],
        "private results (notices) in the games": results["result notices"],
        "their result emails": results["result emails"],
        "result emails arrived": results["arrived"],
        "given up": rows.exclude(failed_at=None).count(),
    }
    for key, value in figures.items():
        print(f"{key}: {value}")
    for line in (emails["problems"] + results["problems"])[:10]:
        print("   ", line)
    good = (ok and written and drained and not emails["problems"] and not results["problems"]
            and len(sink.received) == total and reminders == reminder_rows == args.games
            and during == 0 and figures["given up"] == 0)
    common.stop_games(games)
    print("PASS" if good else "FAIL")
    return 0 if good else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        common.stop_all()
