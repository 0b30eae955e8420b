"""猫有n条命's reasons as data (games/engine/ninelives/reasons.py, the presenter's `REASONS`).

1. The table: every code has its msgid, each msgid's placeholders are exactly the code's
   arguments, and each code reads in Chinese (a real translation, no English word left) and
   in English.
2. Random play, the GM's steps, refused steps and typed-in deals emit no reason outside the
   table or with arguments of the wrong type, and every one reads in Chinese.
3. Concrete sentences, exactly as the forum would write them: a wrong renderer fails here.
"""

from __future__ import annotations

import random
import re

import pytest
from babel.messages.pofile import read_po
from django.utils import translation

from games.engine.base import GM, Refusal, action
from games.engine.conformance import garbage_step, near_miss
from games.engine.ninelives import dealing, reasons, simulate
from games.engine.ninelives.reasons import R, phase_arg, use
from games.engine.ninelives.rules import NineLives
from games.engine.reasons import (
    CAMP,
    CARD,
    CARDS,
    NUMBER,
    PHASE,
    SEAT,
    SEATS,
    SECTIONS,
    TEXT,
)
from games.presenters import because_chain, outcome_text, refusal_text
from games.presenters import ninelives as P
from tests.factories import DJANGO_PO
from tests.factories.ninelives import refusal_codes

NAMES = {s: f"{'甲乙丙丁戊己'[s]}君" for s in range(6)}
WORDS = "猫有条命杀手狼人平民天神今夜发言"
RULES = NineLives()
# One value of each argument type, to render every code of the table.
SAMPLES = {
    SEAT: 2, SEATS: [0, 3], CARD: "SNIPER", CARDS: ["VEST", "JAIL"], CAMP: "wolf",
    PHASE: phase_arg("night", 2), SECTIONS: ["3.5.2"], NUMBER: 3, TEXT: "字数不够",
    reasons.USE: use(1, "WEREWOLF", 3), reasons.ORDER: ["VEST", "KILLER"],
    reasons.CAMPS: ["killer", "civilian"], reasons.NUMBERS: [8, 16], reasons.DELTA: -1,
}


@pytest.fixture(autouse=True)
def _chinese(chinese):
    with translation.override("zh-hans"):
        yield


def sample(code: str) -> dict:
    return R(code, **{name: SAMPLES[kind] for name, kind in R.table[code].items()})


def english_words(text: str, reason: dict | None = None) -> list[str]:
    """Latin words of two letters or more in `text`, once the players' names and a person's
    own words (TEXT arguments) are set aside (section numbers hold no letters)."""
    rest = text
    for name in NAMES.values():
        rest = rest.replace(name, "")
    if reason is not None:
        for name, kind in R.table[reason["code"]].items():
            if kind == TEXT:
                rest = rest.replace(reason["args"][name], "")
    return re.findall(r"[A-Za-z]{2,}", rest)


def assert_reads_in_chinese(reason: dict) -> str:
    assert not R.problems(reason), (reason, R.problems(reason))
    text = P.REASONS.render(reason, NAMES)
    assert text and "%(" not in text, reason
    assert not english_words(text, reason), (reason, text)
    return text


# --- 1. the table --------------------------------------------------------------------------

def test_the_table_and_its_sentences_agree():
    assert P.REASONS.problems() == []
    assert set(P.REASONS.msgids) == set(R.table)
    assert len(R.table) > 150


def test_every_code_has_a_chinese_translation_and_reads_in_chinese_and_english():
    with open(DJANGO_PO, "rb") as f:
        catalogue = read_po(f, locale="zh_Hans")
    for code, msgid in P.REASONS.msgids.items():
        entry = catalogue.get(msgid)
        assert entry is not None and entry.string and not entry.fuzzy, (code, msgid)
        reason = sample(code)
        chinese = assert_reads_in_chinese(reason)
        with translation.override("en"):
            english = P.REASONS.render(reason, NAMES)
        assert english and "%(" not in english and chinese != english, code
        assert chinese != msgid, code


