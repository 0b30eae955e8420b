"""Connected pages: a seated player who starts at the home page and only
follows links reaches the game, its action page, today's vote thread, the rules page and the
conversation with 神的使者; every page has one breadcrumb trail that starts at 首页 and never
repeats a step ("大厅 › 大厅"); every <nav> has a name; the header's 神的使者 link opens the
conversation with the unread messages.

The crawl is the leak crawler's (tests/proof/crawl.py `fetch_all`): GET only, links and
redirects only, on this site, from "/".
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Game
from messaging import services as forum
from messaging.models import Thread
from tests.factories import fresh
from tests.proof.crawl import Tally, end_current_phase, fetch_all

pytestmark = pytest.mark.django_db


class _Navs(HTMLParser):
    """Every <nav>'s aria-label and, for the breadcrumb trail, its items' text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.navs: list[dict] = []
        self._crumbs: dict | None = None
        self._item: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "nav":
            nav = {"label": a.get("aria-label") or "", "class": a.get("class") or "",
                   "items": [], "links": []}
            self.navs.append(nav)
            if "crumbs" in nav["class"].split():
                self._crumbs = nav
        elif tag == "li" and self._crumbs is not None:
            self._item = []
            self._crumbs["current"] = a.get("aria-current")
        elif tag == "a" and self._crumbs is not None:
            self._crumbs["links"].append(a.get("href"))

    def handle_endtag(self, tag):
        if tag == "li" and self._crumbs is not None and self._item is not None:
            self._crumbs["items"].append("".join(self._item).strip())
            self._item = None
        elif tag == "nav":
            self._crumbs = None

    def handle_data(self, data):
        if self._item is not None:
            self._item.append(data)


def navs(html: str) -> list[dict]:
    parser = _Navs()
    parser.feed(html)
    return parser.navs


def day_one(start_ninelives) -> Game:
    """A 猫有n条命 game on day 1 (the clock ended night 1), so a vote thread is open."""
    game = start_ninelives()
    end_current_phase(game)
    return fresh(game)


def vote_thread_of(game: Game) -> Thread:
    return Thread.objects.get(board=game.board, key=f"vote-{game.current_phase.seq}")


def crawl_from_home(client: Client) -> dict[str, object]:
    tally = Tally()
    pages = fetch_all(client, ["/"], [], tally)
    return {p.url: p for p in pages}


def test_a_seated_player_reaches_every_page_of_the_game_by_links(client, chinese,
                                                                  start_ninelives):
    game = day_one(start_ninelives)
    seat = game.seats.get(number=2)
    client.force_login(seat.user)
    reached = crawl_from_home(client)
    ok = {url for url, page in reached.items() if page.status == 200}
    wanted = {
        "game home": reverse("game-home", args=[game.pk]),
        "act page": reverse("game-act", args=[game.pk]),
        "today's vote thread": vote_thread_of(game).get_absolute_url(),
        "rules page": reverse("rules-detail", args=["ninelives"]),
        "conversation with 神的使者": seat.conversation.get_absolute_url(),
        "game board": game.board.get_absolute_url(),
        "announcement thread": Thread.objects.get(board=game.board,
                                                  key="announcements").get_absolute_url(),
        "games list": reverse("game-list"),
    }
    missing = {what: url for what, url in wanted.items() if url not in ok}
    assert not missing, f"not reached by links from /: {missing}"
    assert all(page.status < 500 for page in reached.values())
    # The header's 神的使者 link (unread result of the deal) led to the game's conversation.
    assert reached[reverse("messaging-conversation-home")].status == 302


