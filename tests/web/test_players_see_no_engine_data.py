"""After the end players read the game in words, never the engine's data: the deal as a table
(seat, camp, cards, secret attributes) on the review and in the game-over announcement, the
GM's steps in the review's timeline as sentences, the archive's outcome filter in Chinese, and
events.json with the seats numbered as the pages number them (docs/events-json.md)."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from games.engine.base import GM
from games.models import Announcement, Game
from games.services.kernel import log_gm, ruleset_of
from tests.conftest import new_user
from tests.factories import fresh
from tests.web.test_review_rulesets import random_game

pytestmark = [pytest.mark.django_db]

RULESETS = ["ninelives", "classic", "gold"]
# The deal table's headings, in each rule set's own terms (games/presenters/deal.py).
DEAL_HEADS = {"ninelives": ["座位", "阵营", "牌", "秘密属性"],
              "classic": ["座位", "阵营", "身份", "暗中的变化"],
              "gold": ["座位", "最后一轮的手牌", "最后一轮亮出的牌", "最后一轮扣下的牌"]}
NAMES = [f"{'甲乙丙丁戊己庚辛壬癸子丑'[i]}君" for i in range(12)]
# What the engine's data looks like: a JSON object, a card or role code, a camp key.
ENGINE_DATA = re.compile(
    r'\{"|"seats"|\b[A-Z]{3,}(?:_[A-Z]+)*\b|\b[a-z]+_[a-z_]+\b|\b(?:killer|wolf|civilian|'
    r"bandit|police|free_agent|guardian|ghost|camp|cards|taints)\b"
)


def play_finished(ruleset: str, seed: int = 11, tag: str = "") -> Game:
    users = [new_user(n + tag) for n in NAMES]
    gm = new_user("天神戊" + tag, staff=True)
    for s in range(seed, seed + 10):  # a seeded random game that the rules ended
        game, _accepted, _refused = random_game(ruleset, users, gm, seed=s)
        if fresh(game).status == Game.Status.FINISHED:
            return fresh(game)
        users = [new_user(f"{n}{tag}{s}") for n in NAMES]
    raise AssertionError("no finished game")


@pytest.fixture(scope="module")
def games(module_db) -> dict[str, int]:
    """One finished game of each rule set, played once for the module's tests."""
    tags = {"gold": "", "ninelives": "一", "classic": "二"}  # display names are unique
    return {ruleset: play_finished(ruleset, tag=tags[ruleset]).pk for ruleset in RULESETS}


@pytest.fixture
def finished(games):
    """finished(ruleset) -> the module's finished game of that rule set."""
    return lambda ruleset: Game.objects.get(pk=games[ruleset])