def test_every_refusal_code_of_the_engine_is_in_the_table():
    assert refusal_codes() <= set(R.table), refusal_codes() - set(R.table)


# --- 2. what play emits --------------------------------------------------------------------

def chinese_text(rng: random.Random, field) -> str:
    low = max(field.min_chars, 1)
    return "".join(rng.choice(WORDS) for _ in range(rng.randint(low, low + 20)))


def random_step(state, seats: int, rng: random.Random) -> dict | None:
    """A random legal step of a random seat (now and then the GM), texts in Chinese; None
    for the clock (rarely: a seat that does not vote is put out)."""
    if rng.random() < 0.03:
        return None
    actors = list(range(seats))
    rng.shuffle(actors)
    if rng.random() < 0.01:
        actors.insert(0, GM)
    for actor in actors:
        choices = RULES.legal_actions(state, actor)
        if choices:
            choice = rng.choice(choices)
            texts = {f.name: chinese_text(rng, f) for f in choice.text_fields if f.required}
            return action(actor, choice.kind, **choice.params, **texts)
    return None


def played(seats: int, seed: int) -> tuple[list[dict], list[Refusal], dict | None]:
    """One seeded random game: its reasons (every event's chain), the refusals of steps
    close to legal ones and of garbage tried along the way, and its outcome's reason."""
    rng = random.Random(f"reasons/{seats}/{seed}")
    state = RULES.initial_state(seats=seats, config=None, seed=f"reasons-{seed}").state
    refused, stale = [], []
    for _ in range(1500):
        if RULES.outcome(state) is not None:
            break
        for step in (near_miss(rng, RULES, state, [*range(seats), GM], stale),
                     garbage_step(rng, seats)):
            result = RULES.apply(state, step) if step is not None else None
            if isinstance(result, Refusal):
                refused.append(result)
        step = random_step(state, seats, rng)
        if step is None:
            RULES.end_phase_in_place(state, [])
        else:
            stale = [step]
            RULES.apply_in_place(state, step)
    chains = [b for e in state["log"] for b in e["because"]]
    outcome = RULES.outcome(state)
    return chains, refused, outcome.reason if outcome else None


@pytest.fixture(scope="module")
def emitted() -> dict:
    chains, refused, outcomes = [], [], []
    for seats in (5, 6):
        for seed in range(6):
            c, r, o = played(seats, seed)
            chains += c
            refused += r
            outcomes += [o] if o else []
            state = simulate.play(seats, seed).state
            chains += [b for e in state["log"] for b in e["because"]]
            outcomes.append(RULES.outcome(state).reason)
    return {"chains": chains, "refused": refused, "outcomes": outcomes}


def test_random_play_emits_only_reasons_of_the_table_and_each_reads_in_chinese(emitted):
    assert len(emitted["chains"]) > 500
    shapes = {}
    for reason in emitted["chains"] + emitted["outcomes"]:
        shapes.setdefault(reason["code"], reason)
    for reason in shapes.values():
        assert_reads_in_chinese(reason)
    assert not [r for r in emitted["chains"] + emitted["outcomes"] if R.problems(r)]
    assert len(shapes) > 80, sorted(set(R.table) - set(shapes))


def test_refused_steps_name_a_code_of_the_table_and_read_in_chinese(emitted):
    assert len(emitted["refused"]) > 200
    codes = set()
    for refused in emitted["refused"]:
        reason = {"code": refused.code, "args": dict(refused.params)}
        assert not R.problems(reason), (refused, R.problems(reason))
        assert set(vars(refused)) == {"code", "params"}, refused  # no English sentence travels with it
        text = refusal_text("ninelives", refused)
        assert text == assert_reads_in_chinese(reason)
        codes.add(refused.code)
    assert len(codes) > 10, codes


