"""What a Chinese page may show, and games played through the services to read it: the checks
the Chinese crawls share (the admin's, tests/web/test_chinese_admin.py; the players',
tests/web/test_chinese_player_pages.py).

A page, read in zh-hans, may show

1. no English word (outside the crawl's allow-list: brand and format names, a few ids);
2. no engine key (phase, event and step kinds, camps, cards, option keys: read from the
   rule-set table and the engines; a snake_case word is one too);
3. no JSON object or list ('{"', '["');
4. no 0-based seat ("0号", "0. 阿猫", "seat 0", a seat column or an audience holding 0).

What a page shows is its text with the tags removed, plus the words on its buttons and in its
placeholders; verbatim data (raw JSON inside <pre lang="zxx">, code) is no text.
"""

from __future__ import annotations

import random
import re
from html import unescape

from games import rulesets, services
from games.engine import registry
from games.engine.base import action
from games.engine.ninelives.cards import CARDS
from games.models import Game
from tests.factories import fresh

WORDS = "夜色如墨，屋顶上的猫数着自己剩下的命，风从巷口吹来，谁也不知道明天会怎样。"
GOLD_CARDS = ("KILLER", "ASSASSIN", "THIEF")
# Latin words any Chinese page may show: the zone's name and offset (the footer's "显示时区：
# UTC+08:00 中国（上海）", the profile's zone picker "Asia/Shanghai"), the format names the
# pages name as such ("支持 Markdown", "事件记录（JSON）", the commitment's "SHA-256"), and
# English named in its own tongue (the profile's language picker).
ALLOWED = frozenset({"UTC", "Asia", "Shanghai", "Markdown", "JSON", "SHA", "English"})

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
# Ids a page may show in Latin letters: e-mail addresses, usernames (the test users' uN and
# the messenger's), a hex digest (the SHA-256 commitment), a board's address (game-<hex>,
# gm-…, grave-…), a masked password hash, a rule text's reference (I3, §10.4), the game's name.
IDS = re.compile(
    r"[\w.+-]+@[\w-]+(\.[\w-]+)+|\bu\d+\b|\bmessenger\b|\b[0-9a-f]{16,}\b"
    r"|\b(?:gm-|grave-)?game-[0-9a-z-]+|\S*\*{4,}\S*|\bI\d+\b|猫有n条命"
)
# A seat counted from 0 as a person reads it.
ZERO_SEATS = re.compile(r"(?<![\d.])0号|\bseat 0\b|(?<![\d.:])0\. \S|(?<![\d.])0 · |第0座")
# A seat column or an audience cell holding an engine index (0-based) or a raw list of them.
_ZERO_CELLS = re.compile(
    r'class="field-(number|seat|actor|voter|target)">\s*0\s*<'
    r'|class="field-audience">[^<]*\d'
)


def engine_keys() -> set[str]:
    """Every key a rule set's engine uses that a person should never read: its phases,
    event kinds, step kinds, camps, results, cards and option keys."""
    keys = {
        "ninelives", "classic", "gold", "civilian", "civilians", "killer", "wolf", "bandit",
        "police", "neutral", "free_agent", "tie", "win", "draw", "aborted", "finished",
        "running", "paused", "draft", "signup", "deadline", "early", "gm", "clock",
        "hand_dealt", "loss_order", "core_card", "taint", "taints", "deal", "seats", "cards",
        "players", "proxy", "abstain", "speak", "speech", "pass",
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


def text_findings(where: str, text: str, keys: set[str], allowed=ALLOWED) -> list[str]:
    """Findings 1-3 in a text a reader sees (ids already taken out by the caller)."""
    found = []
    for word in sorted(set(re.findall(r"[A-Za-z][A-Za-z0-9_]*", text))):
        if word in allowed:
            continue
        at = text.find(word)
        context = " ".join(text[max(0, at - 30) : at + 30].split())
        key = word in keys or word.lower() in keys or re.fullmatch(r"[a-z]+(_[a-z0-9]+)+", word)
        found.append(f"{'engine key' if key else 'English'} {word!r} on {where}: …{context}…")
    for m in re.finditer(r'[{\[]\s*"', text):
        found.append(f"JSON on {where}: …{' '.join(text[m.start() : m.start() + 60].split())}…")
    return found


def findings_of(url: str, html: str, keys: set[str], allowed=ALLOWED) -> list[str]:
    """Everything wrong with a page read in Chinese (the four kinds above)."""
    if html.startswith("<p>HTTP "):
        return [f"a dead link: {url} answers {html[3:-4]}"]
    found = text_findings(url, IDS.sub(" ", shown_text(html)), keys, allowed)
    unheaded = IDS.sub(" ", shown_text(_HEADINGS.sub(" ", html)))
    for m in ZERO_SEATS.finditer(unheaded):
        at = m.start()
        found.append(
            f"0-based seat on {url}: …{' '.join(unheaded[max(0, at - 20) : at + 20].split())}…"
        )
    for m in _ZERO_CELLS.finditer(html):
        found.append(f"0-based seat cell on {url}: {m.group(0)[:60]}")
    return found


def report(found: list[str]) -> str:
    kinds: dict[str, int] = {}
    for f in found:
        kind = f.split(" on ")[0].split(" '")[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    return f"{len(found)} findings {kinds}:\n" + "\n".join(found[:300])


# --- games to read -----------------------------------------------------------------------------

def chinese_fill(choice, actor, rng: random.Random) -> dict:
    """The step a player would submit for `choice`, with Chinese texts of a legal length."""
    texts = {}
    for f in choice.text_fields:
        if f.required or rng.random() < 0.5:
            n = max(f.min_chars, 1 if f.required else 0, min(f.max_chars, 20))
            texts[f.name] = (WORDS * (n // len(WORDS) + 1))[:n]
    return action(actor, choice.kind, **choice.params, **texts)


def played(ruleset: str, users, gm, seed: int, steps: int, name: str, *,
           until=None) -> Game:
    """A game of `ruleset` played `steps` random legal steps through the services (the GM
    ends a phase now and then); left as it is then (running, or over), or as soon as
    `until(game)` holds."""
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
        if game.status != Game.Status.RUNNING or (until is not None and until(game)):
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
