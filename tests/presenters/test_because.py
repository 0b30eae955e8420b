"""The engine's `because` chains in the reader's language (issue 14, item 2).

The engines explain every event in English sentences with the rules' section numbers; each
rule set's presenter reads them back with its table of sentence shapes
(games/presenters/base.py `Explanations`). Seeded random games of every rule set (several
seat counts and options, the GM's own steps included) must hold no sentence the tables do not
know: each one matches exactly one shape, reads in Chinese with no English word left (seat
numbers, section references such as §5.4.1 / I12 / 细则 5D and players' names aside), and
reads unchanged in English. Hand-written examples pin the mapping of each rule set.
"""

from __future__ import annotations

import logging
import random
import re

import pytest
from django.utils import translation

from games.engine.base import GM, Refusal, action
from games.engine.classic.rules import Classic
from games.engine.ninelives import simulate
from games.engine.ninelives.rules import NineLives
from games.presenters import because_text
from games.presenters import classic as classic_presenter
from games.presenters import ninelives as ninelives_presenter

NAMES = {s: f"{'甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳'[s]}君" for s in range(16)}
WORDS = "猫有条命杀手狼人平民天神今夜发言"
PRESENTERS = {"ninelives": ninelives_presenter, "classic": classic_presenter}
CLASSIC_OPTIONS = [{}, {"variant_ghost_poison": True}, {"guardian": True},
                   {"dual_guardians": True}, {"variant_ghost_poison": True, "guardian": True},
                   {"variant_ghost_poison": True, "dual_guardians": True},
                   {"all_civilians_dead": "draw"}]
# (engine, seats, config, seeds): about 130 games, a few seconds in all
GAMES = {
    "ninelives": [(NineLives(), seats, None, range(16)) for seats in (5, 6)],
    "classic": [(Classic(), seats, options, range(2)) for seats in (11, 13, 16)
                for options in CLASSIC_OPTIONS],
}
# What a Chinese sentence may hold in Latin letters: the references to the rules.
REFERENCES = re.compile(r"I\d+|\d[A-D]\b")


@pytest.fixture(autouse=True)
def _chinese(chinese):
    with translation.override("zh-hans"):
        yield


def chinese_text(rng: random.Random, field) -> str:
    low = max(field.min_chars, 1)
    return "".join(rng.choice(WORDS) for _ in range(rng.randint(low, low + 20)))


def random_step(engine, state, seats: int, rng: random.Random) -> dict | None:
    """A random legal step of a random seat (now and then the GM), texts in Chinese; None
    for the clock. 猫有n条命 puts a seat that does not vote out of the game, so its clock
    waits longer."""
    if rng.random() < (0.03 if engine.name == "ninelives" else 0.15):
        return None
    actors = list(range(seats))
    rng.shuffle(actors)
    if rng.random() < 0.005:
        actors.insert(0, GM)
    for actor in actors:
        choices = engine.legal_actions(state, actor)
        if choices:
            choice = rng.choice(choices)
            texts = {f.name: chinese_text(rng, f) for f in choice.text_fields if f.required}
            return action(actor, choice.kind, **choice.params, **texts)
    return None


def played_sentences(engine, seats: int, config, seed: int) -> set[str]:
    """Every `because` sentence of one seeded random game (steps as the random player takes
    them, in place when the engine offers it, the clock ending phases in between)."""
    rng = random.Random(f"because/{engine.name}/{seats}/{config}/{seed}")
    t = engine.initial_state(seats=seats, config=config, seed=f"because-{seed}")
    state = t.state
    for _ in range(2500):
        if engine.outcome(state) is not None:
            break
        step = random_step(engine, state, seats, rng)
        if step is None and hasattr(engine, "end_phase_in_place"):
            engine.end_phase_in_place(state, [])
        elif step is None:
            state = engine.end_phase(state).state
        elif hasattr(engine, "apply_in_place"):
            engine.apply_in_place(state, step)
        else:
            result = engine.apply(state, step)
            state = state if isinstance(result, Refusal) else result.state
    return {str(b) for event in state["log"] for b in event.get("because") or []}


def simulated_sentences(seats: int, seed: int) -> set[str]:
    """Every `because` sentence of a game of 猫有n条命's own random player (every living seat
    acts each phase: it reaches the late game more often)."""
    log = simulate.play(seats, seed).state["log"]
    return {str(b) for event in log for b in event.get("because") or []}


@pytest.fixture(scope="module")
def sentences() -> dict[str, set[str]]:
    found = {ruleset: {s for engine, seats, config, seeds in plays for seed in seeds
                       for s in played_sentences(engine, seats, config, seed)}
             for ruleset, plays in GAMES.items()}
    found["ninelives"] |= {s for seats in (5, 6) for seed in range(12)
                           for s in simulated_sentences(seats, seed)}
    return found


