"""The players' pages in Chinese: what a seated player (alive, and dead where the rule set
has deaths) and an anonymous visitor reach from a running and a finished game of each rule
set, read in zh-hans, show no English word, no engine key, no JSON object and no 0-based
seat: the checks of the admin's crawl (tests/web/test_chinese_admin.py), shared in
tests/factories/chinese.py, with the players' own short allow-list (ALLOWED, SHOWN_AS_IS: the
zone's name, the formats the pages name, English in its own tongue, URLs, the awards' names as
the rules write them).

The games, played through the services with Chinese texts: 猫有n条命 and Classic running until a
seat is dead (random legal steps; a 猫有n条命 game with nobody out after its first night has a
seat put out by the GM), gold running into its third phase; finished: 猫有n条命 and gold by
random legal steps, Classic by a fixed deal in few steps (`classic_finished`). The pages:
1. from the game's home page, every page of the game it links to: the vote thread and the
   other game threads, the board, the act page (行动), the seat's conversation with 神的使者,
   the review and (from it) the seats' reviews, the seats' posts, the commitment, the awards,
   the event log as JSON;
2. a reader's own pages: notices, the archive, the games list, the public profile (its
   record of games), the profile and its calendar page, the calendar feed (its texts);
3. `events.json`: each event's `text`, `explanation` and reasons' sentences (plain text)
   read as the pages are; every seat it names is the page's number for that seat:
   `players[].seat` as the game's home page numbers the player ("3号丙君"), every seat in
   `seats`, in `data` and in the reasons' arguments of `because` (by what the engine
   declares each field holds, docs/events-json.md) among 1..seats, and "N号name" in a
   sentence only with the player's own number.

A representative set, not every id: a thread's first page, two of the pages by seat, a
reader's own pages by the first player of each rule set and by the visitor.

Run against the code before reasons became data and this crawl's fix (commit 5b80040), it
reports 35 findings, all English: gold's panel numbered the virtual players "V1"…"V6" in the
table's first column, on the act page and on each seat's review.
"""

from __future__ import annotations

import json
import random
import re
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import Profile
from config import health
from games import services
from games.engine import registry
from games.models import Game
from games.web.events_export import reason_seats, seats_named
from messaging.models import Thread
from tests.factories import chinese as zh
from tests.factories import fresh

pytestmark = pytest.mark.django_db

NAMES = [f"{c}君" for c in "甲乙丙丁戊己庚辛壬癸子丑"]
# Latin words a player's page may show besides those of any Chinese page (zh.ALLOWED): the
# reply box's Markdown help says raw HTML shows as written; the calendar page names the
# format calendar applications read (iCalendar).
ALLOWED = zh.ALLOWED | {"HTML", "iCalendar"}
# Shown as they are: a URL (the Markdown help's "[链接](https://…)", a calendar entry's link)
# and the awards' names as the rules write them (seed 002 §11.2: MVP, Fair Play).
SHOWN_AS_IS = re.compile(r"https?://\S*|\bMVP\b|\bFair Play\b")
_HREF = re.compile(r'href="([^"#]*)"')


def has_dead(game: Game) -> bool:
    return game.seats.filter(alive=False).exists()


def after_phases(n: int):
    return lambda game: game.phases.count() >= n


def classic_finished(users, gm) -> Game:
    """A Classic game played to its end in few steps: a fixed deal (police at seats 1, 5 and
    9), the bandits kill a police officer each night and the day votes one out; every other
    awaited seat takes its first offer (a speech, last words, a check)."""
    deal = "PBCCPBCCPBC"
    roles = {"P": "police", "B": "bandit", "C": "civilian"}
    police = [s for s, c in enumerate(deal) if c == "P"]
    game = services.create_game(name="经典终局", ruleset="classic", gm=gm, seat_count=11,
                                config={"fixed_roles": [roles[c] for c in deal]})
    game = services.start_game(game_id=game.pk, users=users[:11], seed="players-zh")
    engine = registry.get("classic")

    def rank(choice) -> int:
        if choice.kind in ("kill", "vote"):
            return 0 if choice.params.get("target") in police else 1
        return 3 if choice.kind in ("withdraw", "abstain", "defer") else 2

    for _ in range(120):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
        awaiting = sorted(engine.phase(game.state).awaiting)
        if not awaiting:
            services.end_phase_now(game_id=game.pk, gm=gm)
            continue
        seat = game.seats.get(number=awaiting[0])
        choice = min(engine.legal_actions(game.state, seat.number), key=rank)
        step = zh.chinese_fill(choice, seat.number, random.Random(0))
        services.submit_action(game_id=game.pk, user=seat.user, kind=step["kind"],
                               params=step["params"])
    return fresh(game)


