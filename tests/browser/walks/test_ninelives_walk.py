"""猫有n条命 walked by five players and the GM in Chromium, from the home page, only clicking.

The deal is fixed (below). The GM opens the console from the header's link, picks a player
for each seat by name, types the seed and deals: the deal commitment is published. Night 1:
each seat sets a loss order with a core card other than the form's first (阿猫 also orders
the other cards with the 上移 buttons), 花花 attacks 阿猫 with KILLER and a manifesto, 阿猫
looks at 花花 with DIVINER, the others use no card; the night ends early, when the last seat
has acted. Day 1: 老黑 uses CURSE on 花花 and sends 神的使者 a proxy vote for 花花; the
others vote in the vote thread (each vote confirmed on the page that names its target), 3
for 小白 and 1 for 花花, so the CURSE ties it 3:3 and a runoff follows. The runoff:
老黑's proxy again, 花花 executed 3:2, her count kept back until night 2 ends (a PARDON may
spare her). Night 2: nobody acts and its deadline passes: the clock is moved with
time-machine (the live server runs in this process, so its pages read the same clock) and
the sweep the beat runs (`services.sweep()`) ends it, at its deadline and not before, once.
The GM fouls out the wolf and the killer on day 2 from the console: the civilians win, and
the console says so. The players read the tallies and 神的使者's result posts in the vote
threads, the result on the game page, the deal commitment checked against the revealed deal,
and the review at 390 px, in Chinese; every step stored is the one clicked, and every page a
player opens while the game runs shows that player's hand exactly and no other seat's hand,
loss order or taint.

Slower than 20 s (40 to 48 s measured on the 2-core development machine, other work running):
five players and the GM are six browser contexts, and every step is a click on a page that
is then read and checked.

This walk replaces tests/browser/test_ninelives_game.py, which played a game whose phases
lasted 45 seconds of the wall clock under a real Celery worker and beat (it flaked). What it
proved and where that is proved now:
- the GM starts the game from the console, choosing the seats: here (by clicking, from the
  header's link), with the commitment's 64 hex digits;
- no page a player visits shows another seat's cards, and the act page shows the seat's own
  hand: here, on every page each player opens while the game runs (`hides_other_hands`);
- a night whose every seat acted ends early; day 1 ties into a runoff: here;
- a night ends at its deadline through the sweeper: here, by the beat's own sweep with the
  clock moved (the real beat and worker ending a phase: tests/services/test_beat.py).
  Night 2 was ended here by the GM's "end phase now" before; that click is made in
  猫有n条命 by tests/browser/test_gm_walk.py, in Classic by the Classic walk;
- the GM fouls out from the console and the game ends; the console shows the end: here;
- the commitment page finds the revealed deal matching: here, followed from the game page;
- the screenshot var/artifacts/ninelives-game.png (the finished game's home page): here.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from html import unescape

import pytest

from games import services
from games.engine.ninelives.dealing import Deal, validate
from games.models import Game, Phase
from tests.browser.shots import screenshot
from tests.browser.walks.clicking import (
    PHONE,
    arrive,
    engine_keys,
    english_words,
    fits_a_phone,
    flash,
    follow,
    last_step,
    open_console,
    read_in_chinese,
    to_game,
    visible_text,
    watch,
)
from tests.browser.walks.loss_order import (
    choose_core,
    codes_on_screen,
    order_by_clicking,
    send_order,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.slow(seconds=50),
]

# Seats 1-5 (0-based here): every seat holds two cards of its camp, so each has a core card
# to choose other than the form's first; 老黑 holds the CURSE, 花花 the KILLER.
DEAL = {
    "players": 5,
    "seats": [
        {
            "camp": "civilian",
            "cards": ["COUNTER_SNIPER", "DIVINER", "SORCERER", "STRIKE", "WITCH_DOCTOR"],
        },
        {"camp": "wolf", "cards": ["BOMB", "DIVINER", "SORCERER", "WEREWOLF", "WOLFSBANE"]},
        {"camp": "civilian", "cards": ["DEMON", "PROPHET", "SAINT", "SOULBINDER", "VEST"]},
        {"camp": "civilian", "cards": ["CURSE", "KILLER", "PROPHET", "SNIPER", "WEREWOLF"]},
        {"camp": "killer", "cards": ["BLESS", "DEMON", "JAIL", "KILLER", "PARDON"]},
    ],
    "taints": {"killer": ["JAIL", "STRIKE"], "wolf": ["BLESS", "WOLFSBANE"]},
}
GAME = "九命散步局"
NAMES = ["阿猫", "阿狗", "小白", "老黑", "花花"]
SEAT = [f"{n + 1}号{name}" for n, name in enumerate(NAMES)]  # how the pages name seats
# The core card each seat picks (never the form's first loss-order option).
CORE = {0: "巫医", 1: "狼人", 2: "束魂", 3: "狙击手", 4: "杀手"}
CORE_CODES = {0: "WITCH_DOCTOR", 1: "WEREWOLF", 2: "SOULBINDER", 3: "SNIPER", 4: "KILLER"}
# 阿猫 puts the other four in this order with the 上移 buttons.
CLICKED = ["必杀", "巫师", "反狙击手", "占卜"]
CLICKED_CODES = ["STRIKE", "SORCERER", "COUNTER_SNIPER", "DIVINER", "WITCH_DOCTOR"]
# The action list's options, after the "choose an action" entry it opens on.
OPTIONS = "#choice option:not([value=''])"
MANIFESTO = ("夜色如墨，屋顶上的猫数着自己剩下的命，风从巷口吹来，谁也没有听见脚步声。" * 4)[:110]


# --- the act form: every interaction with its choice is in `choose` -------------------------


def reads_chinese(page) -> None:
    """Every page a player opens: no engine code, no English word (the review: its table of
    seats; the timeline's explanations are being translated elsewhere; the deal commitment:
    all but the revealed deal, the salt and the hashes, which are data to copy as shown)."""
    if "/commitment/" in page.url:
        text = page.eval_on_selector(
            "main",
            """el => { const copy = el.cloneNode(true);
            copy.querySelectorAll("pre, code").forEach(e => e.remove());
            return copy.textContent; }""",
        )
        assert not engine_keys(page, text=text) and not english_words(page, text=text), text
        return
    read_in_chinese(page, "body" if "/review/" not in page.url else "#seats")


def foreign_cards(html: str, state: dict, me: int) -> list[str]:
    """What of other seats' secrets the page shows: a hand or a loss order (two cards or
    more, as the engine spells them, in any of the lists pages and scripts write), or the
    taints."""
    text = unescape(html)
    mine = state["private"][me]
    found = []
    for other, priv in enumerate(state["private"]):
        for key in ("hand", "loss_order"):
            cards = priv.get(key) or []
            if other == me or len(cards) < 2 or cards == mine.get(key):
                continue
            if any(sep.join(cards) in text for sep in (", ", "、", " · ", '", "')):
                found.append(f"seat {other + 1}'s {key}")
    taints = state["secret"].get("deal", {}).get("taints", {})
    if '"taints"' in text or any(", ".join(cards) in text for cards in taints.values()):
        found.append("the taints")
    return found


def hides_other_hands(game_id: int, seat: int):
    """The check run on every page the seat opens while the game runs: no other seat's hand,
    loss order or taint; on the act page, the seat's own hand exactly."""

    def check(page) -> None:
        game = Game.objects.get(pk=game_id)
        if game.status != Game.Status.RUNNING:
            return
        assert not foreign_cards(page.content(), game.state, seat), (
            page.url,
            foreign_cards(page.content(), game.state, seat),
        )
        if "/act/" in page.url:
            shown = {
                el.get_attribute("data-card") for el in page.locator("#hand [data-card]").all()
            }
            assert shown == set(game.state["private"][seat]["hand"]), (NAMES[seat], shown)

    return check


