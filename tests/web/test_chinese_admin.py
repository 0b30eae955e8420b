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
pages (tests/web/test_chinese_player_pages.py). The checks and the games' builder are shared
with the players' crawl (tests/factories/chinese.py); the admin allows a few more words.
"""

from __future__ import annotations

import re
from collections import deque
from html import unescape

import pytest

from games.models import Game, Phase, ReminderSent
from games.services import (
    abort_game,
    add_co_gm,
    answer_watch_request,
    create_game,
    update_settings,
    watch,
)
from tests.factories import chinese as zh
from tests.factories import fresh
from tests.factories.chinese import engine_keys, played

pytestmark = pytest.mark.django_db

NAMES = [f"{c}君" for c in "甲乙丙丁戊己庚辛壬癸子丑"]
# Latin words an admin page may show besides those of any Chinese page (zh.ALLOWED): brand
# and format names, keys and a protocol named in Django's own Chinese help texts, the
# password hashers' names in the user page's password summary.
ALLOWED = zh.ALLOWED | {
    "GM",
    "HTML",
    "JavaScript",
    "Chromium",
    "Redis",
    "Celery",
    # keys and a protocol named in Django's own Chinese help texts
    "Control",
    "Command",
    "Mac",
    "LDAP",
    # the password hashers' names in the user page's password summary
    "md5",
    "pbkdf2_sha256",
    "argon2",
    "bcrypt_sha256",
    "scrypt",
}
_HREF = re.compile(r'href="(/admin/[^"#]*)"')


def findings_of(url: str, html: str, keys: set[str]) -> list[str]:
    return zh.findings_of(url, html, keys, ALLOWED)


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
        "draft": create_game(name="草稿局", ruleset="gold", gm=host, seat_count=3),
    }
    if games["aborted"].is_live:
        abort_game(game_id=games["aborted"].pk, gm=host, reason="")
    for game in games.values():
        add_co_gm(game_id=game.pk, gm=host, user=root)
    # the console's requests to watch: one waiting, one approved (an outsider each)
    classic = update_settings(game_id=games["running classic"].pk,
                              changes={"outsiders": Game.Outsiders.REQUEST})
    watch(game_id=classic.pk, user=make_user("看客君"))
    answer_watch_request(game_id=classic.pk, gm=host, approve=True,
                         watcher_id=watch(game_id=classic.pk, user=make_user("旁观君")).pk)
    running = games["running ninelives"]
    ReminderSent.objects.create(
        phase=Phase.objects.filter(game=running).last(),
        user=running.seats.get(number=0).user,
        hours=6,
        first_hours=6,
    )
    return host, root, {k: fresh(g) for k, g in games.items()}


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
    assert not found, zh.report(found)
