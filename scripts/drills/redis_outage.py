#!/usr/bin/env python
"""Drill: Redis (cache and Celery broker) stopped for two minutes in the middle of a game,
then restarted.

What must survive:
1. pages keep answering 200 during the outage, and action submission keeps working (steps
   are written to PostgreSQL first; Redis carries no game data);
2. every step the server accepted is in the log;
3. the phases that fell due during the outage advance once Redis is back, exactly once;
4. reminder emails are not sent twice (each is recorded once per phase, user and hour
   before it is queued): no two emails with the same recipient, subject and text.

By default the drill starts its OWN redis-server on a free port and stops that one, so it
is safe beside other work. `--system` stops and restarts the machine's Redis instead
(a quiet machine only: every other user of that Redis loses it for the outage).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/killinggames_drill \
        .venv/bin/python scripts/drills/redis_outage.py [--outage 120] [--system]
"""

from __future__ import annotations

import argparse
import collections
import http.client
import os
import subprocess
import sys
import time
from email import message_from_string
from pathlib import Path
from urllib.parse import urlencode

import common

GAMES = 5


def start_redis(port: int, command: list[str] | None) -> subprocess.Popen | None:
    if command:  # the machine's own, restarted as it was started
        subprocess.run(command, check=True)
        return None
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                             "--save", "", "--appendonly", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    common.wait_until(lambda: subprocess.run(["redis-cli", "-p", str(port), "ping"],
                                             capture_output=True).returncode == 0, 20, 0.2)
    return proc


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--outage", type=float, default=120)
    parser.add_argument("--system", action="store_true",
                        help="stop the machine's Redis on 127.0.0.1:6379 (quiet machine only)")
    args = parser.parse_args()
    from bench_http import free_port

    mail_dir = Path(os.environ["VAR_DIR"]) / "mail"
    mail_dir.mkdir(parents=True, exist_ok=True)
    # django-environ drops one leading slash of the path
    os.environ["EMAIL_URL"] = f"filemail:///{mail_dir.resolve()}"
    system_command = None
    if args.system:
        port = 6379
        pid = subprocess.run(["redis-cli", "-p", "6379", "info", "server"], capture_output=True,
                             text=True).stdout.split("process_id:")[1].split()[0]
        system_command = Path(f"/proc/{pid}/cmdline").read_text().split("\0")[:-1]
        system_command += ["--daemonize", "yes"]
        redis = None
    else:
        port = free_port()
        redis = start_redis(port, None)
    os.environ["REDIS_URL"] = f"redis://127.0.0.1:{port}/14"
    os.environ["CELERY_BROKER_URL"] = os.environ["REDIS_URL"]
    common.setup_django()
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from django.middleware.csrf import _get_new_csrf_string

    from accounts.models import Profile
    from games.models import Action, Game, ReminderSent

    games = common.toy_games("redis-", GAMES, minutes=1.5)
    ids = [g.pk for g in games]
    Game.objects.filter(pk__in=ids).update(durations={"night": 1.5, "day": 60})
    users = {seat.user for g in games for seat in g.seats.select_related("user")}
    for user in users:
        user.email = f"{user.username}@example.org"
        user.save(update_fields=["email"])
        Profile.objects.filter(user=user).update(reminder_hours="1")
    sessions = {}
    for user in users:
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        sessions[user.pk] = (store.session_key, _get_new_csrf_string())
    web_port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    web = subprocess.Popen([sys.executable, "-m", "gunicorn", "config.wsgi", "-b",
                            f"127.0.0.1:{web_port}", "-w", "2", "--log-level", "warning"],
                           cwd=common.ROOT, env=env)
    common.PROCESSES.append(web)

    def request(method: str, path: str, user, data: dict | None = None) -> int:
        session, csrf = sessions[user.pk]
        conn = http.client.HTTPConnection("127.0.0.1", web_port, timeout=30)
        body = urlencode(dict(data or {}, csrfmiddlewaretoken=csrf)) if data else None
        conn.request(method, path, body, {
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"sessionid={session}; csrftoken={csrf}",
            "Referer": f"http://127.0.0.1:{web_port}/", "Host": f"127.0.0.1:{web_port}"})
        status = conn.getresponse().status
        conn.close()
        return status

    statuses = collections.Counter()
    accepted = []
    try:
        common.worker("redis-worker", beat=True)
        time.sleep(8)  # reminders of the night go out before the outage
        reminders_before = ReminderSent.objects.filter(phase__game_id__in=ids).count()
        if redis is not None:
            redis.terminate()
            redis.wait(10)
        else:
            subprocess.run(["redis-cli", "-p", str(port), "shutdown", "nosave"])
        down_at = time.time()
        acted = set()
        while time.time() - down_at < args.outage:
            for game in Game.objects.filter(pk__in=ids):
                for seat in game.seats.select_related("user"):
                    for path in (f"/games/{game.pk}/", f"/games/{game.pk}/act/"):
                        statuses["GET " + str(request("GET", path, seat.user))] += 1
                    if game.pk in acted or game.phase_name != "night":
                        continue
                    wolf = game.state["secret"]["wolf"]
                    if seat.number == wolf:
                        target = (wolf + 1) % 5
                        status = request("POST", f"/games/{game.pk}/act/", seat.user, {
                            "choice": f'{{"kind": "kill", "params": {{"target": {target}}}}}',
                            "phase": str(game.current_phase.seq)})
                        statuses["POST act " + str(status)] += 1
                        accepted.append((game.pk, seat.number))
                        acted.add(game.pk)
            time.sleep(2)
        redis = start_redis(port, system_command)
        up_at = time.time()
        nights_ended = common.wait_until(
            lambda: Action.objects.filter(game_id__in=ids, actor="clock").count() >= GAMES, 120)
        lag = time.time() - up_at
        time.sleep(10)  # more sweeps: nothing may advance twice; the day's reminders go out
    finally:
        common.stop_all()
        if redis is not None and not args.system:
            redis.terminate()
    result = common.check_games(games)
    logged = set(Action.objects.filter(game_id__in=ids, kind="kill").values_list(
        "game_id", "seat__number"))
    lost = [a for a in accepted if a not in logged]
    mails = collections.Counter()
    for path in mail_dir.glob("*.log"):
        for chunk in path.read_text().split("-" * 79):
            if chunk.strip():
                msg = message_from_string(chunk.strip())
                mails[(msg["To"], msg["Subject"], msg.get_payload())] += 1
    doubled = [k for k, n in mails.items() if n > 1]
    reminders = ReminderSent.objects.filter(phase__game_id__in=ids).count()
    print(f"Redis down for {args.outage:g} s ({'the machine' if args.system else 'own'} "
          f"redis-server), {GAMES} games whose night fell due during the outage")
    print(f"  requests during the outage: {dict(statuses)}")
    print(f"  steps answered during the outage: {len(accepted)}, missing from the log: "
          f"{len(lost)}")
    print(f"  nights advanced after Redis came back: {result['phases ended']} of {GAMES} "
          f"({'within' if nights_ended else 'NOT within'} 120 s; {lag:.1f} s), "
          f"ended twice: {result['double advances']}, not their log's replay: "
          f"{len(result['bad'])}")
    print(f"  reminders recorded: {reminders} ({reminders_before} before the outage); "
          f"emails written: {sum(mails.values())}, sent twice: {len(doubled)}")
    bad_pages = sum(n for k, n in statuses.items() if not k.endswith((" 200", " 302")))
    survived = (bad_pages == 0 and not lost and nights_ended and not result["bad"]
                and not result["double advances"] and not doubled)
    print("SURVIVED" if survived else "FAILED")
    return 0 if survived else 1


if __name__ == "__main__":
    sys.exit(main())