def english_words(text: str) -> list[str]:
    rest = REFERENCES.sub("", text)
    for name in NAMES.values():
        rest = rest.replace(name, "")
    return re.findall(r"[A-Za-z]+", rest)


@pytest.mark.parametrize("ruleset", sorted(GAMES))
def test_every_sentence_of_random_games_has_exactly_one_shape(sentences, ruleset):
    table = PRESENTERS[ruleset].EXPLANATIONS
    assert len(sentences[ruleset]) > 200
    unknown = sorted(s for s in sentences[ruleset] if not table.matching(s))
    assert not unknown, f"sentences no shape of the {ruleset} table knows: {unknown}"
    ambiguous = {s: m for s in sentences[ruleset] if len(m := table.matching(s)) > 1}
    assert not ambiguous, ambiguous


@pytest.mark.parametrize("ruleset", sorted(GAMES))
def test_every_sentence_reads_in_chinese_and_unchanged_in_english(sentences, ruleset):
    leaks = {}
    for sentence in sentences[ruleset]:
        text = because_text(ruleset, sentence, NAMES)
        if english_words(text) or "%(" in text:
            leaks[sentence] = text
    assert not leaks, f"English left in the Chinese: {leaks}"
    with translation.override("en"):
        assert all(because_text(ruleset, s, NAMES) == s for s in sentences[ruleset])


@pytest.mark.parametrize("ruleset", sorted(GAMES))
def test_every_shape_of_the_table_has_a_chinese_translation(ruleset):
    for msgid, _pattern in PRESENTERS[ruleset].EXPLANATIONS.rows:
        assert re.search(r"[\u4e00-\u9fff]", translation.gettext(msgid)), msgid


EXAMPLES = {
    "ninelives": [
        ("seat 3 was attacked during night 2 (§3.5.2).", "3号丙君 在第2夜遭到攻击（§3.5.2）。"),
        ("WEREWOLF of seat 2 on seat 4 attacked (§3.2.1).",
         "2号乙君对4号丁君使用的狼人发动攻击（§3.2.1）。"),
        ("VEST of seat 4 stopped it (§3.4.1).", "4号丁君的防弹衣挡下了这次攻击（§3.4.1）。"),
        ("Only the camp of a lost card is announced (§5.8): seat 1 lost a wolf card.",
         "丢牌只公布所属阵营（§5.8）：1号甲君 丢了一张狼人阵营的牌。"),
        ("seat 1 cast its runoff vote of runoff 1 for seat 2; it cannot be changed (§8.1, §8.2).",
         "第1天的生死投票：1号甲君 投票给2号乙君，投票不可更改（§8.1、§8.2）。"),
        ("seat 1 is out of the game (§9.1): no vote and no proxy vote",
         "1号甲君 出局（§9.1）：既没有投票，也没有委托投票"),
        ("The GM put seat 2 out of the game (§9.1): 连续三天不发言",
         "天神判2号乙君出局（§9.1）：连续三天不发言"),
        ("17 cards have been lost in all, reaching 8 and 16 (§6.3).",
         "累计已丢17张牌，达到8、16张（§6.3）。"),
        ("You sent no loss order during night 1, so the GM drew one at random with a card of "
         "your camp last (§5.3, §6.2): ['VEST', 'KILLER'].",
         "你在第1夜没有提交丢牌顺序，所以天神随机抽取了一个，最后一张是你本阵营的牌"
         "（§5.3、§6.2）：防弹衣 → 杀手。"),
        ("Camp of the free agent at seat 5 drawn among ['killer', 'civilian'].",
         "自选立场者5号戊君的阵营从杀手、平民中随机抽取。"),
        # rare in random games
        ("The free agent at seat 2 did not choose a camp during night 1, so the GM's default "
         "choice applies (§2): it joins the wolf camp.",
         "自选立场者2号乙君在第1夜没有选择阵营，因此采用天神的默认选择（§2）：加入狼人阵营。"),
        ("PARDON of seat 3 found nobody to pardon.", "3号丙君的特赦没有可特赦的人。"),
        ("The GM rejected your manifesto or story (§3.5.2): 字数不够",
         "天神驳回了你的杀人宣言或剧情（§3.5.2）：字数不够"),
        ("If seat 4 does not choose by the end of night 1, it joins the killer camp (§2).",
         "如果4号丁君在第1夜结束前没有选择阵营，就加入杀手阵营（§2）。"),
    ],
    "classic": [
        ("The police learn that seat 3 is: bandit (seed 001 §3.10).",
         "警察得知3号丙君的身份：匪（§3.10）。"),
        # Random play rarely cancels a possession (the ghost's choices stay open during the
        # police's extra check too, so the random games take other paths).
        ("The ghost in seat 2 withdrew tonight's possession.", "鬼匪2号乙君撤回了今晚的附体。"),
        ("Seat 1 and seat 5 tied a third time, so nobody is eliminated today (seed 001 §4.5, "
         "read as a day without elimination).",
         "1号甲君、5号戊君第三次平票，因此今天无人出局（§4.5，本站按当天无人出局处理）。"),
        ("The GM dealt the roles by hand (fixed_roles).", "法官手动指定了每个人的身份。"),
        ("The bandits killed the poison: one of seat 2 and seat 9 was the poison, the other a "
         "possessed bandit, and the GM does not say which is which (seed 003 minor rule 3, "
         "ghost rule 6).",
         "匪徒杀了毒药：2号乙君、9号壬君之中一人是毒药，另一人是被附体匪，法官不公布谁是谁"
         "（细则 3、鬼匪 6）。"),
        ("Seat 2, seat 4 and seat 6 died of dereliction: a guardian that skipped twice, or had "
         "nobody to protect for two rounds (seed 003 guardian rules 2 and 5).",
         "2号乙君、4号丁君、6号己君因渎职而死：守护神两次放弃守护，或连续两轮无人可守护"
         "（守护神 2、5）。"),
        ("Votes per seat: seat 2: 3, seat 7: 1.", "各座位得票：2号乙君：3票、7号庚君：1票。"),
        ("Two results hold at once, so the game is a draw (seed 003 5D).",
         "同时出现两种结果，因此判平局（细则 5D）。"),
        # rare in random games
        ("Nobody proposed a bandit for the death pact, so there is none.",
         "无人提名生死状上的匪徒，因此没有生死状。"),
        ("Nobody proposed a seat to check, so there is none.", "无人提名验人对象，因此不验人。"),
        ("The guardian in seat 5 had nobody left to protect (1 round(s) in a row).",
         "守护神5号戊君已无人可守护（连续1轮）。"),
        ("The guardian in seat 5 died of dereliction: it had nobody left to protect for two "
         "rounds in a row (seed 003 guardian rule 5).",
         "守护神5号戊君因渎职而死：连续两轮无人可守护（守护神 5）。"),
        ("The bandits killed the bandit guardian, so from this round the police guardian plays "
         "as a civilian and its protection is void (seed 003 dual guardians §6).",
         "匪徒杀了匪神，因此从本轮起警神以平民身份游戏，其守护作废（双守护神 6）。"),
        ("The possession did not happen: seat 7 died first tonight; the ghost keeps its one "
         "possession (the kill comes first, seed 003 ghost paragraph 2).",
         "附体没有发生：7号庚君今晚先死了；鬼匪保留唯一的一次附体机会（先杀人后附体，鬼匪 第2段）。"),
        ("Nothing happened tonight.", "今夜什么也没有发生。"),
        ("Nobody received a vote, so nobody is eliminated today.", "无人得票，因此今天无人出局。"),
        ("Seat 3 and seat 8 tied at the top: a guardian and the seat it protects, so both die "
         "(seed 003 guardian rule 4).",
         "3号丙君、8号辛君平票最高：守护神与其被守护人，两人同死（守护神 4）。"),
    ],
}


