"""Classic 杀人游戏's reasons as data (games/engine/classic/reasons.py, games/presenters/classic.py
`REASONS`): every explanation, refusal and result the engine gives is a code of its one table
with typed arguments, and reads as a Chinese sentence (and an English one) with every
argument in the reader's words.

1. The table: every code has a msgid whose placeholders are its arguments, a renderer per
   argument type, and a translation in the catalogue that is not fuzzy and leaves no English.
2. Random play (the simulation's random games with every option, speeches, last words, team
   talk and skips taken now and then, near-miss steps refused): no reason outside the table
   or with an argument of the wrong type; each one reads in Chinese.
3. Concrete sentences, exactly as the forum would write them, so a wrong renderer fails.
"""

from __future__ import annotations

import random
import re

import pytest
from django.utils import translation

from games.engine.base import GM, Refusal, action
from games.engine.classic import simulate
from games.engine.classic.actions import KINDS
from games.engine.classic.reasons import EXPLANATIONS, REFUSALS, RESULTS, VOTES
from games.engine.classic.reasons import R as TABLE_OF_CODES
from games.engine.classic.rules import Classic
from games.engine.reasons import CARD, NUMBER, SEAT, SEATS, SECTIONS
from games.presenters import because_chain, because_text, describe, refusal_text
from games.presenters import classic as presenter
from tests.engine.classic.helpers import Table
from tests.factories import read_catalog

NAMES = {s: f"{'甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳'[s]}君" for s in range(16)}
ENGINE = Classic()
WORDS = "警匪民过今晚杀验我觉得"
# A value of each argument type, to render every code once.
SAMPLES = {SEAT: 2, SEATS: [1, 4], CARD: "bandit_guardian", NUMBER: 3,
           SECTIONS: ["3.10", "ghost 6"], VOTES: [[1, 3], [6, 1]]}
CONFIGS = [{}, {"all_civilians_dead": "draw"}, {"variant_ghost_poison": True},
           {"guardian": True}, {"dual_guardians": True},
           {"variant_ghost_poison": True, "guardian": True},
           {"variant_ghost_poison": True, "dual_guardians": True}]


def english_words(text: str) -> list[str]:
    """Latin words of 2+ letters in a Chinese sentence, the players' names aside (the rules'
    references hold none: "§3.10", "细则 5D")."""
    for name in NAMES.values():
        text = text.replace(name, "")
    return re.findall(r"[A-Za-z]{2,}", text)


def has_chinese(text: str) -> bool:
    return bool(re.search(r"[\u4e00-\u9fff]", text))


def sample(code: str) -> dict:
    return {"code": code, "args": {name: SAMPLES[kind] for name, kind
                                   in TABLE_OF_CODES.table[code].items()}}


# --- 1. the table ------------------------------------------------------------------------------

def test_every_code_has_its_msgid_and_a_renderer_for_each_argument():
    assert presenter.REASONS.problems() == []
    assert presenter.PRESENTER.REASONS is presenter.REASONS
    assert (len(EXPLANATIONS), len(REFUSALS)) == (81, 34)
    assert set(TABLE_OF_CODES.codes()) == set(EXPLANATIONS) | set(REFUSALS)
    assert RESULTS <= set(EXPLANATIONS)


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

def near_misses(state, rng: random.Random) -> list[dict]:
    """Steps the engine must refuse, or may accept: a random seat's random kind with random
    details, an offered choice with another target or an extra detail, a seat's own step
    taken twice, the GM's and the clock's steps, malformed steps and texts."""
    seats = len(state["private"])
    seat = rng.randrange(seats)
    kind = rng.choice([*KINDS, "fly"])
    params = rng.choice([{}, {"target": rng.randrange(-1, seats + 1)},
                         {"target": rng.randrange(seats), "pact": rng.randrange(seats)},
                         {"text": ""}, {"text": "过"}, {"text": "x" * 20_001},
                         {"target": 1, "extra": 1}])
    steps = [action(seat, kind, **params), action(GM, kind, **params),
             {"actor": "clock", "kind": "end_phase", "params": {}}, {"actor": seat},
             {"actor": seats + 3, "kind": kind, "params": {}}]
    for actor in rng.sample(range(seats), 4):
        for choice in ENGINE.legal_actions(state, actor)[:6]:
            texts = {f.name: "过" for f in choice.text_fields}
            steps += [action(actor, choice.kind, **choice.params, **texts),
                      action(actor, choice.kind, **choice.params, **texts, extra=1),
                      action(actor, choice.kind,
                             **dict(choice.params, target=rng.randrange(seats)), **texts)]
    return steps