@pytest.fixture
def world(make_user):
    """The players, the GM and six games: a running and a finished one of each rule set. A
    running 猫有n条命 game with nobody out yet after its first night has its last seat put
    out by the GM (犯规出局), so that a dead player reads it too."""
    health.record_sweep_completed()  # the clock runs: no "the clock has stopped" notice
    users = [make_user(n) for n in NAMES]
    gm = make_user("天神甲", staff=True)
    nine = zh.played("ninelives", users[:5], gm, 3, 60, "九命进行局", until=after_phases(2))
    if nine.status == Game.Status.RUNNING and not has_dead(nine):
        services.gm_step(game_id=nine.pk, gm=gm, kind="foul_out",
                         params={"seat": 4, "reason": "连续两天没有发言。"})
    games = {
        ("ninelives", "running"): fresh(nine),
        ("ninelives", "finished"): zh.played("ninelives", users[5:10], gm, 1, 400, "九命终局"),
        ("classic", "running"): zh.played(
            "classic", users[:11], gm, 0, 80, "经典进行局",
            until=lambda g: has_dead(g) and g.phases.count() >= 3),
        ("classic", "finished"): classic_finished(users[1:12], gm),
        ("gold", "running"): zh.played("gold", users[6:9], gm, 7, 60, "金币进行局",
                                       until=after_phases(3)),
        ("gold", "finished"): zh.played("gold", users[9:11], gm, 1, 200, "金币终局"),
    }
    return users, gm, games


def viewers(game: Game) -> list:
    """(label, seat) of each reader of `game`: a living seat, a dead one where there is one,
    and the anonymous visitor (no seat)."""
    seats = list(game.seats.select_related("user").order_by("number"))
    out = [(f"seat {s.number + 1} (alive)", s) for s in seats if s.alive][:1]
    out += [(f"seat {s.number + 1} (dead)", s) for s in seats if not s.alive][:1]
    return out + [("anonymous", None)]


# Pages of one seat among many, which read alike for every seat: two of each are read.
BY_SEAT = re.compile(r"/games/\d+/(seat/\d+/posts|review/seat/\d+)/$")


def game_links(game: Game, html: str) -> list[str]:
    """The pages of `game` a page of it links to: its own pages (two of those by seat), its
    board, the threads of its board (first page each), the reader's conversations."""
    board = game.board
    threads = {str(pk) for pk in Thread.objects.filter(board=board).values_list("pk", flat=True)}
    out = []
    for href in _HREF.findall(unescape(html)):
        path = href.split("?")[0]
        if (path.startswith(f"/games/{game.pk}/") and "/do/" not in path
                or path == board.get_absolute_url()
                or path.startswith("/messenger/")
                or (m := re.fullmatch(r"/t/(\d+)/", path)) and m.group(1) in threads):
            out.append(path)
    kept, per_kind = [], {}
    for url in dict.fromkeys(out):
        if m := BY_SEAT.search(url):
            kind = re.sub(r"\d+", "N", m.group(1))
            per_kind[kind] = per_kind.get(kind, 0) + 1
            if per_kind[kind] > 2:
                continue
        kept.append(url)
    return kept


def own_pages(user) -> list[str]:
    if user is None:
        return ["/games/", "/games/archive/"]
    return ["/notifications/", "/games/archive/", "/games/", f"/u/{user.pk}/", "/profile/",
            "/profile/calendar/", "/messenger/"]


def calendar_findings(client: Client, user, keys) -> list[str]:
    """The calendar feed's texts (its names, summaries and descriptions)."""
    token = "feed-" + "x" * 30 + str(user.pk)
    Profile.objects.filter(user=user).update(calendar_token=token)
    body = client.get(f"/calendar/{token}.ics").content.decode()
    unfolded = re.sub(r"\r?\n[ \t]", "", body)
    texts = re.findall(r"^(?:SUMMARY|DESCRIPTION|LOCATION|X-WR-CALNAME)[^:]*:(.*)$", unfolded,
                       re.M)
    assert texts, body[:300]
    where = f"the calendar feed of {user}"
    return [f for t in texts for f in checked_text(where, t.replace("\\n", " "), keys)]


def page_findings(where: str, html: str, keys) -> list[str]:
    return zh.findings_of(where, SHOWN_AS_IS.sub(" ", html), keys, ALLOWED)


def checked_text(where: str, text: str, keys) -> list[str]:
    """A text of the export or the calendar feed, as the pages check theirs."""
    text = zh.IDS.sub(" ", SHOWN_AS_IS.sub(" ", text))
    found = zh.text_findings(where, text, keys, ALLOWED)
    found += [f"0-based seat in {where}: …{text[max(0, m.start() - 20):m.start() + 20]}…"
              for m in zh.ZERO_SEATS.finditer(text)]
    return found


