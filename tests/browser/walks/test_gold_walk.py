"""谁偷了我的金币 walked by three players in Chromium, from the home page, only clicking: a
whole game of three rounds, read in Chinese.

The seed gives a first round where 金子 alone would win coins with the picks below, so she
gets the priority token and trades it for a ×2 token while 银子, not asked anything yet, finds
no action on his page. Each round every seat picks a card in secret; then, from the round's
lead, each takes one operation (cover its own card, replace a virtual player's, turn up a
face-down card, or keep). In round 1 金子 covers her card, 银子 replaces 虚拟玩家 2's card and
reads that only he knows it, and 铜子, who sees the two face-down cards as "?", turns up 银子's.
After each round the players read the final judgement with the coins it paid; at the end, the
result with every seat's coins, in the sentence the presenter writes in Chinese and never the
engine's English. Every page a player opens is checked for engine words (KILLER, ASSASSIN,
THIEF, "Pick 1", "Operation"), for the phase counter shown as a round, and for every hidden
card of another seat (tests/factories/gold.py `assert_hides_others`: a face-down card shows
"?", no pick shows before the reveal, no sentence addressed to another seat); every step
stored is the one clicked.

Slower than 20 s (37 to 46 s measured on the 2-core development machine, other work running):
three rounds of three picks, the priority turns and the operations, each a click on a page
that is then read and checked.

This walk replaces tests/browser/test_gold_game.py (one round by clicking, the rest through
the services). What it proved and where that is proved now:
- picks stay secret until all three are in, and no page shows another seat's hidden card:
  here, on every page of the whole game (`assert_hides_others`, at least as many cards
  checked);
- the seat not yet asked has no action; the priority token traded for ×2 (tokens): here;
- the replacer alone sees its face-down card, the flipper sees two "?", the flip is public
  and shows the replaced card, the round is judged and the next dealt: here, in round 1;
- the result in Chinese on every seat's game page, never its English sentence: here;
- a game whose phases the clock ends (defaults) finishes with winners:
  tests/services/gold/test_play.py (every seat lets the deadline pass, through the sweep);
- the screenshot var/artifacts/gold-game.png (docs/rules/gold.md): here, 金子's act page at
  the end.
"""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from django.utils import translation

from games import selectors, services
from games.models import Event, Game
from tests.browser.shots import screenshot
from tests.browser.walks.clicking import (
    PHONE,
    arrive,
    fits_a_phone,
    flash,
    follow,
    last_step,
    read_in_chinese,
    to_game,
    visible_text,
    watch,
)
from tests.factories import fresh
from tests.factories.gold import DURATIONS, NAMES, assert_hides_others, seed_where

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.slow(seconds=50),
]

GAME = "金币散步局"
CARD = {"KILLER": "杀手", "ASSASSIN": "刺客", "THIEF": "盗贼"}
ROUNDS = 3


# --- the act form: every interaction with its choice is in `choose` -------------------------


def choose(page, *wishes: tuple[str, ...]) -> dict:
    """On the act page, select the first option of the action form whose label holds every
    word of the first wish that some option meets, send it to 神的使者; return the option
    (kind, params) as the form offered it. The only function that touches the form's
    choice."""
    labels = page.locator("#choice option:not([value=''])").all_inner_texts()
    values = page.eval_on_selector_all(
        "#choice option:not([value=''])", "os => os.map(o => o.value)"
    )
    hits, virtual = [], None
    for words in wishes:
        hits = [
            v for v, label in zip(values, labels, strict=True) if all(w in label for w in words)
        ]
        if words == REPLACE:  # one option with pickers: a card of the hand, a virtual player
            hits = [v for v in values if "virtual" in json.loads(v).get("picks", [])]
            entries = page.locator("#pick_virtual option").all_inner_texts() if hits else []
            virtual = next(
                (e for e in entries if e.startswith("虚拟玩家 2（")), None
            )  # "（现为杀手）"
            hits = hits if virtual else []
        if hits:
            break
    assert hits, f"{wishes} among:\n" + "\n".join(labels)
    page.select_option("#choice", value=hits[0])
    chosen = json.loads(hits[0])
    if virtual:
        page.select_option("#pick_card", index=1)  # the first card of the hand
        page.select_option("#pick_virtual", label=virtual)
        chosen = {
            "kind": chosen["kind"],
            "params": {
                **chosen["params"],
                "card": page.input_value("#pick_card"),
                "virtual": int(page.input_value("#pick_virtual")),
            },
        }
    with page.expect_navigation():
        page.click("#act-submit")
    assert page.locator(".messages li.success").count() == 1, flash(page)
    return chosen