def seat_steps(state, rng: random.Random, refusals: list[Refusal]) -> None:
    """Now and then a seat's own legal step the simulation never takes (speeches, last words,
    team talk, a deferral, a skipped protection, a cancelled possession), then the same
    step again, which the engine may refuse (a step taken twice)."""
    seats = list(range(len(state["private"])))
    rng.shuffle(seats)
    for seat in seats:
        choices = [c for c in ENGINE.legal_actions(state, seat)
                   if c.kind not in ("kill", "check", "protect", "possess", "vote")]
        if choices and rng.random() < 0.5:
            choice = rng.choice(choices)
            texts = {f.name: "".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))
                     for f in choice.text_fields}
            step = action(seat, choice.kind, **choice.params, **texts)
            result = ENGINE.apply_in_place(state, step)
            assert not isinstance(result, Refusal), (choice, result)
            again = ENGINE.apply(state, step)
            if isinstance(again, Refusal):
                refusals.append(again)


def played(config: dict, seats: int, seed: int) -> tuple[list[dict], list[Refusal], object]:
    """A random game (the simulation's policy, with near misses and `seat_steps` before each
    end of a phase, and near misses again after them): (every event, every refusal, the
    outcome)."""
    rng = random.Random(f"reasons/{config}/{seats}/{seed}")
    refusals: list[Refusal] = []

    def try_near_misses(state):
        for step in near_misses(state, rng):
            result = ENGINE.apply(state, step)
            if isinstance(result, Refusal):
                refusals.append(result)

    def before_each_end(state):
        try_near_misses(state)
        seat_steps(state, rng, refusals)
        try_near_misses(state)
    after = simulate.random_game(ENGINE, seats, config, seed, before_each_end)
    try_near_misses(after)
    return after["log"], refusals, ENGINE.outcome(after)


@pytest.fixture(scope="module")
def games():
    """Two games of each option mix (11 to 16 seats): about 3,000 events."""
    return [played(config, seats, seed) for config in CONFIGS
            for seed, seats in ((1, 11), (2, 16))]


# Explanations random play may miss: the simulation always votes and protects, deals by lot,
# and some nights are rare (each is pinned in section 3 or in the engine's tests).
RARE = {"dealt_by_hand", "abstains", "silent_voter", "nobody_voted", "no_votes_cast",
        "no_victim_proposed", "no_pact_proposed", "no_check_proposed", "possession_withdrawn",
        "guardian_stranded", "dereliction_stranded", "dereliction_skipped", "guardian_skipped",
        "died_of_dereliction", "you_protect_nobody", "died_in_its_place", "died_for_voted_out",
        "guardian_pair_tie", "third_tie", "tie_speeches_again", "two_results",
        "every_police_dead", "every_civilian_dead_draw", "every_civilian_dead_bandit_win",
        "possessed_poison", "identities_hidden", "possession_void_ghost_dead",
        "possession_void_target_dead", "possession_on_police", "police_guardian_lapses",
        "guardian_lapsed", "pact_bandit_dies", "poison_pair", "lot_drew", "lot_breaks_tie",
        "nothing_happened", "nobody_died"}


