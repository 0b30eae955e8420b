"""谁偷了我的金币's reasons as data (games/engine/gold/reasons.py, games/presenters/gold.py
`REASONS`): every explanation, refusal and result the engine gives is a code of its one table
with typed arguments, and reads as a Chinese sentence (and an English one) with every
argument in the reader's words.

1. The table: every code has a msgid whose placeholders are its arguments, a renderer per
   argument type, and a translation in the catalogue that is not fuzzy and leaves no English.
2. Random play (the simulation's strategies, several seeds and player counts, missed
   deadlines, near-miss steps refused): no reason outside the table or with an argument of
   the wrong type; each one reads in Chinese.
3. Concrete sentences, exactly as the forum would write them, so a wrong renderer fails.
"""

from __future__ import annotations

import random
import re

import pytest
from django.utils import translation

from games.engine.base import Refusal, action, end_phase
from games.engine.gold import simulate
from games.engine.gold.reasons import COUNTS, PAYMENTS, PLACE, REFUSALS, RESULTS, TABLE, VIRTUAL
from games.engine.gold.reasons import R as TABLE_OF_CODES
from games.engine.gold.rules import ACTION_KINDS, CARD_NAMES_ZH, CARDS, Gold
from games.engine.reasons import CARD, NUMBER, SEAT, SEATS, SECTIONS
from games.presenters import because_chain, because_text, refusal_text
from games.presenters import gold as presenter
from tests.factories import read_catalog

NAMES = {0: "金子", 1: "银子", 2: "铜子", 3: "铁子", 4: "锡子", 5: "铅子"}
ENGINE = Gold()
# A value of each argument type, to render every code once.
SAMPLES = {
    SEAT: 1, SEATS: [0, 2], CARD: "THIEF", NUMBER: 3, SECTIONS: ["5④.3", "I12"],
    TABLE: {"seats": ["KILLER", "THIEF"], "virtual": ["ASSASSIN"]},
    COUNTS: {"KILLER": 2, "ASSASSIN": 1, "THIEF": 0}, VIRTUAL: 2, PLACE: {"virtual": 0},
    PAYMENTS: [{"seat": 0, "coins": 2}, {"seat": 2, "coins": 1}],
}


def english_words(text: str) -> list[str]:
    """Latin words of 2+ letters in a Chinese sentence, the rules' references (I12) and
    the players' names aside."""
    for name in NAMES.values():
        text = text.replace(name, "")
    return re.findall(r"[A-Za-z]{2,}", re.sub(r"\bI\d+\b", "", text))


def sample(code: str) -> dict:
    return {"code": code, "args": {name: SAMPLES[kind] for name, kind
                                   in TABLE_OF_CODES.table[code].items()}}


# --- 1. the table ------------------------------------------------------------------------------

def test_every_code_has_its_msgid_and_a_renderer_for_each_argument():
    assert presenter.REASONS.problems() == []
    assert presenter.PRESENTER.REASONS is presenter.REASONS
    # 41 explanations, 2 results, 20 refusals
    assert len(TABLE_OF_CODES.codes()) == 63
    assert len(REFUSALS) == 20 and len(RESULTS) == 2
    assert REFUSALS | RESULTS <= set(TABLE_OF_CODES.codes())


def test_every_code_reads_in_chinese_from_a_translation_that_is_not_fuzzy(chinese):
    entries = {m.id: m for m in read_catalog() if m.id and m.context is None}
    for code, msgid in presenter.REASONS.msgids.items():
        entry = entries.get(msgid)
        assert entry is not None and entry.string and not entry.fuzzy, code
        with translation.override("zh-hans"):
            text = presenter.REASONS.render(sample(code), NAMES)
        with translation.override("en"):
            english = presenter.REASONS.render(sample(code), NAMES)
        assert text and text != msgid and re.search(r"[\u4e00-\u9fff]", text), code
        assert not english_words(text) and "%(" not in text, (code, text)
        assert english and "%(" not in english and english != text, code


# --- 2. random play ------------------------------------------------------------------------------

STRATEGIES = simulate.STRATEGIES


def near_misses(state, rng: random.Random) -> list[dict]:
    """Steps the engine must refuse or may accept: another seat's choice, a random kind with
    random details, a choice of the right kind with a wrong detail."""
    players = state["public"]["players"]
    seat = rng.randrange(players)
    kind = rng.choice(ACTION_KINDS)
    params = rng.choice([{}, {"card": rng.choice([*CARDS, "JOKER"])},
                         {"card": rng.choice(CARDS), "virtual": rng.randrange(-1, 8)},
                         {"seat": rng.randrange(players)}, {"virtual": rng.randrange(8)},
                         {"card": "THIEF", "extra": 1}])
    return [action(seat, kind, **params), action("gm", kind, **params), {"actor": seat},
            "nonsense", {"actor": seat, "kind": kind, "params": []}]