def text_of(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


# --- the deal as a table ----------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_review_shows_the_deal_as_a_table_in_chinese(finished, ruleset, chinese, client):
    game = finished(ruleset)
    html = client.get(reverse("game-review", args=[game.pk])).content.decode()
    table = re.search(r'<table id="deal".*?</table>', html, re.S)
    assert table, "the deal is a table"
    rows = re.findall(r'<tr data-deal-seat="(\d+)">(.*?)</tr>', table.group(0), re.S)
    assert [int(n) for n, _row in rows] == list(range(1, game.seat_count + 1))
    names = dict(game.seats.values_list("number", "user__profile__display_name"))
    for number, row in rows:
        assert f"{number}号{names[int(number) - 1]}" in text_of(row)
    heads = text_of(re.search(r"<thead>.*?</thead>", table.group(0), re.S).group(0))
    assert heads == " ".join(DEAL_HEADS[ruleset])
    words = text_of(table.group(0))
    assert not ENGINE_DATA.search(words), ENGINE_DATA.search(words)
    assert '<pre id="deal"' not in html and "seat 1:" not in html
    assert '{"players"' not in html and "&quot;players&quot;" not in html


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_game_over_announcement_shows_the_deal_as_a_table(finished, ruleset, chinese):
    game = finished(ruleset)
    ann = Announcement.objects.filter(game=game, title="游戏结束").get()
    assert "| " + " | ".join(DEAL_HEADS[ruleset]) + " |" in ann.body
    table = [line for line in ann.body.splitlines() if line.startswith("| ")]
    assert len(table) == 1 + game.seat_count  # the heads and one row per seat
    assert "```" not in ann.body and '{"' not in ann.body and "seat 1:" not in ann.body
    rows = " ".join(table[1:])
    assert not ENGINE_DATA.search(rows), ENGINE_DATA.search(rows)
    assert "<table>" in ann.post.html if ann.post_id else True


def test_the_ninelives_deal_table_names_camps_cards_and_taints(
    chinese, start_ninelives, nl_gm, client
):
    from games import services
    from games.presenters.deal import deal_rows
    from tests.engine.ninelives.deals import FIVE

    game = start_ninelives()
    services.abort_game(game_id=game.pk, gm=nl_gm, reason="测试")
    html = client.get(reverse("game-review", args=[game.pk])).content.decode()
    rows = dict(re.findall(r'<tr data-deal-seat="(\d+)">(.*?)</tr>', html, re.S))
    from django.utils import translation

    from games.presenters.ninelives import camp_name, cards_text

    with translation.override("zh-hans"):
        for n, entry in enumerate(FIVE["seats"]):
            row = text_of(rows[str(n + 1)])
            assert camp_name(entry["camp"]) in row and cards_text(entry["cards"]) in row
        tainted = {c for cards in FIVE["taints"].values() for c in cards}
        marks = " ".join(
            r.attributes
            for r in deal_rows("ninelives", ruleset_of(game).view(fresh(game).state, GM), {})
        )
    assert "带杀手秘密属性" in marks and "带狼人秘密属性" in marks
    assert len(re.findall("秘密属性", marks)) == len(tainted)


def test_the_classic_deal_table_names_the_cards_in_words(finished, chinese, client):
    game = finished("classic")
    words = text_of(
        re.search(
            r'<table id="deal".*?</table>',
            client.get(reverse("game-review", args=[game.pk])).content.decode(),
            re.S,
        ).group(0)
    )
    assert "警方" in words and "匪方" in words
    assert not re.search(r"[a-z]", words)


# --- the timeline names the GM's steps --------------------------------------------------------


def test_the_review_timeline_names_the_gm_s_steps_in_words(finished, chinese, client, monkeypatch):
    from games.web import review

    monkeypatch.setattr(review, "PHASES_PER_PAGE", 1000)  # every phase on one page
    game = finished("gold")
    log_gm(game, game.gm, "open_signups", {})
    log_gm(game, game.gm, "draw_players", {"seed": "抽签种子"})
    log_gm(game, game.gm, "extend_deadline", {"minutes": 30})
    html = client.get(reverse("game-review", args=[game.pk])).content.decode()
    words = text_of(html)
    assert "天神戊 开放了报名。" in words
    assert "天神戊 抽签决定了玩家（种子 抽签种子）。" in words
    assert "天神戊 将截止时间延长了 30 分钟。" in words or "30" in words
    for raw in ("gm open signups", "gm draw players", "open_signups", "seed:", "gm:"):
        assert raw not in words


# --- the archive's filter ---------------------------------------------------------------------


def test_the_archive_s_outcome_filter_is_in_chinese(finished, chinese, client):
    for ruleset in RULESETS:
        finished(ruleset)
    Game.objects.filter(ruleset="gold").update(
        outcome={"result": "tie", "winners": [0, 1]}
    )
    html = client.get(reverse("game-archive")).content.decode()
    select = re.search(r'<select name="outcome">(.*?)</select>', html, re.S).group(1)
    options = dict(re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', select))
    assert options.pop("") == "全部"
    assert "tie" in options and options["tie"] == "多人并列获胜"
    for value, label in options.items():
        assert re.fullmatch(r"[a-z_]+", value), value  # the values stay the keys
        assert re.search(r"[\u4e00-\u9fff]", label) and not re.search(r"[A-Za-z]", label), label
    # a value chosen still filters
    assert client.get(reverse("game-archive") + "?outcome=tie").status_code == 200


# --- events.json ------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", RULESETS)
def test_events_json_numbers_seats_as_the_pages_do(finished, ruleset, chinese, client):
    from games.models import Event
    from games.web.events_export import seats_named

    game = finished(ruleset)
    data = client.get(reverse("game-events-json", args=[game.pk])).json()
    n = game.seat_count
    assert [p["seat"] for p in data["players"]] == list(range(1, n + 1))
    assert data["players"][0]["name"] == game.seats.get(number=0).user.profile.display_name
    stored = list(Event.objects.filter(game=game).order_by("id"))
    assert len(stored) == len(data["events"])
    shifted = named = 0

    for place, (out, engine) in enumerate(zip(data["events"], stored, strict=True), start=1):
        assert out["seq"] == place and "id" not in out
        assert out["seats"] == [int(s) + 1 for s in engine.audience.strip(",").split(",") if s]
        # every seat the kind declares, from 1 (docs/events-json.md): no field left out
        shown = seats_named(ruleset, engine.kind, out["data"])
        assert shown == [s + 1 for s in seats_named(ruleset, engine.kind, engine.data)]
        assert all(1 <= seat <= n for seat in shown), (out["kind"], out["data"])
        assert set(out["data"]) == set(engine.data), (out["kind"], "a field left out")
        named += len(shown)
        target = engine.data.get("target")
        if isinstance(target, int) and not isinstance(target, bool):
            # the seat shown as "5号" is 5 (engine index 4), in the data and in the text
            assert out["data"]["target"] == target + 1, out
            if out["public"] or out["seats"]:
                assert f"{target + 1}号" in out["text"], out["text"]
            shifted += 1
        assert out["text"] and re.search(r"[\u4e00-\u9fff]", out["text"]), out
    if ruleset != "gold":
        assert shifted, "an event aimed at a seat"
    assert named, "events that name seats"
    winners = data["game"]["outcome"]["winners"]
    assert winners == [w + 1 for w in game.outcome["winners"]]
    assert data["game"]["outcome"]["text"]


def test_events_json_renders_in_the_reader_s_language(finished, chinese, make_user, client):
    from accounts.models import Profile

    game = finished("ninelives")
    reader = make_user("reader")
    Profile.objects.filter(user=reader).update(language="en")
    client.force_login(reader)
    data = client.get(reverse("game-events-json", args=[game.pk])).json()
    texts = " ".join(e["text"] for e in data["events"])
    assert "seat" in texts.lower() and not re.search(r"[\u4e00-\u9fff]号", texts)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_events_json_gives_each_reason_as_a_code_with_seats_from_1_and_its_sentence(
        finished, ruleset, chinese, client):
    from games.engine.reasons import SEAT, SEATS
    from games.models import Event
    from games.presenters import reason_types

    game = finished(ruleset)
    data = client.get(reverse("game-events-json", args=[game.pk])).json()
    stored = list(Event.objects.filter(game=game).order_by("id"))
    seen = 0
    for out, engine in zip(data["events"], stored, strict=True):
        assert len(out["because"]) == len(engine.because)
        for shown, reason in zip(out["because"], engine.because, strict=True):
            assert shown["code"] == reason["code"]
            assert shown["text"] and re.search(r"[\u4e00-\u9fff]", shown["text"]), shown
            assert not ENGINE_DATA.search(shown["text"]), shown["text"]
            types = reason_types(ruleset, reason["code"])
            for name, value in reason["args"].items():
                if types.get(name) == SEAT:
                    assert shown["args"][name] == value + 1
                    seen += 1
                elif types.get(name) == SEATS:
                    assert shown["args"][name] == [v + 1 for v in value]
    assert seen, "a reason that names a seat"
    outcome = data["game"]["outcome"]
    assert outcome["reason"]["code"] == game.outcome["reason"]["code"]
    assert re.search(r"[\u4e00-\u9fff]", outcome["reason"]["text"])
    assert "summary" not in outcome
