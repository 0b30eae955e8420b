"""The admin in Chinese for the 天神: every page reachable by links from the admin index —
the games list, each game's settings page, the console, the end-phase and rollback pages,
the guide, every record list and one or two rows of each — read in zh-hans by a plain staff
GM (a host, no model permissions) and by a superuser, shows

1. no English word (outside ALLOWED: brand names, a few ids);
2. no engine key (phase, event and step kinds, camps, cards, option keys: read from the
   rule-set table and the engines);
3. no JSON object or list ('{"', '["');
4. no 0-based seat ("0号", "0. 阿猫", a seat column or an audience holding 0).

The games are a running game of each rule set (played a few random steps through the
services, with Chinese texts), a finished one, an aborted one and a draft; the GM runs them
all and the superuser is their co-GM (so both reach every console). What a page shows is its
text with the tags removed, plus the words on its buttons and in its placeholders; verbatim
data kept for superusers (raw JSON inside <pre lang="zxx">) is no text, as on the players'
pages (tests/web/test_chinese_pages.py).
"""

from __future__ import annotations

import random
import re
from collections import deque
from html import unescape

import pytest

from games import rulesets, services
from games.engine import registry
from games.engine.base import action
from games.engine.ninelives.cards import CARDS
from games.models import Game, Phase, ReminderSent
from tests.factories import fresh

pytestmark = pytest.mark.django_db

NAMES = [f"{c}君" for c in "甲乙丙丁戊己庚辛壬癸子丑"]
WORDS = "夜色如墨，屋顶上的猫数着自己剩下的命，风从巷口吹来，谁也不知道明天会怎样。"
# Latin words a Chinese page may show: brand and format names, the zone's name.
ALLOWED = {
    "GM",
    "Markdown",
    "HTML",
    "SHA",
    "UTC",
    "Asia",
    "Shanghai",
    "JavaScript",
    "JSON",
    "Chromium",
    "Redis",
    "Celery",
    # keys and a protocol named in Django's own Chinese help texts
    "Control",
    "Command",
    "Mac",
    "LDAP",
    # a language named in its own tongue (the profile's language picker)
    "English",
    # the password hashers' names in the user page's password summary
    "md5",
    "pbkdf2_sha256",
    "argon2",
    "bcrypt_sha256",
    "scrypt",
}
GOLD_CARDS = ("KILLER", "ASSASSIN", "THIEF")

_DROPPED = re.compile(
    r"<(script|style|pre|code|textarea)\b.*?</\1\s*>"
    r"|<(?!html\b)(\w+)[^>]*\blang=\"zxx\"[^>]*>.*?</\2>",
    re.S | re.I,
)
_TAG = re.compile(r"<[^>]*>")
_SHOWN_ATTRS = re.compile(
    r'<input[^>]*\btype="(?:submit|button)"[^>]*\bvalue="([^"]*)"'
    r'|\bplaceholder="([^"]*)"',
    re.I,
)
_HEADINGS = re.compile(r"<(h[1-6])\b.*?</\1\s*>", re.S | re.I)  # "0. 你需要什么": a section
_HREF = re.compile(r'href="(/admin/[^"#]*)"')
# Ids a page may show in Latin letters: e-mail addresses, usernames (the test users' uN and
# the messenger's), a hex digest (the SHA-256 commitment), a board's address (game-<hex>,
# gm-…), a masked password hash, a rule text's reference (I3, §10.4), the game's name.
_IDS = re.compile(
    r"[\w.+-]+@[\w-]+(\.[\w-]+)+|\bu\d+\b|\bmessenger\b|\b[0-9a-f]{16,}\b"
    r"|\b(?:gm-)?game-[0-9a-z-]+|\S*\*{4,}\S*|\bI\d+\b|猫有n条命"
)
# A seat counted from 0 as a person reads it.
_ZERO_SEATS = re.compile(r"(?<![\d.])0号|\bseat 0\b|(?<![\d.:])0\. \S|(?<![\d.])0 · |第0座")
# A seat column or an audience cell holding an engine index (0-based) or a raw list of them.
_ZERO_CELLS = re.compile(
    r'class="field-(number|seat|actor|voter|target)">\s*0\s*<'
    r'|class="field-audience">[^<]*\d'
)