def played(players: int, seed: int) -> tuple[list[dict], list[Refusal], object]:
    """A game played by the simulation's strategies (one per seat, drawn by the seed), each
    awaited seat missing now and then, with near-miss steps tried at every phase: (every
    event, every refusal, the outcome)."""
    rng = random.Random(f"reasons/{players}/{seed}")
    strategies = [rng.choice(STRATEGIES) for _ in range(players)]
    t = ENGINE.initial_state(seats=players, config={"lead": rng.choice([None, 0])},
                             seed=f"reasons-{seed}")
    state, events, refusals = t.state, list(t.events), []
    while ENGINE.outcome(state) is None:
        for step in near_misses(state, rng):
            result = ENGINE.apply(state, step)
            if isinstance(result, Refusal):
                refusals.append(result)
        for seat in sorted(ENGINE.phase(state).awaiting):
            if rng.random() < 0.15:
                continue
            choice = simulate.choose(strategies[seat], ENGINE.view(state, seat),
                                     ENGINE.legal_actions(state, seat), rng)
            result = ENGINE.apply(state, action(seat, choice.kind, **choice.params))
            assert not isinstance(result, Refusal), result
            state, events = result.state, events + result.events
        t = ENGINE.step(state, end_phase())
        state, events = t.state, events + t.events
    return events, refusals, ENGINE.outcome(state)


@pytest.fixture(scope="module")
def games():
    """Eleven games, more of the small ones (a 6-player game takes about a second)."""
    return [played(players, seed) for players, seeds in ((2, 4), (3, 3), (4, 2), (5, 1), (6, 1))
            for seed in range(seeds)]


def test_random_play_gives_only_reasons_of_the_table(games):
    events = [e for g in games for e in g[0]]
    assert len(events) > 400
    reasons = [r for e in events for r in e["because"]]
    problems = [p for r in reasons for p in TABLE_OF_CODES.problems(r)]
    assert problems == []
    assert not {r["code"] for r in reasons} & REFUSALS
    refusals = [r for g in games for r in g[1]]
    assert {r.code for r in refusals} <= REFUSALS
    assert len({r.code for r in refusals}) >= 10, {r.code for r in refusals}
    assert [p for r in refusals
            for p in TABLE_OF_CODES.problems({"code": r.code, "args": dict(r.params)})] == []
    outcomes = [g[2] for g in games]
    assert all(o.reason["code"] in RESULTS for o in outcomes)
    assert [p for o in outcomes for p in TABLE_OF_CODES.problems(o.reason)] == []
    # The play reaches almost every explanation (the rest are pinned in section 3).
    seen = {r["code"] for r in reasons}
    rare = {"lead_chosen", "nobody_holds", "rest_unclaimed", "pick_changed", "pick_confirmed"}
    assert set(TABLE_OF_CODES.codes()) - REFUSALS - seen <= rare


def test_every_reason_of_random_play_reads_in_chinese(games, chinese):
    with translation.override("zh-hans"):
        leaks = {}
        for events, refusals, outcome in games:
            for event in events:
                for text in because_chain("gold", event, NAMES):
                    if english_words(text) or not re.search(r"[\u4e00-\u9fff]", text):
                        leaks[text] = event["kind"]
            for refused in refusals:
                text = refusal_text("gold", refused)
                if english_words(text) or not re.search(r"[\u4e00-\u9fff]", text):
                    leaks[text] = refused.code
            text = because_text("gold", outcome.reason, NAMES)
            if english_words(text):
                leaks[text] = outcome.result
    assert leaks == {}


# --- 3. concrete sentences -------------------------------------------------------------------

def reason(code: str, **args) -> dict:
    return TABLE_OF_CODES(code, **args)