COVER, REPLACE, FLIP, KEEP = (
    ("盖在原来的身份上",),
    ("替换虚拟玩家 2",),
    ("掀开",),
    ("保持身份不变",),
)
FLIP_REPLACED = ("掀开虚拟玩家 2",)  # the card the replacement put face down


def operation(round_: int, seat: int, lead: int) -> tuple[tuple[str, ...], ...]:
    """What seat `seat` wishes to do in its operation turn of round `round_`, in order of
    preference (a flip needs a face-down card; one replacement and one flip per round)."""
    nth = (seat - lead) % 3  # 0: the lead, who moves first
    plans = {1: (COVER, REPLACE, FLIP_REPLACED), 2: (REPLACE, KEEP, FLIP), 3: (KEEP, COVER, FLIP)}
    return (plans[round_][nth], KEEP)


def test_three_players_walk_a_whole_gold_game_by_clicking(
    page_for, live_server, gold_players, gold_gm, shots, artifacts_dir
):
    seed, first_picks = seed_where(3, lambda s: s[0] > 0 and s[1] == 0 and s[2] == 0)
    game = services.create_game(
        name=GAME,
        ruleset="gold",
        gm=gold_gm,
        seat_count=3,
        config={"lead": 0},
        durations=dict(DURATIONS),
    )
    game = services.start_game(game_id=game.pk, users=gold_players, seed=seed)
    names = selectors.seat_names(game)
    hidden = []  # how many hidden cards each page checked

    def hides_others(seat: int):
        """The check run on every page the seat opens: no hidden card of another seat (but
        the review, which shows every secret once the game is over)."""

        def check(page) -> None:
            if "/review/" in page.url:
                return
            html = unescape(page.content())
            hidden.append(assert_hides_others(html, fresh(game), seat, names))

        return check

    pages = [page_for(user) for user in gold_players]
    for seat, page in enumerate(pages):
        watch(page, hides_others(seat))
        arrive(page, live_server)
        read_in_chinese(page)
        hides_others(seat)(page)
        follow(page, "#my-games a.act-link")
        read_in_chinese(page)

    def act(seat: int, *wishes: tuple[str, ...], reads=None) -> dict:
        """Seat `seat` opens its act page from the game page, reads it (and checks `reads`
        on it), picks and sends."""
        page = pages[seat]
        to_game(page, GAME)
        read_in_chinese(page)
        pub = state()["public"]
        if pub["phase"] == "pick":  # the others' picks: made or not, never which card
            for other in range(3):
                facts = visible_text(page, f"#seats tbody tr:nth-child({other + 1}) td:last-child")
                assert ("已选择" if pub["picked"][other] else "尚未选择") in facts, facts
                assert other == seat or not any(name in facts for name in CARD.values()), facts
        follow(page, "#act-link")
        text = read_in_chinese(page)
        assert f"第{pub['round']}轮" in visible_text(page, "#phase-name"), visible_text(
            page, "#phase-name"
        )  # the round, never the phase counter
        assert f"第 {pub['round']} 轮 / 共 3 轮" in text
        if reads:
            reads(page)
        chosen = choose(page, *wishes)
        hides_others(seat)(page)  # the page 神的使者 answers with
        step = last_step(game, seat)
        assert (step.kind, step.params) == (chosen["kind"], chosen["params"])
        read_in_chinese(page)
        return chosen

    def state() -> dict:
        game.refresh_from_db()
        return game.state

    for round_ in range(1, ROUNDS + 1):
        pub = state()["public"]
        assert pub["round"] == round_ and pub["phase"] == "pick"
        lead = pub["lead"]
        # The picks: secret until all three are in.
        for seat in range(3):
            card = (
                first_picks[seat]
                if round_ == 1
                else ("KILLER", "ASSASSIN", "THIEF")[(seat + round_) % 3]
            )
            chosen = act(seat, (f"选择{CARD[card]}",))
            assert chosen == {"kind": "pick", "params": {"card": card}}
        # The priority turns (round 1: 金子 alone won coins at the preliminary judgement):
        # in round 1 the holder trades the token for ×2 (the form's second option), later
        # it keeps the token and its 2 coins (the first).
        priority = []
        while state()["public"]["phase"] == "priority":
            seat = state()["public"]["turn"]
            if round_ == 1:  # 银子 is not asked anything yet
                to_game(pages[1], GAME)
                follow(pages[1], "#act-link")
                assert pages[1].locator("#no-actions").count() == 1, visible_text(pages[1], "main")
            priority.append(seat)
            chosen = act(seat, ("×2",) if round_ == 1 else ("2 枚奖励金币",))
            assert chosen["kind"] == ("take_double" if round_ == 1 else "take_bonus"), chosen
        if round_ == 1:
            assert priority == [0] and state()["public"]["tokens"][0] == "double"
        # The operations, one seat at a time from the lead.
        done, replaced = [], None
        while state()["public"]["phase"] == "operation" and state()["public"]["round"] == round_:
            seat = state()["public"]["turn"]
            done.append(seat)
            wishes = operation(round_, seat, lead)
            two_face_down = None
            if wishes[0] == FLIP_REPLACED:  # 铜子 sees the two face-down cards as "?"

                def two_face_down(page):
                    html = page.content()
                    assert html.count('class="gold-card face-down">?</span>') == 2, html

            chosen = act(seat, *wishes, reads=two_face_down)
            if round_ == 1 and chosen["kind"] == "replace":  # only 银子 knows what he put
                replaced = chosen["params"]["card"]
                assert "只有我知道" in unescape(pages[seat].content())
        if round_ == 1:  # 铜子 turned up 银子's card: public, and it is the card he put there
            flipped = Event.objects.get(game=game, kind="flipped")
            assert flipped.public and flipped.data["card"] == replaced
            assert state()["public"]["results"][0]["virtual"][1] == replaced
            assert state()["public"]["round"] == 2, "the round was judged, the next one dealt"
        kept = set(priority) if round_ != 1 else set()  # kept the token: no turn (§5③)
        assert sorted(done) == sorted(set(range(3)) - kept), done
        # Each player reads the round's final judgement on the game page.
        coins = state()["public"]["coins"]
        paid = "；".join(f"{s + 1}号{NAMES[s]} {coins[s]}" for s in range(3))  # '1号金子 2'…
        for page in pages:
            to_game(page, GAME)
            text = read_in_chinese(page)
            assert f"第 {round_} 轮最终判定" in text
            assert f"目前金币：{paid}" in text or f"最终金币：{paid}" in text, (round_, paid)

    # The end: the result with every seat's coins, on the game page and in the review.
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    coins = game.state["public"]["coins"]
    assert sum(coins) > 0
    best = max(coins)
    winners = [NAMES[s] for s in range(3) if coins[s] == best]
    assert [NAMES[s] for s in game.outcome["winners"]] == winners
    final = "最终金币：" + "；".join(f"{s + 1}号{NAMES[s]} {coins[s]}" for s in range(3))
    for seat, page in enumerate(pages):
        outcome = visible_text(page, "#outcome")
        assert outcome.startswith("结果: 游戏结束。") and final in outcome, outcome
        assert all(name in outcome.split("。")[1] for name in winners), outcome
        view, _seat = selectors.view_for(game, gold_players[seat])
        with translation.override("zh-hans"):
            result = selectors.outcome_line(game, selectors.seat_names(game), view)
        html = unescape(page.content())
        assert "游戏结束" in result and result in html  # the presenter's sentence
        with translation.override("en"):
            english = selectors.outcome_line(game, selectors.seat_names(game), view)
        assert english != result and english not in html  # never the English sentence
    assert len(hidden) > 40 and sum(hidden) >= 4, (len(hidden), sum(hidden))
    to_game(pages[0], GAME)
    follow(pages[0], "#act-link")
    screenshot(pages[0], artifacts_dir / "gold-game.png", full_page=True)
    reader = pages[1]
    reader.set_viewport_size(PHONE)
    shots(reader, "gold-01-game-over-390", part="#game-status")
    follow(reader, "#announcements-link")
    read_in_chinese(reader)
    last = reader.locator("ol.posts > li.post").last
    assert final in last.inner_text(), last.inner_text()  # 神的使者's game-over post
    shots(reader, "gold-02-game-over-post-390", part="ol.posts > li.post:last-child")
    to_game(reader, GAME)
    follow(reader, "#review-link")
    read_in_chinese(reader)
    assert fits_a_phone(reader)
    for s in range(3):
        assert NAMES[s] in visible_text(reader, "#seats")
    assert re.search("杀手|刺客|盗贼", visible_text(reader, "#seats"))
    titles = reader.locator("#timeline section.phase summary strong").all_inner_texts()
    assert titles[:3] == ["第1轮 · 选牌", "第1轮 · 先手行动", "第1轮 · 操作"], titles  # no counter
    shots(reader, "gold-03-review-seats-390", part="#seats")
