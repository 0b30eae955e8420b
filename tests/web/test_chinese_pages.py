"""Chinese everywhere: every page a player reaches by links from the home
page, read in zh-hans, shows no engine key (card codes such as WITCH_DOCTOR, camp keys, data
keys such as `uses`) and none of the English sentences that leaked before (the outcome line,
gold's "Seat 2 wins with 3 coins.", phase names "Pick 1" / "Operation 14"); and the same
pages still read in English for a player who chose English.

What a page shows is its text with the tags removed (a code in an attribute, such as
data-card="KILLER" or a link to #card-KILLER, is no text); verbatim data blocks are left out
(<pre>, lang="zxx": the deal's commitment text, hashed as it is). The rules engine's
explanations (the `because` chains of the review's timeline) are read like any other text, and
hold no English word at all. Players' own names are Chinese.
"""

from __future__ import annotations

import re

import pytest

from games.engine.ninelives.cards import CARDS
from games.models import Game
from tests.factories import fresh
from tests.proof.crawl import Tally, end_current_phase, fetch_all
from tests.web.test_review_rulesets import random_game

pytestmark = pytest.mark.django_db

GOLD_CARDS = ("KILLER", "ASSASSIN", "THIEF")
# Engine keys and English sentences seen on Chinese pages before.
LEAKED_WORDS = (
    "civilian", "killer", "wolf", "free_agent", "free agent", "uses", "null", "loss_order",
    "dealt_camp", "core_card", "face_down", "hand", "Every killer", "the civilians win",
    " wins with ", "coins.", "Pick ", "Operation ", "Priority ", "Night ", "Day ", "Seat ",
    "Result", "Winners", "Player list",
)
_DROPPED = re.compile(r"<(script|style|pre)\b.*?</\1\s*>"
                      r"|<(?!html\b)(\w+)[^>]*\blang=\"zxx\"[^>]*>.*?</\2>", re.S | re.I)
_TAG = re.compile(r"<[^>]*>")
_CHAIN = re.compile(r'<ul class="because">(.*?)</ul>', re.S)
# What an explanation may hold in Latin letters: the references to the rules (I12, 细则 5D).
_REFERENCES = re.compile(r"I\d+|\d[A-D]\b")


def visible(html: str) -> str:
    from html import unescape

    return unescape(_TAG.sub(" ", _DROPPED.sub(" ", html)))


def leaks(text: str) -> list[str]:
    found = [w for w in LEAKED_WORDS
             if re.search(rf"(?<![A-Za-z_/]){re.escape(w)}(?![A-Za-z_/])", text)]
    codes = set(CARDS) | set(GOLD_CARDS)
    found += sorted(c for c in codes if re.search(rf"(?<![A-Za-z_]){c}(?![A-Za-z_])", text))
    return found


def crawl(client, chains: dict[str, list[str]] | None = None) -> dict[str, str]:
    """Every page reached by links, as its visible text; `chains` collects each page's
    `because` items (the explanations' own text)."""
    from html import unescape

    pages = {}
    for page in fetch_all(client, ["/"], [], Tally()):
        if page.status == 200 and not page.url.endswith(".json"):
            html = client.get(page.url).content.decode()
            pages[page.url] = visible(html)
            if chains is not None:
                chains[page.url] = [unescape(_TAG.sub(" ", item)) for block in _CHAIN.findall(html)
                                    for item in re.findall(r"<li>(.*?)</li>", block, re.S)]
    return pages


def english_in_chains(chains: dict[str, list[str]], names: list[str]) -> dict[str, list[str]]:
    """The explanations that hold an English word (a reference to the rules, a player's name
    aside)."""
    found = {}
    for url, items in chains.items():
        for item in items:
            rest = _REFERENCES.sub("", item)
            for name in names:
                rest = rest.replace(name, "")
            if re.search(r"[A-Za-z]", rest):
                found.setdefault(url, []).append(item)
    return found


def finished(ruleset: str, make_user, names: list[str], gm_name: str) -> Game:
    users = [make_user(n) for n in names]
    gm = make_user(gm_name, staff=True)
    game, _accepted, _refused = random_game(ruleset, users, gm, seed=11)
    Game.objects.filter(pk=game.pk).update(name={"ninelives": "九命复盘局",
                                                   "gold": "金币复盘局",
                                                   "classic": "经典复盘局"}[ruleset])
    return fresh(game)


def context(text: str, word: str) -> str:
    at = text.find(word)
    return " ".join(text[max(0, at - 40):at + 40].split())


def assert_chinese(pages: dict[str, str]):
    found = {url: [(w, context(text, w)) for w in leaks(text)] for url, text in pages.items()}
    found = {url: words for url, words in found.items() if words}
    assert not found, f"English or engine keys on Chinese pages: {found}"


def test_a_running_game_reads_in_chinese_for_a_seated_player(client, chinese,
                                                             start_ninelives):
    game = start_ninelives()
    end_current_phase(game)
    client.force_login(fresh(game).seats.get(number=1).user)
    pages = crawl(client)
    assert f"/games/{game.pk}/act/" in pages and len(pages) >= 10
    assert_chinese(pages)


@pytest.mark.parametrize("ruleset", ["ninelives", "gold", "classic"])
def test_a_finished_game_reads_in_chinese(client, chinese, make_user, ruleset):
    names = [f"{'甲乙丙丁戊己庚辛壬癸子丑'[i]}君" for i in range(12)]
    game = finished(ruleset, make_user, names, "天神戊")
    client.force_login(game.seats.get(number=0).user)
    chains: dict[str, list[str]] = {}
    pages = crawl(client, chains)
    review = f"/games/{game.pk}/review/"
    assert review in pages and f"/games/{game.pk}/review/seat/1/" in pages
    assert_chinese(pages)
    assert len(chains[review]) > 20, "the review lists the explanations"
    assert chains[f"/games/{game.pk}/review/seat/1/"], "and so does a seat's review"
    assert english_in_chains(chains, [*names, "天神戊"]) == {}


def test_english_pages_still_read_in_english(client, chinese, make_user, start_ninelives):
    from accounts.models import Profile

    game = start_ninelives()
    end_current_phase(game)
    user = fresh(game).seats.get(number=1).user
    Profile.objects.filter(user=user).update(language="en")
    client.force_login(user)
    home = visible(client.get(game.get_absolute_url()).content.decode())
    act = visible(client.get(f"/games/{game.pk}/act/").content.decode())
    assert "Home" in home and "Today's vote" in home and "Seats" in home
    assert "My hand" in act and "首页" not in act and "今日投票" not in home


def test_every_model_has_a_chinese_name_in_the_admin(chinese, client, make_user):
    from django.apps import apps
    from django.utils import translation

    cjk = re.compile(r"[\u4e00-\u9fff]")
    with translation.override("zh-hans"):
        english = [m.__name__ for m in apps.get_models()
                   if m._meta.app_label in ("games", "messaging", "accounts")
                   and not (cjk.search(str(m._meta.verbose_name))
                            and cjk.search(str(m._meta.verbose_name_plural)))]
    assert english == []
    client.force_login(make_user("天神己", staff=True))
    index = visible(client.get("/admin/").content.decode())
    for word in ("Phases", "Events", "Outbox emails", "Announcements", "Signups"):
        assert word not in index
    assert "阶段" in index and "事件" in index