EXAMPLES = [
    (reason("outnumber", card="ASSASSIN", card2="KILLER", card3="ASSASSIN", n=4, ref=["4③"]),
     "刺客多于杀手，持刺客者分得 4 枚金币（§4③）。"),
    (reason("lead_chosen", seat=1, ref=["1②"]), "玩家们商定由2号银子 担任第一轮的先手（§1②）。"),
    (reason("flipped", seat=1, place={"virtual": 2}, card="THIEF", ref=["5④.3"]),
     "2号银子 保持身份不变，掀开了虚拟玩家 3 背面朝上的牌：是盗贼（§5④ 操作3）。"),
    (reason("flipped", seat=0, place={"seat": 2}, card="KILLER", ref=["5④.3"]),
     "1号金子 保持身份不变，掀开了3号铜子 背面朝上的牌：是杀手（§5④ 操作3）。"),
    (reason("paid", payments=[{"seat": 0, "coins": 1}, {"seat": 2, "coins": 2}]),
     "发放金币：1号金子 +1；3号铜子 +2。"),
    (reason("share_win", seats=[0, 2], n=5), "1号金子、3号铜子 各有 5 枚金币，共同获胜。"),
    (reason("all_rounds", n=4, ref=["6④", "I12"]),
     "4 轮全部结束；金币最多者获胜，并列则共同获胜（§6④、I12）。"),
    (reason("table_counts", counts={"KILLER": 1, "ASSASSIN": 4, "THIEF": 3}, ref=["4②"]),
     "桌面上有杀手 1 张、刺客 4 张、盗贼 3 张（§4②）。"),
    (reason("rest_unclaimed", n=1, card="THIEF"), "剩下的 1 枚金币没有持盗贼者可分。"),
    (reason("pick_changed", seat=3, card="ASSASSIN", card2="THIEF", ref=["3①", "I3"]),
     "4号铁子 在亮牌前把秘密选择从刺客改为盗贼（§3①、I3）。"),
    (reason("priority_tokens", seats=[1, 3], ref=["5①"]),
     "2号银子、4号铁子 本可获得金币，改为拿优先者标记（§5①）。"),
    (reason("not_your_turn", seat=2), "现在轮到 3号铜子，不是你。"),
]


def test_a_reason_reads_as_the_forum_would_write_it(chinese):
    with translation.override("zh-hans"):
        assert [because_text("gold", given, NAMES) for given, _text in EXAMPLES] == [
            text for _given, text in EXAMPLES]


def test_a_final_judgment_reads_as_its_chain(chinese):
    """Round 1 of a 2-player game, seat 1 leading: both pick THIEF; the virtual players show
    3 ASSASSIN and 3 THIEF... the chain of the final judgment, sentence by sentence."""
    state = ENGINE.initial_state(seats=2, config={"lead": 0}, seed="chain").state
    virtual = [v["shown"] for v in state["public"]["virtual"]]
    for seat in (0, 1):
        state = ENGINE.apply(state, action(seat, "pick", card="KILLER")).state
    while state["public"]["round"] == 1:
        state = ENGINE.step(state, end_phase()).state
    final = next(e for e in state["log"] if e["kind"] == "final")
    assert [r["code"] for r in final["because"]][:2] == ["final_table", "table_counts"]
    counts = {c: virtual.count(c) + (2 if c == "KILLER" else 0) for c in CARDS}
    with translation.override("zh-hans"):
        chain = because_chain("gold", final, NAMES)
    table = "；".join(f"虚拟玩家 {v + 1} {CARD_NAMES_ZH[c]}" for v, c in enumerate(virtual))
    assert chain[0] == ("最终判定时所有牌翻开（§6①、§6②）：真实玩家：1号金子 杀手；2号银子 杀手 "
                        f"—— 虚拟玩家：{table}。")
    assert chain[1] == (f"桌面上有杀手 {counts['KILLER']} 张、刺客 {counts['ASSASSIN']} 张、"
                        f"盗贼 {counts['THIEF']} 张（§4②）。")


def test_a_refusal_names_the_seat_from_one(chinese):
    state = ENGINE.initial_state(seats=3, config={"lead": 0}, seed="refusal").state
    for seat in range(3):
        state = ENGINE.apply(state, action(seat, "pick", card="THIEF")).state
    state = ENGINE.step(state, end_phase()).state
    refused = ENGINE.apply(state, action(2, "keep"))
    assert isinstance(refused, Refusal)
    assert (refused.code, refused.params) == ("not_your_turn", {"seat": 0})
    with translation.override("zh-hans"):
        assert refusal_text("gold", refused) == "现在轮到 1 号座位，不是你。"
    with translation.override("en"):
        assert refusal_text("gold", refused) == "It is seat 1's turn, not yours."


def test_the_result_is_a_reason_and_reads_in_chinese(chinese):
    state = ENGINE.initial_state(seats=3, config={"lead": 0}, seed="finished").state
    while ENGINE.outcome(state) is None:
        state = ENGINE.step(state, end_phase()).state
    out = ENGINE.outcome(state)
    coins = state["public"]["coins"]
    assert out.reason == (TABLE_OF_CODES("wins", seat=out.winners[0], n=max(coins))
                          if len(out.winners) == 1 else
                          TABLE_OF_CODES("share_win", seats=list(out.winners), n=max(coins)))
    game_over = state["log"][-1]
    assert game_over["kind"] == "game_over" and game_over["because"][-1] == out.reason
    with translation.override("zh-hans"):
        text = because_text("gold", out.reason, NAMES)
    assert f"{max(coins)} 枚金币" in text and not english_words(text)
    assert all(NAMES[w] in text for w in out.winners)
