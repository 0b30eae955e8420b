"""Simulated players of 猫有n条命 for the load test; run by run.py.

Each locust user is one seat of one game, signed in with a session the driver created on
the server (LOADTEST_PLAYERS: a JSON list of {"session", "csrf", "game", "seat", "board",
"thread"}). A player reads the game page, the board and its threads, posts in the game's
discussion thread, acts through the act form (a random legal option of `#choice`, with a
random combination of its pickers where it has them) and votes
through the vote box above the current vote thread. Requests are named by page kind, so
locust's statistics are per page kind.

Every step the server answered "accepted" is written at the end to LOADTEST_ACCEPTED (one
JSON object per line) for the after-run check; refusals (a phase that ended meanwhile, a vote
already cast) are expected under load and only counted.

With LOADTEST_FOLLOW=1 (the soak) the driver may rewrite the players file while the bots run
(a game that ended is replaced by a new one for the same people): each bot then follows its
session to its new game, seat, board and thread.
"""

from __future__ import annotations

import html
import itertools
import json
import os
import random
import re
from collections import Counter

from locust import HttpUser, events, task

PLAYERS = json.loads(open(os.environ["LOADTEST_PLAYERS"], encoding="utf-8").read())
NEXT_PLAYER = itertools.count()
FOLLOW = os.environ.get("LOADTEST_FOLLOW") == "1"
_seen = {"mtime": 0.0, "by_session": {}}


def current(session: str) -> dict | None:
    """The players file's newest record for `session` (re-read when the file changed)."""
    path = os.environ["LOADTEST_PLAYERS"]
    mtime = os.stat(path).st_mtime
    if mtime != _seen["mtime"]:
        rows = json.loads(open(path, encoding="utf-8").read())
        _seen.update(mtime=mtime, by_session={r["session"]: r for r in rows})
    return _seen["by_session"].get(session)
ACCEPTED: list[dict] = []
OUTCOMES: Counter = Counter()  # ("act"|"vote"|"post", "accepted"|"refused") -> count
WAIT = [float(x) for x in os.environ.get("LOADTEST_WAIT", "1,5").split(",")]
MANIFESTO = ("这是一份宣言：我以自己的名义使用这张牌，理由写在这里，供神的使者与主持人审阅。"
             "夜色很深，猫有九条命，而我只想把这一局玩得明明白白、光明正大。") * 2

# The act form's options: the value, and the combinations of an option with pickers.
OPTION = re.compile(r'<option value="([^"]*)"(?: data-combos="([^"]*)")?>')
THREAD_LINK = re.compile(r'<li class="thread-row kind-(\w+)[^"]*">.*?<a class="title" '
                         r'href="/t/(\d+)/"', re.S)
HIDDEN = re.compile(r'<input type="hidden" name="(\w+)" value="([^"]*)">')
RADIO = re.compile(r'<input type="radio" name="target" value="(-?\d+)"')
FLASH = re.compile(r'<ul class="messages"[^>]*><li class="(\w+)')
ERROR = re.compile(r'(?:class="errorlist[^"]*"|role="alert")[^>]*>(?:<li>)?([^<]{1,120})')


@events.test_stop.add_listener
def write_accepted(**_kwargs):
    """Hand the accepted steps and the outcome counts to the driver."""
    with open(os.environ["LOADTEST_ACCEPTED"], "w", encoding="utf-8") as out:
        for record in ACCEPTED:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        out.write(json.dumps({"outcomes": {f"{k[0]} {k[1]}": n
                                           for k, n in OUTCOMES.items()}}) + "\n")