def test_random_play_gives_only_reasons_of_the_table(games):
    events = [e for g in games for e in g[0]]
    assert len(events) > 1000
    reasons = [r for e in events for r in e["because"]]
    assert all(e["because"] for e in events)
    assert [p for r in reasons for p in TABLE_OF_CODES.problems(r)] == []
    assert not {r["code"] for r in reasons} & set(REFUSALS)
    refusals = [r for g in games for r in g[1]]
    assert {r.code for r in refusals} <= set(REFUSALS)
    assert len({r.code for r in refusals}) >= 28, set(REFUSALS) - {r.code for r in refusals}
    assert all(set(vars(r)) == {"code", "params"} for r in refusals)
    assert [p for r in refusals
            for p in TABLE_OF_CODES.problems({"code": r.code, "args": dict(r.params)})] == []
    outcomes = [g[2] for g in games]
    assert all(o is not None and o.reason["code"] in RESULTS
               and set(vars(o)) == {"result", "winners", "reason"} for o in outcomes)
    assert [p for o in outcomes for p in TABLE_OF_CODES.problems(o.reason)] == []
    seen = {r["code"] for r in reasons}
    assert set(EXPLANATIONS) - seen <= RARE, set(EXPLANATIONS) - seen - RARE
    assert len(seen) > 60


def test_every_reason_of_random_play_reads_in_chinese(games, chinese):
    with translation.override("zh-hans"):
        leaks = {}
        for events, refusals, outcome in games:
            for event in events:
                for text in because_chain("classic", event, NAMES):
                    if english_words(text) or not has_chinese(text) or "%(" in text:
                        leaks[text] = event["kind"]
                text = describe("classic", event, NAMES)
                if event["kind"] in ("night_resolved", "deal", "chance") and (
                        english_words(text) or not has_chinese(text)):
                    leaks[text] = event["kind"]
            for refused in refusals:
                text = refusal_text("classic", refused)
                if english_words(text) or not has_chinese(text):
                    leaks[text] = refused.code
            text = because_text("classic", outcome.reason, NAMES)
            if english_words(text) or not has_chinese(text):
                leaks[text] = outcome.result
    assert leaks == {}


# --- 3. concrete sentences -------------------------------------------------------------------

def reason(code: str, **args) -> dict:
    return TABLE_OF_CODES(code, **args)


EXAMPLES = [
    (reason("police_learn", seat=2, role="bandit", ref=["3.10"]),
     "警察得知3号丙君的身份：匪（§3.10）。"),
    (reason("possession_withdrawn", seat=1), "鬼匪2号乙君撤回了今晚的附体。"),
    (reason("third_tie", seats=[0, 4], ref=["4.5"]),
     "1号甲君、5号戊君第三次平票，因此今天无人出局（§4.5，本站按当天无人出局处理）。"),
    (reason("dealt_by_hand"), "法官手动指定了每个人的身份。"),
    (reason("poison_pair", seats=[1, 8], role="possessed_bandit", ref=["minor 3", "ghost 6"]),
     "匪徒杀了毒药：2号乙君、9号壬君之中一人是毒药，另一人是被附体匪，法官不公布谁是谁"
     "（细则 3、鬼匪 6）。"),
    (reason("died_of_dereliction", seats=[1, 3, 5], ref=["guardian 2", "guardian 5"]),
     "2号乙君、4号丁君、6号己君因渎职而死：守护神两次放弃守护，或连续两轮无人可守护"
     "（守护神 2、5）。"),
    (reason("votes_per_seat", tally=[[1, 3], [6, 1]]), "各座位得票：2号乙君：3票、7号庚君：1票。"),
    (reason("two_results", ref=["minor 5D"]), "同时出现两种结果，因此判平局（细则 5D）。"),
    (reason("no_pact_proposed"), "无人提名生死状上的匪徒，因此没有生死状。"),
    (reason("no_check_proposed"), "无人提名验人对象，因此不验人。"),
    (reason("guardian_stranded", seat=4, n=1), "守护神5号戊君已无人可守护（连续1轮）。"),
    (reason("dereliction_stranded", seat=4, ref=["guardian 5"]),
     "守护神5号戊君因渎职而死：连续两轮无人可守护（守护神 5）。"),
    (reason("guardian_lapsed", ref=["dual 6"]),
     "匪徒杀了匪神，因此从本轮起警神以平民身份游戏，其守护作废（双守护神 6）。"),
    (reason("possession_void_target_dead", seat=6, ref=["ghost_paragraph 2"]),
     "附体没有发生：7号庚君今晚先死了；鬼匪保留唯一的一次附体机会（先杀人后附体，鬼匪 第2段）。"),
    (reason("nothing_happened"), "今夜什么也没有发生。"),
    (reason("nobody_voted"), "无人得票，因此今天无人出局。"),
    (reason("guardian_pair_tie", seats=[2, 7], ref=["guardian 4"]),
     "3号丙君、8号辛君平票最高：守护神与其被守护人，两人同死（守护神 4）。"),
    (reason("night_begins", n=2, ref=["3.3-3.11"]),
     "第2夜开始：匪徒选定被害人，警察选定验人对象（§3.3–§3.11）。"),
    (reason("possessed_civilian", seat=6, ref=["ghost 1"], n=7),
     "鬼匪附体了平民7号庚君，其身份转变为匪并加入匪徒（鬼匪 1）；法官为他们互相介绍（鬼匪 7）。"),
    (reason("last_words_due", seats=[0, 3], n=3, ref=["3.19"]),
     "1号甲君、4号丁君留遗言：全局最先死亡的3人留遗言（§3.19）。"),
]