def test_the_game_pages_link_each_other(client, chinese, start_ninelives):
    game = day_one(start_ninelives)
    seat = game.seats.get(number=1)
    client.force_login(seat.user)
    thread = vote_thread_of(game)
    rules = reverse("rules-detail", args=["ninelives"])
    act = reverse("game-act", args=[game.pk])
    home_html = client.get(game.get_absolute_url()).content.decode()
    for href in (act, thread.get_absolute_url(), rules, game.board.get_absolute_url()):
        assert f'href="{href}"' in home_html, href
    assert "今日投票" in home_html
    act_html = client.get(act).content.decode()
    for href in (game.get_absolute_url(), thread.get_absolute_url(), rules):
        assert f'href="{href}"' in act_html, href
    # Each card of the seat's hand links its rule.
    hand = re.findall(r'<li class="card[^"]*" data-card="(\w+)"[^>]*><a href="([^"]+)"',
                      act_html)
    assert hand and all(href == f"{rules}#card-{code}" for code, href in hand)
    rules_html = client.get(rules).content.decode()
    assert all(f'id="card-{code}"' in rules_html for code, _href in hand)
    # The vote thread, the board and the conversation lead back to the game.
    for url in (thread.get_absolute_url(), game.board.get_absolute_url(),
                seat.conversation.get_absolute_url()):
        assert f'href="{game.get_absolute_url()}"' in client.get(url).content.decode(), url
    # The home page lists the player's game with its action page.
    lobby = client.get("/").content.decode()
    assert f'href="{game.get_absolute_url()}"' in lobby and f'href="{act}"' in lobby


def test_breadcrumbs_start_at_home_and_never_repeat_a_step(client, chinese, start_ninelives):
    game = day_one(start_ninelives)
    client.force_login(game.seats.get(number=0).user)
    forum.lobby_board()
    reached = crawl_from_home(client)
    checked = 0
    for url, page in reached.items():
        if page.status != 200 or url.endswith(".json"):
            continue
        html = client.get(url).content.decode()
        found = navs(html)
        assert all(n["label"] for n in found), f"{url}: a <nav> without aria-label"
        trails = [n for n in found if "crumbs" in n["class"].split()]
        if url == "/":
            assert trails == [], "the home page is the trail's start, not a step of it"
            continue
        assert len(trails) == 1, f"{url}: {len(trails)} breadcrumb trails"
        items = trails[0]["items"]
        assert items[0] == "首页" and trails[0]["links"][0] == "/", (url, items)
        assert all(a != b for a, b in zip(items, items[1:], strict=False)), (url, items)
        assert "大厅" not in items[:1]
        checked += 1
    assert checked >= 8
    board = client.get(game.board.get_absolute_url()).content.decode()
    trail = next(n for n in navs(board) if "crumbs" in n["class"])
    assert trail["items"] == ["首页", "游戏列表", game.name, "游戏版块"]


def test_the_header_link_opens_the_conversation_with_unread_messages(client, chinese,
                                                                      start_ninelives):
    game = day_one(start_ninelives)
    seat = game.seats.get(number=0)
    user = seat.user
    client.force_login(user)
    home = reverse("messaging-conversation-home")
    # The deal and night 1's results are unread in the game's conversation.
    assert seat.conversation.owner_unread > 0
    response = client.get(home)
    assert response.status_code == 302 and response["Location"] == \
        seat.conversation.get_absolute_url()
    client.get(response["Location"])  # read it
    seat.conversation.refresh_from_db()
    assert seat.conversation.owner_unread == 0
    # Nothing unread: still the game being played, not an empty general conversation.
    assert client.get(home)["Location"] == seat.conversation.get_absolute_url()
    # Unread in two conversations: the list, with both counts, each linked.
    general = forum.conversation_for(owner=user)
    forum.send_as_messenger(conversation=general, body="另一条消息")
    forum.send_as_messenger(conversation=seat.conversation, body="新的结果")
    response = client.get(home)
    assert response["Location"] == reverse("messaging-conversation-list")
    listing = client.get(response["Location"]).content.decode()
    for url in (reverse("messaging-conversation-general"),
                seat.conversation.get_absolute_url(), game.get_absolute_url()):
        assert f'href="{url}"' in listing, url
    # Only the general one unread: that one, right there.
    client.get(seat.conversation.get_absolute_url())
    response = client.get(home)
    assert response.status_code == 200 and "另一条消息" in response.content.decode()


def test_without_a_game_the_header_link_opens_the_general_conversation(client, make_user):
    user = make_user("路人丁")
    client.force_login(user)
    response = client.get(reverse("messaging-conversation-home"))
    assert response.status_code == 200
    assert 'id="message-form"' in response.content.decode()
    # Writing from there reaches the general conversation, as before.
    response = client.post(reverse("messaging-conversation-home"), {"body": "请问规则"})
    assert response.status_code == 302
    assert response["Location"] == reverse("messaging-conversation-general")