def engine_keys() -> set[str]:
    """Every key a rule set's engine uses that a person should never read: its phases,
    event kinds, step kinds, camps, results, cards and option keys."""
    keys = {
        "ninelives",
        "classic",
        "gold",
        "civilian",
        "civilians",
        "killer",
        "wolf",
        "bandit",
        "police",
        "neutral",
        "free_agent",
        "tie",
        "win",
        "draw",
        "aborted",
        "finished",
        "running",
        "paused",
        "draft",
        "signup",
        "deadline",
        "early",
        "gm",
        "clock",
        "hand_dealt",
        "loss_order",
        "core_card",
        "taint",
        "taints",
        "deal",
        "seats",
        "cards",
        "players",
        "proxy",
        "abstain",
        "speak",
        "speech",
        "pass",
    }
    for entry in rulesets.TABLE.values():
        keys |= set(entry.phases) | set(entry.event_kinds)
        keys |= {option.key for option in entry.options}
        keys |= set(entry.engine.default_config())
        keys |= set(entry.presets[0].durations)
    keys |= set(CARDS) | set(GOLD_CARDS)
    return {k for k in keys if k}


def shown_text(html: str) -> str:
    """What a reader sees: the text without tags (verbatim data blocks left out), the
    buttons' words and the placeholders."""
    kept = _DROPPED.sub(" ", html)
    extra = " ".join(a or b for a, b in _SHOWN_ATTRS.findall(kept))
    return unescape(_TAG.sub(" ", kept) + " " + extra)


def findings_of(url: str, html: str, keys: set[str]) -> list[str]:
    if html.startswith("<p>HTTP "):
        return [f"a dead link: {url} answers {html[3:-4]}"]
    text = _IDS.sub(" ", shown_text(html))
    found = []
    for word in sorted(set(re.findall(r"[A-Za-z][A-Za-z0-9_]*", text))):
        if word in ALLOWED:
            continue
        at = text.find(word)
        where = " ".join(text[max(0, at - 30) : at + 30].split())
        kind = "engine key" if word in keys or word.lower() in keys else "English"
        found.append(f"{kind} {word!r} on {url}: …{where}…")
    for m in re.finditer(r'[{\[]\s*"', text):
        found.append(f"JSON on {url}: …{' '.join(text[m.start() : m.start() + 60].split())}…")
    unheaded = _IDS.sub(" ", shown_text(_HEADINGS.sub(" ", html)))
    for m in _ZERO_SEATS.finditer(unheaded):
        at = m.start()
        found.append(
            f"0-based seat on {url}: …{' '.join(unheaded[max(0, at - 20) : at + 20].split())}…"
        )
    for m in _ZERO_CELLS.finditer(html):
        found.append(f"0-based seat cell on {url}: {m.group(0)[:60]}")
    return found


SKIPPED = (
    "/admin/logout/",
    "/admin/password_change/",
    "/admin/jsi18n/",
    "/admin/autocomplete/",
    "/delete/",
    "/history/",
    "/admin/r/",
    "/guide/img/",
    "/winrates/",
    "/password/",
)
_CHANGE = re.compile(r"^/admin/(\w+)/(\w+)/(\d+)/change/$")


def crawl(client, limit_per_model: int = 2) -> dict[str, str]:
    """Every admin page reached by links from the index (GET only): {url: html}. Query
    strings are dropped (sorting and filter links show the same words), but for the
    rollback page's choices; a model's change pages are followed for its first rows only,
    except every game's."""
    seen, pages, per_model = {"/admin/"}, {}, {}
    todo = deque(["/admin/"])
    while todo:
        url = todo.popleft()
        response = client.get(url)
        if response.status_code != 200:  # a link the reader cannot follow
            pages[url] = f"<p>HTTP {response.status_code}</p>"
            continue
        html = response.content.decode()
        pages[url] = html
        for link in _HREF.findall(unescape(html)):
            path, _q, query = link.partition("?")
            if any(s in path for s in SKIPPED):
                continue
            if path.endswith("/rollback/") and query.startswith("kind="):
                path = f"{path}?{query}"
            change = _CHANGE.match(path)
            if path in seen:
                continue
            if change and change.group(2) != "game":
                model = change.group(1, 2)
                if per_model.get(model, 0) >= limit_per_model:
                    continue
                per_model[model] = per_model.get(model, 0) + 1
            seen.add(path)
            todo.append(path)
    return pages