def choose(page, *words: str, texts: dict[str, str] | None = None) -> dict:
    """On the act page, select the one option of the action form whose label holds every
    one of `words`, fill the free texts `texts`, send it to 神的使者; return the option
    (kind, params) as the form offered it, with its place among the options of its kind
    ("nth", from 0). The only function that touches the form's choice: when it changes,
    adapt this one (and `use_card`). The loss order has a form of its own (loss_order.py)."""
    labels = page.locator(OPTIONS).all_inner_texts()
    values = page.eval_on_selector_all(OPTIONS, "os => os.map(o => o.value)")
    hits = [v for v, label in zip(values, labels, strict=True) if all(w in label for w in words)]
    assert len(hits) == 1, f"{words} among:\n" + "\n".join(labels)
    chosen = json.loads(hits[0])
    same_kind = [v for v in values if json.loads(v)["kind"] == chosen["kind"]]
    page.select_option("#choice", value=hits[0])
    for name, text in (texts or {}).items():
        page.fill(f"#text_{name}", text)
    follow(page, "#act-submit")
    assert page.locator(".messages li.success").count() == 1, flash(page)
    return {**chosen, "nth": same_kind.index(hits[0])}


def use_card(page, card: str, target: str, *, manifesto: str | None = None) -> dict:
    """Use `card` (its Chinese name) on `target` ("5号花花") through the act form: the
    option "use a card on a seat", then the card picker and the target picker by what they
    read, and the manifesto in the box the page shows for the picked card."""
    labels = page.locator(OPTIONS).all_inner_texts()
    values = page.eval_on_selector_all(OPTIONS, "os => os.map(o => o.value)")
    grouped = [v for v in values if json.loads(v).get("picks") == ["card", "target"]]
    assert len(grouped) == 1, "\n".join(labels)
    page.select_option("#choice", value=grouped[0])
    page.select_option("#pick_card", label=card)
    name = target.split("号", 1)[-1]  # "5号花花": the picker reads "5 · 花花"
    targets = page.locator("#pick_target option").all_inner_texts()
    hits = [t for t in targets if t.strip().endswith(name)]
    assert len(hits) == 1, (target, targets)
    page.select_option("#pick_target", label=hits[0])
    if manifesto:
        page.fill("#text_manifesto", manifesto)
    follow(page, "#act-submit")
    assert page.locator(".messages li.success").count() == 1, flash(page)
    return json.loads(grouped[0])