def test_a_reason_reads_as_the_forum_would_write_it(chinese):
    with translation.override("zh-hans"):
        assert [because_text("classic", given, NAMES) for given, _text in EXAMPLES] == [
            text for _given, text in EXAMPLES]


def test_a_night_s_kill_reads_as_its_chain(chinese):
    """Night 1 of a 12-seat game: bandits 4 and 5 propose seat 9, bandit 6 stays silent; the
    police propose seat 4. The police's result, the GM's note and the dawn, reason by
    reason."""
    t = Table("PPPBBBCCCCCC")
    t.act(3, "kill", target=8)
    t.act(4, "kill", target=8)
    for police in (0, 1, 2):
        t.act(police, "check", target=3)
    t.end()
    with translation.override("zh-hans"):
        check = because_chain("classic", t.last("check_result", 0), NAMES)
        night = because_chain("classic", t.last("night_resolved"), NAMES)
        dawn = because_chain("classic", t.last("dawn", 7), NAMES)
        note = describe("classic", t.last("night_resolved"), NAMES)
    assert check == ["1号甲君、2号乙君、3号丙君提名了验人对象；未表态的队员视为同意（§3.6）。",
                     "4号丁君得到的提名最多（3个）。",
                     "警察得知4号丁君的身份：匪（§3.10）。"]
    assert night == ["4号丁君、5号戊君提名了被害人；未表态的队员视为同意（§3.6）。",
                     "9号壬君得到的提名最多（2个）。",
                     "9号壬君被匪徒杀死。"]
    assert note == "夜晚结算：" + " ".join(night)
    assert dawn == ["天亮时法官公布夜里的死者（§3.13）。", "9号壬君死亡：民。",
                    "9号壬君留遗言：全局最先死亡的3人留遗言（§3.19）。"]


def test_a_refusal_reads_in_the_readers_language(chinese):
    t = Table("PPPBBBCCCCCC")
    refused = t.refuse(0, "kill", target=6)
    assert vars(refused) == {"code": "not_bandit", "params": {}}
    too_long = t.refuse(3, "team_message", text="x" * 20_001)
    assert (too_long.code, too_long.params) == ("bad_text_length", {"min": 1, "max": 20_000})
    with translation.override("zh-hans"):
        assert refusal_text("classic", refused) == "只有匪徒能杀人。"
        assert refusal_text("classic", too_long) == "内容须为1到20000个字符。"
    with translation.override("en"):
        assert refusal_text("classic", refused) == "Only the bandits kill."
        assert refusal_text("classic", too_long) == "The text must hold 1 to 20000 characters."


def test_the_result_is_the_victory_reason_and_reads_in_chinese(chinese):
    t = Table("PPPBBBCCCCCC")
    for bandit in (3, 4, 5):
        t.night()
        t.day(t.all_vote(bandit))
    out = t.outcome()
    assert (out.result, set(vars(out))) == ("police", {"result", "winners", "reason"})
    assert out.reason == reason("every_bandit_dead", ref=["4.1"])
    over = t.last("game_over")
    assert over["because"] == [out.reason] and over["data"]["reason"] == out.reason
    with translation.override("zh-hans"):
        assert because_text("classic", out.reason, NAMES) == "匪徒全部死亡（§4.1）。"