def chinese_fill(choice, actor, rng: random.Random) -> dict:
    """The step a player would submit for `choice`, with Chinese texts of a legal length."""
    texts = {}
    for f in choice.text_fields:
        if f.required or rng.random() < 0.5:
            n = max(f.min_chars, 1 if f.required else 0, min(f.max_chars, 20))
            texts[f.name] = (WORDS * (n // len(WORDS) + 1))[:n]
    return action(actor, choice.kind, **choice.params, **texts)


def played(ruleset: str, users, gm, seed: int, steps: int, name: str) -> Game:
    """A game of `ruleset` played `steps` random legal steps through the services (the GM
    ends a phase now and then); left as it is then (running, or over)."""
    engine = registry.get(ruleset)
    seats = max(engine.min_seats, min(len(users), engine.max_seats))
    turbo = rulesets.get(ruleset).presets[-1]
    game = services.create_game(
        name=name,
        ruleset=ruleset,
        gm=gm,
        seat_count=seats,
        durations=dict(turbo.durations),
        change_cutoff_minutes=turbo.cutoff,
        early_end=False,
    )
    game = services.start_game(game_id=game.pk, users=users[:seats], seed=f"admin-{seed}")
    rng = random.Random(seed)
    for _ in range(steps):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
        movers = [
            s for s in game.seats.order_by("number") if engine.legal_actions(game.state, s.number)
        ]
        if not movers or rng.random() < 0.25:
            services.end_phase_now(game_id=game.pk, gm=gm)
            continue
        seat = rng.choice(movers)
        step = chinese_fill(
            rng.choice(engine.legal_actions(game.state, seat.number)), seat.number, rng
        )
        try:
            services.submit_action(
                game_id=game.pk, user=seat.user, kind=step["kind"], params=step["params"]
            )
        except services.GameError:
            pass
    return fresh(game)


@pytest.fixture
def admin_world(make_user):
    """The GM (a plain staff host), the superuser (co-GM of every game) and the games; the
    game clock runs (its heartbeat is fresh: no "the clock has stopped" notice, which names
    the processes to restart for an operator)."""
    from config import health

    health.record_sweep_completed()
    users = [make_user(n) for n in NAMES]
    host = make_user("天神甲", staff=True, superuser=False)
    root = make_user("站长乙", staff=True)
    games = {
        "running ninelives": played("ninelives", users[:6], host, 3, 14, "九命进行局"),
        "running classic": played("classic", users, host, 5, 12, "经典进行局"),
        "running gold": played("gold", users[:4], host, 7, 10, "金币进行局"),
        "finished": played("ninelives", users[:5], host, 11, 400, "九命终局"),
        "aborted": played("classic", users, host, 13, 3, "经典中止局"),
        "draft": services.create_game(name="草稿局", ruleset="gold", gm=host, seat_count=3),
    }
    if games["aborted"].is_live:
        services.abort_game(game_id=games["aborted"].pk, gm=host, reason="")
    for game in games.values():
        services.add_co_gm(game_id=game.pk, gm=host, user=root)
    running = games["running ninelives"]
    ReminderSent.objects.create(
        phase=Phase.objects.filter(game=running).last(),
        user=running.seats.get(number=0).user,
        hours=6,
        first_hours=6,
    )
    return host, root, {k: fresh(g) for k, g in games.items()}


def report(found: list[str]) -> str:
    kinds = {}
    for f in found:
        kinds[f.split(" on ")[0].split(" '")[0]] = (
            kinds.get(f.split(" on ")[0].split(" '")[0], 0) + 1
        )
    return f"{len(found)} findings {kinds}:\n" + "\n".join(found[:300])


@pytest.mark.slow
@pytest.mark.parametrize("who", ["gm", "superuser"])
def test_every_admin_page_reads_in_chinese(client, chinese, admin_world, who):
    host, root, games = admin_world
    statuses = {k: g.status for k, g in games.items()}
    assert statuses == {
        "running ninelives": "running",
        "running classic": "running",
        "running gold": "running",
        "finished": "finished",
        "aborted": "aborted",
        "draft": "draft",
    }
    client.force_login(host if who == "gm" else root)
    pages = crawl(client)
    for game in games.values():
        assert f"/admin/games/game/{game.pk}/change/" in pages
        if game.is_live:
            assert f"/admin/games/game/{game.pk}/console/end-phase/" in pages
            assert f"/admin/games/game/{game.pk}/rollback/" in pages
        assert f"/admin/games/game/{game.pk}/console/" in pages
    assert "/admin/games/game/guide/" in pages
    for model in ("event", "action", "phase", "vote", "seat", "remindersent"):
        assert f"/admin/games/{model}/" in pages, model
    keys = engine_keys()
    found = [f for url, html in pages.items() for f in findings_of(url, html, keys)]
    assert not found, report(found)