class Player(HttpUser):
    def wait_time(self) -> float:
        """Between two requests: a pause, and (the soak) a look at the players file."""
        self.follow()
        return random.uniform(*WAIT)

    def on_start(self):
        # Users are spawned one by one: each takes the next seat (more users than seats wrap).
        self.me = PLAYERS[next(NEXT_PLAYER) % len(PLAYERS)]
        self.client.cookies.set("sessionid", self.me["session"])
        self.client.cookies.set("csrftoken", self.me["csrf"])
        self.game = f"/games/{self.me['game']}/"

    def follow(self):
        """The soak: this seat's game may have been replaced since the last request."""
        if FOLLOW:
            newest = current(self.me["session"])
            if newest is not None and newest["game"] != self.me["game"]:
                self.me = newest
                self.game = f"/games/{newest['game']}/"

    def form(self, **fields) -> dict:
        return {"csrfmiddlewaretoken": self.me["csrf"], **fields}

    @task(4)
    def game_home(self):
        self.client.get(self.game, name="game home")

    @task(2)
    def board(self):
        self.client.get(f"/b/{self.me['board']}/", name="board")

    @task(4)
    def read_thread(self):
        page = random.choice(["", "?page=last"])
        self.client.get(f"/t/{self.me['thread']}/{page}", name="thread")

    @task(1)
    def post(self):
        body = f"第{random.randint(1, 10**6)}条发言：我觉得{random.randint(1, 6)}号很可疑。"
        with self.client.post(f"/t/{self.me['thread']}/reply/", data=self.form(body=body),
                              name="post reply (POST)", catch_response=True) as r:
            # A refusal (the posting rate limit) answers 4xx with the form; fine under load.
            if r.status_code < 500:
                OUTCOMES["post", "accepted" if r.history else "refused"] += 1
                r.success()

    @task(3)
    def act(self):
        """Read the seat's page; half of the time, take one of the offered actions."""
        r = self.client.get(f"{self.game}act/", name="act page")
        text = r.text or ""
        if 'id="choice"' not in text:
            return
        select = text.split('id="choice"', 1)[1].split("</select>", 1)[0]
        options = [(html.unescape(v), html.unescape(c)) for v, c in OPTION.findall(select)]
        options = [(v, c) for v, c in options if json.loads(v)["kind"] != "withdraw"]
        if not options or random.random() < 0.5:
            return
        value, combos = random.choice(options)
        fields = {"choice": value}
        data = json.loads(value)
        if data.get("picks"):  # an option with pickers: one combination the rules offer
            combo = random.choice(json.loads(combos))
            fields.update({f"pick_{key}": str(combo["params"][key]) for key in data["picks"]})
            data = {"kind": data["kind"], "params": {**data["params"], **combo["params"]}}
        for name in data.get("texts", ()):  # an attack with a manifesto, or with a story
            fields[f"text_{name}"] = MANIFESTO
        value = json.dumps({"kind": data["kind"], "params": data["params"]}, sort_keys=True)
        phase = dict(HIDDEN.findall(text)).get("phase", "")
        with self.client.post(f"{self.game}act/", data=self.form(phase=phase, **fields),
                              name="act (POST)", catch_response=True) as answer:
            flash = FLASH.search(answer.text or "")
            if answer.status_code != 200 or flash is None:
                said = ERROR.search(answer.text or "")
                answer.failure(f"no verdict shown (status {answer.status_code}): "
                               f"{html.unescape(said.group(1)) if said else ''} {value[:80]}")
                return
            chosen = json.loads(value)
            if flash.group(1) == "success":
                ACCEPTED.append({"game": self.me["game"], "seat": self.me["seat"],
                                 "kind": chosen["kind"], "params": chosen["params"]})
            OUTCOMES["act", "accepted" if flash.group(1) == "success" else "refused"] += 1

    @task(2)
    def vote(self):
        """Find the newest vote thread on the board; vote there if its box offers a vote."""
        r = self.client.get(f"/b/{self.me['board']}/", name="board")
        votes = [int(pk) for kind, pk in THREAD_LINK.findall(r.text or "") if kind == "vote"]
        if not votes:
            return
        thread = max(votes)
        page = self.client.get(f"/t/{thread}/", name="thread (vote box)")
        text = page.text or ""
        if 'id="vote-form"' not in text:
            return
        form = text.split('id="vote-form"', 1)[1].split("</form>", 1)[0]
        hidden = dict(HIDDEN.findall(form))
        targets = RADIO.findall(form)
        if not targets:
            return
        target = random.choice(targets)
        with self.client.post(f"{self.game}vote/", name="vote (POST)", catch_response=True,
                              headers={"Accept": "application/json"},
                              data=self.form(target=target, phase=hidden.get("phase", ""),
                                             kind=hidden.get("kind", "vote"),
                                             thread=str(thread))) as answer:
            if answer.status_code not in (200, 409):
                answer.failure(f"status {answer.status_code}")
                return
            answer.success()  # 409 is a clear refusal (phase over, already voted)
            if answer.json().get("ok"):
                ACCEPTED.append({"game": self.me["game"], "seat": self.me["seat"],
                                 "kind": hidden.get("kind", "vote"),
                                 "params": {"target": int(target)}})
                OUTCOMES["vote", "accepted"] += 1
            else:
                OUTCOMES["vote", "refused"] += 1