def test_a_typed_in_deal_is_refused_with_reasons_that_read_in_chinese():
    rng = random.Random("deals")  # "黑猫" is no card: shown as the GM typed it
    broken = []
    for _ in range(200):
        deal = dealing.deal(rng.choice((5, 6)), rng).to_json()
        seats = deal["seats"]
        a, b = rng.sample(range(len(seats)), 2)
        i, j = rng.randrange(len(seats[a]["cards"])), rng.randrange(len(seats[b]["cards"]))
        seats[a]["cards"][i], seats[b]["cards"][j] = seats[b]["cards"][j], "黑猫"
        if rng.random() < 0.3:
            deal["taints"] = {"killer": ["VEST", "VEST"]}
        broken += dealing.validate(dealing.Deal.from_json(deal))
    assert {v.reason["code"] for v in broken} >= {"deal_not_the_deck", "deal_taints_named"}
    for v in broken:
        assert v.rule in [s for name, kind in R.table[v.reason["code"]].items()
                          if kind == SECTIONS for s in v.reason["args"][name]]
        assert_reads_in_chinese(v.reason)


def test_a_hand_entered_deal_that_breaks_the_rules_names_them():
    with pytest.raises(dealing.BrokenDeal) as refused:
        RULES.initial_state(seats=5, config={"deal": {"players": 5}}, seed="x")
    assert refused.value.reasons == [R("deal_malformed", n=5, ref=["2"])]
    assert P.REASONS.render(refused.value.reasons[0], {}) == \
        "这不是一副5人局的牌：牌局要写明每个座位的阵营和手牌，以及带秘密属性的牌（§2）。"


# --- 3. concrete sentences -----------------------------------------------------------------

NIGHT_2 = phase_arg("night", 2)
EXAMPLES = [
    (R("attacked", seat=2, phase=NIGHT_2, ref=["3.5.2"]), "3号丙君 在第2夜遭到攻击（§3.5.2）。"),
    (R("attacked_with", use=use(1, "WEREWOLF", 3), ref=["3.2.1"]),
     "2号乙君对4号丁君使用的狼人发动攻击（§3.2.1）。"),
    (R("stopped_by", use=use(3, "VEST"), ref=["3.4.1"]),
     "4号丁君的防弹衣挡下了这次攻击（§3.4.1）。"),
    (R("camp_announced", seat=0, camp="wolf", ref=["5.8"]),
     "丢牌只公布所属阵营（§5.8）：1号甲君 丢了一张狼人阵营的牌。"),
    (R("runoff_vote_is_final", seat=0, phase=phase_arg("runoff", 1), target=1,
       ref=["8.1", "8.2"]),
     "第1天的生死投票：1号甲君 投票给2号乙君，投票不可更改（§8.1、§8.2）。"),
    (R("out_for_silence", seat=0, ref=["9.1"]),
     "1号甲君 出局（§9.1）：既没有投票，也没有委托投票。"),
    (R("gm_fouled_out", seat=1, reason="连续三天不发言", ref=["9.1"]),
     "天神判2号乙君出局（§9.1）：连续三天不发言"),
    (R("losses_reached", n=17, marks=[8, 16], ref=["6.3"]), "累计已丢17张牌，达到8、16张（§6.3）。"),
    (R("your_loss_order_drawn", order=["VEST", "KILLER"], ref=["5.3", "6.2"]),
     "你在第1夜没有提交丢牌顺序，所以天神随机抽取了一个，最后一张是你本阵营的牌"
     "（§5.3、§6.2）：防弹衣 → 杀手。"),
    (R("free_agent_camp_drawn", seat=4, camps=["killer", "civilian"]),
     "自选立场者5号戊君的阵营从杀手、平民中随机抽取。"),
    (R("default_camp_applies", seat=1, camp="wolf", ref=["2"]),
     "自选立场者2号乙君在第1夜没有选择阵营，因此采用天神的默认选择（§2）：加入狼人阵营。"),
    (R("nobody_to_pardon", use=use(2, "PARDON")), "3号丙君的特赦没有可特赦的人。"),
    (R("manifesto_rejected_for", reason="字数不够", ref=["3.5.2"]),
     "天神驳回了你的杀人宣言或剧情（§3.5.2）：字数不够"),
    (R("default_camp_set", seat=3, camp="killer", ref=["2"]),
     "如果4号丁君在第1夜结束前没有选择阵营，就加入杀手阵营（§2）。"),
    (R("count_effect", use=use(4, "CURSE"), delta=1, target=0, ref=["3.4.8", "3.4.9"]),
     "5号戊君的诅咒为1号甲君计+1票（§3.4.8、§3.4.9）。"),
    (R("last_seat_wins", seat=5, camp="killer", ref=["10.2", "10.3"]),
     "只剩下6号己君：杀手阵营独自获胜（§10.2、§10.3）。"),
    (R("deal_apart", seat=2, card="SNIPER", card2="COUNTER_SNIPER", ref=["4.4.1"]),
     "3号丙君同时持有狙击手和反狙击手，这两张牌不能发给同一名玩家（§4.4.1）。"),
]