def review_fact(page, seat: int, label: str) -> str:
    """One fact of a seat's row in the review's table ("核心牌" -> "巫医")."""
    facts = page.locator(f"#seats tr[data-seat='{seat}'] dl.facts")
    keys = facts.locator("dt").all_inner_texts()
    return facts.locator("dd").all_inner_texts()[keys.index(label)]


def vote(page, name: str) -> None:
    """In the vote thread: tick "投票给 <name>" and cast the vote."""
    option = page.locator("#vote-form label.vote-option").filter(
        has_text=re.compile(f"^\\s*投票给 ([0-9]+号)?{name}\\s*$")
    )
    option.locator("input").check()
    follow(page, "#vote-submit")
    # The confirmation page names the target; the vote is cast only from there.
    assert name in visible_text(page, "#confirm-summary"), visible_text(page, "main")
    follow(page, "#vote-confirm-submit")
    assert flash(page) == "你的票已计入。", flash(page)


def tally(page) -> list[str]:
    return page.locator("#vote-tally li").all_inner_texts()


def messenger_posts(page) -> list[list[str]]:
    """The lines of each post by 神的使者 in the thread, oldest first."""
    posts = page.locator("ol.posts > li.post").filter(
        has=page.locator(".author", has_text="神的使者")
    )
    return [
        [line for line in p.locator(".post-body").inner_text().splitlines() if line.strip()]
        for p in posts.all()
    ]


# --- the walk ---------------------------------------------------------------------------