@pytest.mark.parametrize(("ruleset", "sentence", "chinese"),
                         [(r, s, c) for r, pairs in EXAMPLES.items() for s, c in pairs])
def test_a_sentence_reads_as_the_forum_would_write_it(ruleset, sentence, chinese):
    assert because_text(ruleset, sentence, NAMES) == chinese


@pytest.mark.parametrize("ruleset", sorted(GAMES))
def test_every_shape_of_the_table_is_read_by_a_game_or_an_example(sentences, ruleset):
    """No shape is dead (or mistyped, so that no engine sentence can ever match it)."""
    table = PRESENTERS[ruleset].EXPLANATIONS
    known = sentences[ruleset] | {sentence for sentence, _zh in EXAMPLES[ruleset]}
    used = {msgid for sentence in known for msgid in table.matching(sentence)}
    assert [msgid for msgid, _pattern in table.rows if msgid not in used] == []


@pytest.mark.parametrize("ruleset", sorted(GAMES))
def test_the_gm_s_own_acts_read_the_same_in_every_rule_set(ruleset):
    reason = {"code": "gm_action", "args": {"act": "pause"}}
    assert because_text(ruleset, reason, NAMES) == "天神操作：暂停游戏"


def test_an_unknown_sentence_is_shown_as_written_and_logged_once(caplog):
    sentence = "Seat 9 did something the table has never heard of (§99)."
    with caplog.at_level(logging.WARNING, logger="games.presenters"):
        assert because_text("gold", sentence, NAMES) == sentence
        assert because_text("gold", sentence.replace("9", "7"), NAMES) != ""
    assert len([r for r in caplog.records if "never heard of" in r.getMessage()]) == 1
    assert ninelives_presenter.because_text("seat 9 flew away.", NAMES) is None