@pytest.mark.parametrize(("reason", "chinese"), EXAMPLES, ids=[r["code"] for r, _ in EXAMPLES])
def test_a_reason_reads_as_the_forum_would_write_it(reason, chinese):
    assert P.REASONS.render(reason, NAMES) == chinese


def test_a_nights_attack_chain_reads_in_chinese_and_in_english():
    """A WEREWOLF attack that a WITCH_DOCTOR stops, and a SNIPER that lands, on one seat."""
    from tests.engine.ninelives.helpers import Game

    g = Game()
    events = g.night({1: ("WEREWOLF", 3), 0: ("WITCH_DOCTOR", 3), 2: ("SNIPER", 3)})
    werewolf, sniper = (e for e in events if e["kind"] == "action_resolved"
                        and e["data"]["card"] in ("WEREWOLF", "SNIPER"))
    assert because_chain("ninelives", werewolf, NAMES) == [
        "2号乙君对4号丁君使用的狼人发动攻击（§3.2.1）。",
        "1号甲君的巫医保护了4号丁君（§3.3.5）：他第1天可以发言但不能投票。",
        "→ 没有丢牌。"]
    assert because_chain("ninelives", sniper, NAMES)[-1] == "→ 4号丁君 丢一张牌。"
    with translation.override("en"):
        assert because_chain("ninelives", werewolf, NAMES)[0] == \
            "WEREWOLF of seat 2 乙君 on seat 4 丁君 attacked (§3.2.1)."


def test_a_refusal_names_its_card_from_its_arguments():
    assert refusal_text("ninelives", Refusal("not_in_hand", params={"card": "SNIPER"})) == \
        "你手里没有狙击手。"
    assert refusal_text("ninelives", Refusal("manifesto_too_short",
                                             params={"min": 100, "got": 12})) == \
        "攻击需要至少100字的杀人宣言（你的只有12字），或者一段自编剧情。"


def test_the_result_of_a_game_reads_from_its_reason():
    outcome = {"result": "draw", "winners": [0, 1],
               "reason": R("stalemate_draw", seats=[0, 1], ref=["10.4"])}
    assert P.REASONS.render(outcome["reason"], NAMES) == \
        "只剩下1号甲君、2号乙君，双方都无法让对方丢牌：平局（§10.4）。"
    assert outcome_text("ninelives", outcome, NAMES) == (
        "平局：只剩1号甲君、2号乙君，双方都无法让对方丢牌。平局时，最后一个阶段开始时仍有座位"
        "存活的每个阵营，其全部座位平分奖金（§10.4）：1号甲君、2号乙君。")


@pytest.mark.django_db
def test_a_gm_s_broken_deal_is_refused_in_words_not_sections(chinese):
    """The GM's settings form hears why a typed-in deal cannot be played in Chinese, from the
    deal's reasons (the exception's own text names the sections only)."""
    from games.services import GameError, check_settings

    with translation.override("zh-hans"), pytest.raises(GameError) as refused:
        check_settings(ruleset="ninelives", seat_count=5, config={"deal": {"players": 5}},
                       durations=None, change_cutoff_minutes=0)
    assert "这不是一副5人局的牌" in str(refused.value)
    assert "deal breaks" not in str(refused.value)