def test_five_players_walk_a_ninelives_game_by_clicking(
    page_for, live_server, nl_players, nl_gm, shots, artifacts_dir, move_clock
):
    assert not validate(Deal.from_json(DEAL)), "the fixed deal keeps every §4 rule"
    game = services.create_game(
        name=GAME,
        ruleset="ninelives",
        gm=nl_gm,
        seat_count=5,
        config={"players": 5, "deal": DEAL},
        durations={"night": 24 * 60, "day": 24 * 60, "runoff": 12 * 60},
    )

    # The GM deals from the console: each seat's player picked by name, the seed typed.
    gm = page_for(nl_gm)
    open_console(gm, live_server, GAME)
    for n, name in enumerate(NAMES):
        gm.select_option(f"select[name=seat_{n}]", label=name)
    gm.fill("input[name=seed]", "walk")
    follow(gm, "form[action$='/start/'] input[type=submit]")
    assert gm.locator(".errornote, .errorlist").count() == 0
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING and game.phase_name == "night"
    assert [s.user_id for s in game.seats.order_by("number")] == [u.pk for u in nl_players[:5]]
    assert re.fullmatch("[0-9a-f]{64}", game.commitment), game.commitment

    pages = [page_for(user) for user in nl_players[:5]]
    for n, page in enumerate(pages):
        watch(page, reads_chinese)
        watch(page, hides_other_hands(game.pk, n))

    # Night 1. Each player: home -> "my hand and actions".
    for n, page in enumerate(pages):
        arrive(page, live_server)
        follow(page, "#my-games a.act-link")
        assert visible_text(page, "h1").startswith(f"{n + 1} 号座位：我的手牌"), visible_text(
            page, "h1"
        )
        told = visible_text(page, "#conversation")
        assert "你的阵营" in told and "你的手牌" in told
        page.set_viewport_size(PHONE)
        if n == 0:
            shots(page, "ninelives-01-act-night1-390")
        assert fits_a_phone(page), f"{NAMES[n]}'s act page is wider than 390 px"
        assert not engine_keys(page), engine_keys(page)
        assert choose_core(page, CORE[n]) == 1  # not the form's first core card
        if n == 0:
            assert order_by_clicking(page, CLICKED) > 0
            assert codes_on_screen(page) == CLICKED_CODES
        sent = send_order(page, follow)
        assert page.locator(".messages li.success").count() == 1, flash(page)
        step = last_step(game, n)
        assert (step.kind, step.params) == ("loss_order", {"cards": sent})
        assert sent[-1] == CORE_CODES[n]
        assert f"底牌{CORE[n]}最后丢" in visible_text(page, "#conversation li:first-child")

    # 阿猫 looks at 花花; 花花 attacks 阿猫 with a manifesto; the others use no card.
    use_card(pages[0], "占卜", SEAT[4])
    assert last_step(game, 0).params == {"card": "DIVINER", "target": 4}
    for n in (1, 2, 3):
        choose(pages[n], "今晚不用牌")
        assert last_step(game, n).kind == "pass"
    use_card(pages[4], "杀手", SEAT[0], manifesto=MANIFESTO)  # the last one: dawn comes
    assert last_step(game, 4).params == {"card": "KILLER", "target": 0, "manifesto": MANIFESTO}
    game.refresh_from_db()
    assert (game.phase_name, game.phase_number) == ("day", 1)
    assert Phase.objects.get(game=game, seq=1).end_reason == "early"

    # Day 1: 阿猫 reads the dawn on the game page; 老黑 curses 花花 and sends a proxy vote.
    to_game(pages[0], GAME)
    dawn = visible_text(pages[0], "main")
    assert "1号阿猫 丢了一张中立阵营的牌（夜间遭到攻击）" in dawn
    lao_hei = pages[3]
    to_game(lao_hei, GAME)
    follow(lao_hei, "#act-link")
    use_card(lao_hei, "诅咒", SEAT[4])
    assert last_step(game, 3).params == {"card": "CURSE", "target": 4}
    chosen = choose(lao_hei, "委托神的使者投票给 5号花花")
    assert chosen["kind"] == "proxy_vote"
    assert (last_step(game, 3).kind, last_step(game, 3).params) == ("proxy_vote", {"target": 4})

    # The others vote in the thread: 阿猫, 阿狗, 花花 for 小白; 小白 (last) for 花花.
    for n, target in ((0, 2), (1, 2), (4, 2), (2, 4)):
        page = pages[n]
        if n != 0:  # 阿猫 is on the game page already
            to_game(page, GAME)
        follow(page, "#vote-thread-link")
        assert visible_text(page, "#vote-panel h2") == "第1天投票"
        vote(page, NAMES[target])
        assert (last_step(game, n).kind, last_step(game, n).params) == ("vote", {"target": target})
    game.refresh_from_db()
    assert game.phase_name == "runoff" and game.state["public"]["candidates"] == [2, 4]

    # 小白 voted last: back in the thread, she reads the closed vote. The CURSE made 花花's
    # 1 vote in person + 1 proxy into 3, as many as 小白's.
    xiao_bai = pages[2]
    xiao_bai.set_viewport_size(PHONE)
    day1 = [
        "3号小白：3票（亲自投票：1号阿猫、2号阿狗、5号花花）",
        "5号花花：3票（亲自投票：3号小白；委托投票：4号老黑；诅咒 +1）",
    ]
    assert tally(xiao_bai) == day1
    tied = "3号小白、5号花花 并列最高票，进入生死投票（生死投票不计诅咒和庇佑）。"
    assert visible_text(xiao_bai, "#vote-result") == tied
    posts = messenger_posts(xiao_bai)
    assert len(posts) == 2, posts  # the opening post and the result
    assert posts[-1] == ["第1天投票", *day1, tied], posts[-1]
    assert fits_a_phone(xiao_bai)
    shots(xiao_bai, "ninelives-02-day1-vote-closed-390")

    # The runoff: 老黑's proxy again; 阿猫 and 小白 for 花花, 阿狗 and 花花 for 小白.
    to_game(lao_hei, GAME)  # from his act page, as he left it, to a fresh one
    follow(lao_hei, "#act-link")
    choose(lao_hei, "委托神的使者投票给 5号花花")
    assert (last_step(game, 3).kind, last_step(game, 3).params) == ("proxy_vote", {"target": 4})
    for n, target in ((0, 4), (1, 2), (4, 2), (2, 4)):
        page = pages[n]
        to_game(page, GAME)
        follow(page, "#vote-thread-link")
        assert visible_text(page, "#vote-panel h2") == "第1天的生死投票"
        vote(page, NAMES[target])
        assert (last_step(game, n).kind, last_step(game, n).params) == ("vote", {"target": target})
    game.refresh_from_db()
    assert (game.phase_name, game.phase_number) == ("night", 2)
    runoff_votes = [
        "5号花花：3票（亲自投票：1号阿猫、3号小白；委托投票：4号老黑）",
        "3号小白：2票（亲自投票：2号阿狗、5号花花）",
    ]
    assert tally(xiao_bai) == runoff_votes
    assert "将在第2夜结束时公布" in visible_text(xiao_bai, "#vote-result")

    # Night 2: nobody acts, and its deadline passes. The clock moves (time-machine) and the
    # beat's sweep runs: nothing ends before the deadline and its grace, the night ends once.
    game.refresh_from_db()
    night2 = game.current_phase
    due = game.deadline + services.grace()
    move_clock(due - dt.timedelta(seconds=1))
    assert services.sweep() == 0
    game.refresh_from_db()
    assert (game.phase_name, game.phase_number) == ("night", 2)
    move_clock(due + dt.timedelta(seconds=1))
    assert services.sweep() == 1
    assert services.sweep() == 0  # a second sweep ends nothing twice
    game.refresh_from_db()
    assert (game.phase_name, game.phase_number) == ("day", 2)
    night2.refresh_from_db()
    assert night2.end_reason == "deadline" and night2.ended_at > night2.deadline

    # 小白 opens the runoff thread again from the board: 神的使者's second post there gives
    # the count kept back until night 2 ended.
    to_game(xiao_bai, GAME)
    follow(xiao_bai, "#board-link")
    follow(xiao_bai, "第1天的生死投票", within="main")
    executed = "5号花花 得票最多，被处决；无人特赦，丢一张牌。"
    assert tally(xiao_bai) == runoff_votes
    assert visible_text(xiao_bai, "#vote-result") == executed
    posts = messenger_posts(xiao_bai)
    assert len(posts) == 3, posts
    assert posts[-1] == ["第1天的生死投票", *runoff_votes, executed], posts[-1]
    shots(xiao_bai, "ninelives-03-runoff-counted-390")

    # Day 2: the GM, back on the console, fouls out the wolf and the killer (§9.1); the
    # civilians win.
    gm.reload()
    for n in (1, 4):
        form = gm.locator("form.gm-step[data-kind=foul_out]")
        form.locator("select[name=p_seat]").select_option(label=f"{n + 1} · {NAMES[n]}")
        form.locator("input[name=t_reason]").fill("散步测试：天神判其出局")
        with gm.expect_navigation():
            form.locator("input[type=submit]").click()
        assert gm.locator(".errornote, .errorlist").count() == 0
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.outcome["result"] == "civilian"
    # the console shows the end as the players read it, in Chinese, never the engine's English
    shown = read_in_chinese(gm, "#result")
    assert shown.endswith("平民阵营获胜。获胜者：1号阿猫、3号小白、4号老黑。"), shown
    assert game.outcome["reason"]["code"] == "civilians_win"
    assert "Every killer and wolf seat is dead" not in unescape(gm.content())

    # Everyone reads the result; 阿狗 checks the deal against its commitment, 阿猫 reads the
    # review on her phone.
    for page in pages:
        to_game(page, GAME)
        outcome = visible_text(page, "#outcome")
        assert outcome.endswith("平民阵营获胜。获胜者：1号阿猫、3号小白、4号老黑。"), outcome
        assert not engine_keys(page, "#outcome")
    a_gou = pages[1]
    screenshot(a_gou, artifacts_dir / "ninelives-game.png", full_page=True)
    follow(a_gou, "发牌承诺", within="main")
    assert a_gou.locator("#verdict.ok").count() == 1, visible_text(a_gou, "main")
    assert visible_text(a_gou, "#commitment") == game.commitment
    a_mao = pages[0]
    a_mao.set_viewport_size(PHONE)
    follow(a_mao, "#review-link")
    assert fits_a_phone(a_mao), a_mao.evaluate("document.documentElement.scrollWidth")
    for n in range(5):
        assert review_fact(a_mao, n, "核心牌") == CORE[n]  # the core card each one chose
        assert game.state["private"][n]["core_card"] == CORE_CODES[n]
    assert review_fact(a_mao, 0, "丢牌顺序") == "巫师 → 反狙击手 → 占卜 → 巫医"  # 必杀 lost
    # 小白 chose 束魂 as the core card: 先知 (the form's first core card) took its place.
    assert review_fact(a_mao, 2, "丢牌顺序") == "恶魔 → 圣人 → 先知 → 防弹衣 → 束魂"
    assert review_fact(a_mao, 3, "手牌") == "诅咒、杀手、先知、狙击手、狼人"
    assert review_fact(a_mao, 0, "用过的牌") == "第1夜"  # DIVINER
    assert review_fact(a_mao, 3, "用过的牌") == "第1天"  # CURSE
    assert not engine_keys(a_mao, "#seats"), engine_keys(a_mao, "#seats")
    shots(a_mao, "ninelives-04-review-390")
    shots(a_mao, "ninelives-05-review-seats-390", part="#seats")