def export_findings(url: str, body: str, home_text: str, keys) -> list[str]:
    """events.json: Chinese sentences; every seat numbered as the pages number it."""
    data = json.loads(body)
    found = []
    players = {p["seat"]: p["name"] for p in data["players"]}
    count = data["game"]["seats"]
    for seat, name in players.items():
        if f"{seat}号{name}" not in home_text.replace(" ", ""):
            found.append(f"0-based seat on {url}: players[] has {seat} for {name}, the game's "
                         f"page another number")
    outcome = data["game"]["outcome"] or {}
    found += checked_text(f"{url} (outcome)", outcome.get("text") or "", keys)
    for event in data["events"]:
        where = f"{url} (event {event['seq']}, {event['kind']})"
        # `text`, the explanation and each reason's sentence are plain text.
        because = [b["text"] for b in event["because"] if isinstance(b, dict) and "text" in b]
        for text in [event["text"], *event["explanation"], *because]:
            found += checked_text(where, text, keys)
            for n, name in re.findall(r"(\d+)号(" + "|".join(map(re.escape, NAMES)) + ")",
                                      text):
                if players.get(int(n)) != name:
                    found.append(f"0-based seat in {where}: '{n}号{name}'")
        ruleset = data["game"]["ruleset"]
        named = [*event["seats"], *seats_named(ruleset, event["kind"], event["data"]),
                 *[s for b in event["because"] if isinstance(b, dict)
                   for s in reason_seats(ruleset, b)]]
        bad = sorted({s for s in named if not 1 <= s <= count})
        if bad:
            found.append(f"0-based seat in {where}: seats {bad} (seats, data or because)")
    return found


def read(client: Client, url: str) -> tuple[int, str]:
    response = client.get(url)
    return response.status_code, response.content.decode("utf-8", "replace")


@pytest.mark.slow(seconds=60)
def test_every_page_a_player_reaches_reads_in_chinese(chinese, world):
    users, gm, games = world
    states = {k: fresh(g).status for k, g in games.items()}
    assert states == {k: ("running" if k[1] == "running" else "finished") for k in games}, states
    for ruleset in ("ninelives", "classic"):
        assert has_dead(games[(ruleset, "running")]), ruleset
    keys = zh.engine_keys()
    found: list[str] = []
    read_pages: set[tuple[str, str]] = set()
    # Each reader's own pages (notices, profile, record, calendar...) read alike for every
    # player: read by the first player of each rule set (they hold its running game's
    # deadlines and, in the finished game's rule sets, its record) and by the visitor.
    own_done: set[str] = set()
    reached: set[str] = set()
    for (ruleset, moment), game in games.items():
        health.record_sweep_completed()  # the clock still runs however long the crawl takes
        home_url = game.get_absolute_url()
        for label, seat in viewers(game):
            user = seat.user if seat else None
            client = Client()
            if user is not None:
                client.force_login(user)
            status, home = read(client, home_url)
            assert status == 200, (ruleset, moment, label)
            home_text = zh.shown_text(home)
            urls = [home_url, *game_links(game, home)]
            if seat is not None:  # the seat's conversation with 神的使者
                urls.append(reverse("messaging-conversation", args=[seat.conversation_id]))
            own = ("anonymous" if user is None else ruleset) not in own_done
            if own:
                urls += own_pages(user)
            for url in urls:  # grows: the review's links (each seat's review) are read too
                if (label, url) in read_pages:
                    continue
                read_pages.add((label, url))
                status, body = (200, home) if url == home_url else read(client, url)
                who = f"{url} [{ruleset} {moment}, {label}]"
                if status in (301, 302) or (status == 404 and user is None):
                    continue  # a sign-in page, another page read anyway, or one the visitor
                    # may not know of
                reached.add(re.sub(r"\d+", "N", url))
                if status != 200:
                    found.append(f"a dead link: {who} answers {status}")
                elif url.endswith(".json"):
                    found += export_findings(who, body, home_text, keys)
                else:
                    found += page_findings(who, body, keys)
                    if url.endswith("/review/"):
                        urls += [u for u in game_links(game, body) if u not in urls]
            if own and user is not None:
                found += calendar_findings(client, user, keys)
            own_done.add("anonymous" if user is None else ruleset)
    for page in ("/games/N/", "/games/N/act/", "/games/N/review/", "/games/N/events.json",
                 "/t/N/", "/messenger/N/", "/notifications/", "/games/archive/", "/u/N/",
                 "/profile/calendar/", "/games/N/review/seat/N/"):
        assert page in reached, (page, sorted(reached))
    assert not found, zh.report(found)
