"""The 猫有n条命 presenter on its own: every event kind, step and refusal code has a sentence in
Chinese and in English; public sentences never name a lost card; the Chinese catalogue
(django.po) translates every msgid the code and the panel use, with the same placeholders."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from games.engine.base import Choice, Refusal, TextField, visible_to
from games.engine.ninelives.cards import CAMP_NAMES_ZH, CARDS
from games.engine.ninelives.reasons import R
from games.engine.ninelives.simulate import play
from games.presenters import because_chain, choice_label, describe, refusal_text
from games.presenters import ninelives as P
from tests.factories import DJANGO_PO, read_catalog
from tests.factories.ninelives import (
    engine_event_kinds,
    is_chinese_sentence,
    ninelives_entries,
    placeholders,
    python_msgids,
    refusal_codes,
    template_msgids,
)

NAMES = {0: "阿猫", 1: "阿狗", 2: "小白", 3: "老黑", 4: "花花", 5: "大黄"}
# Every event kind the engine documents (docs/rules/ninelives.md, "Events").
DOCUMENTED = {
    "phase_started", "phase_ended", "vote_cast", "proxy_vote_published", "vote_void",
    "runoff_started", "vote_closed", "no_execution", "execution", "pardoned", "saint_fired",
    "manifesto", "protected", "attack_failed", "card_lost", "seat_died", "foul_out",
    "reorder_window", "game_over", "game_aborted", "hand_dealt", "card_chosen", "withdrawn",
    "passed", "loss_order_set", "camp_chosen", "proxy_vote_received", "proxy_void",
    "investigation", "power_voided", "attack_dropped", "manifesto_rejected", "own_card_lost",
    "saint_armed", "saint_spent", "bomb_spent", "chance", "action_resolved", "loss_explained",
    "count", "execution_pending", "camp_default_set", "foul_out_cards",
}
ZH_CARD_NAMES = {zh for _, _, zh in CARDS.values()}


@pytest.fixture(scope="module")
def games():
    """Twelve random games (5 and 6 players): their final states."""
    return [play(players, seed).state for seed in range(6) for players in (5, 6)]


def all_events(games):
    return [e for state in games for e in state["log"]]


def test_every_documented_event_kind_has_a_presenter():
    assert set(P.EVENTS) == DOCUMENTED
    assert engine_event_kinds() <= DOCUMENTED, engine_event_kinds() - DOCUMENTED


@pytest.mark.parametrize("lang", ["zh-hans", "en"])
def test_every_event_of_random_games_reads_as_a_sentence(games, lang, chinese):
    seen = set()
    with translation.override(lang):
        for event in all_events(games):
            text = P.present(event, NAMES)
            assert text and "%(" not in text, event
            assert describe("ninelives", event, NAMES) == text
            seen.add(event["kind"])
            if lang == "zh-hans" and event["kind"] not in ("manifesto", "game_aborted"):
                assert is_chinese_sentence(text) or event["visibility"] == {
                    "public": False, "seats": []}, text  # GM chains stay in English
    assert len(seen) >= 30, seen  # random games reach most kinds; the rest are built below


RARE = [
    {"kind": "attack_dropped", "data": {"seat": 0, "card": "KILLER", "target": 2}},
    {"kind": "manifesto_rejected", "data": {"seat": 0, "reason": "太短"}},
    {"kind": "camp_default_set", "data": {"seat": 5, "camp": "wolf"}},
    {"kind": "game_aborted", "data": {"reason": "服务器维护"}},
    {"kind": "foul_out", "data": {"seat": 3, "reason": "no vote and no proxy vote"}},
    {"kind": "chance", "data": {"purpose": "free_agent_camp", "seat": 5, "result": "wolf"}},
    {"kind": "loss_explained", "data": {"seat": 1, "card": None, "cause": "attack"}},
]


@pytest.mark.parametrize("event", RARE, ids=[e["kind"] for e in RARE])
def test_rare_events_read_as_chinese_sentences(event, chinese):
    event = dict(event, visibility={"public": True, "seats": []}, because=[])
    with translation.override("zh-hans"):
        text = P.present(event, NAMES)
    assert text and is_chinese_sentence(text), text


def test_public_card_losses_name_only_the_camp(games, chinese):
    """§5.8: the public sentence of a loss names the seat, the camp and the cause; the card
    itself only reaches the seat (own_card_lost) and the GM (loss_explained)."""
    checked = 0
    for state in games:
        log = state["log"]
        for i, event in enumerate(log):
            if event["kind"] != "card_lost":
                continue
            own = next(e for e in log[i:] if e["kind"] == "own_card_lost"
                       and e["data"]["seat"] == event["data"]["seat"])
            card = own["data"]["card"]
            for lang in ("zh-hans", "en"):
                with translation.override(lang):
                    public_text = P.present(event, NAMES)
                    private_text = P.present(own, NAMES)
                    assert P.camp_name(event["data"]["camp"]) in public_text
                    assert P.card_name(card) in private_text
                    # the camp KILLER and the card KILLER share the Chinese word 杀手
                    if P.card_name(card) != P.camp_name(event["data"]["camp"]):
                        assert P.card_name(card) not in public_text, public_text
                    assert card not in public_text
            checked += 1
    assert checked > 20


def test_public_sentences_name_no_card_of_any_hand(games, chinese):
    """Only the cards the rules make public may appear in a public sentence: the cause of a
    loss (STRIKE, BOMB, SAINT), the spared execution (PARDON), the day count (CURSE, BLESS),
    and everything once the game is over."""
    allowed = {"STRIKE", "BOMB", "SAINT", "PARDON", "CURSE", "BLESS"}
    with translation.override("zh-hans"):
        for event in all_events(games):
            if not event["visibility"]["public"] or event["kind"] in ("game_over", "manifesto"):
                continue
            text = P.present(event, NAMES)
            for code, (_camp, _n, zh) in CARDS.items():
                if code in allowed or zh in CAMP_NAMES_ZH.values():
                    continue
                assert zh not in text and code not in text, (event, text)


def test_private_results_are_written_to_the_seat(games, chinese):
    with translation.override("zh-hans"):
        for event in all_events(games):
            vis = event["visibility"]
            if vis["public"] or not vis["seats"] or event["kind"] in (
                    "proxy_vote_received", "card_chosen", "loss_order_set"):
                continue
            assert "你" in P.present(event, NAMES), event


def test_gm_only_events_carry_the_chain_of_causes_for_english_readers_only(games, chinese):
    """An English reader gets the chain of reasons after the sentence; a Chinese reader the
    Chinese sentence alone, the timeline and the console listing the chain apart,
    translated (no explanation twice)."""
    checked = 0
    for event in all_events(games):
        if event["kind"] in ("loss_explained", "action_resolved", "count", "chance") \
                and event["because"]:
            with translation.override("en"):
                text = P.present(event, NAMES)
                chain = because_chain("ninelives", event, NAMES)
            assert all(f"- {line}" in text for line in chain), (text, chain)
            with translation.override("zh-hans"):
                text = P.present(event, NAMES)
                chain = because_chain("ninelives", event, NAMES)
            assert not any(line in text for line in chain), (text, chain)
            checked += 1
    assert checked > 0


def test_an_investigation_says_yes_or_no(chinese):
    event = {"kind": "investigation", "visibility": {"public": False, "seats": [2]},
             "because": [], "data": {"seat": 2, "card": "DIVINER", "target": 0,
                                     "asked": "KILLER", "found": True}}
    with translation.override("zh-hans"):
        yes = P.present(event, NAMES)
        event["data"]["found"] = False
        no = P.present(event, NAMES)
    assert yes == "你用占卜查验1号阿猫是否持有杀手，结果：**是**。"
    assert no.endswith("结果：**否**。")


def test_the_tally_reads_the_same_flat_or_nested(chinese):
    flat = {"seat": 1, "day": 2, "tally": {"1": 3, "0": 1},
            "adjustments": [{"target": 1, "delta": 1}]}
    nested = {"seat": 1, "day": 2, "tally": {"tally": {"1": 3, "0": 1},
                                             "adjustments": [{"target": 1, "delta": 1}]}}
    with translation.override("zh-hans"):
        a = P.present({"kind": "execution", "data": flat}, NAMES)
        b = P.present({"kind": "execution", "data": nested}, NAMES)
    assert a == b
    assert "2号阿狗 3票、1号阿猫 1票" in a and "2号阿狗 +1" in a and "诅咒" in a


# --- labels --------------------------------------------------------------------------------

def test_labels_name_the_card_and_the_seat(chinese):
    sniper = Choice("use_card", {"card": "SNIPER", "target": 2},
                    (TextField("manifesto", min_chars=100),))
    story = Choice("use_card", {"card": "SNIPER", "target": 2}, (TextField("story"),))
    with translation.override("zh-hans"):
        assert choice_label("ninelives", sniper, NAMES).startswith("使用 狙击手 → 3号小白")
        assert "杀人宣言" in choice_label("ninelives", sniper, NAMES)
        assert "剧情" in choice_label("ninelives", story, NAMES)
        assert choice_label("ninelives", Choice("use_card", {"card": "VEST"}), NAMES) == \
            "使用 防弹衣"
        assert choice_label("ninelives", Choice("vote", {"target": 1}), NAMES) == "投票给 2号阿狗"
        order = Choice("loss_order", {"cards": ["VEST", "JAIL", "DEMON", "KILLER"]})
        assert choice_label("ninelives", order, NAMES) == \
            "丢牌顺序：防弹衣 → 禁锢 → 恶魔 → 杀手（底牌杀手最后丢）"
    with translation.override("en"):
        assert choice_label("ninelives", sniper, NAMES).startswith("Use SNIPER → seat 3 小白")


def test_every_offered_choice_has_a_label(games, chinese):
    from games.engine.ninelives.rules import NineLives

    rules = NineLives()
    state = rules.initial_state(seats=6, config=None, seed="labels").state
    with translation.override("zh-hans"):
        for actor in list(range(6)) + ["gm"]:
            for choice in rules.legal_actions(state, actor):
                text = P.label(choice, NAMES)
                assert text and "%(" not in text and is_chinese_sentence(
                    text.replace("神的使者", "")), choice


# --- refusals ------------------------------------------------------------------------------

REFUSAL_PARAMS = {"card": "WITCH_DOCTOR", "core": "KILLER", "min": 100, "got": 12}


def test_every_refusal_code_has_a_chinese_sentence(chinese):
    codes = refusal_codes()
    assert len(codes) >= 40
    with translation.override("zh-hans"):
        for code in codes:
            params = {k: REFUSAL_PARAMS[k] for k in R.table[code]}
            text = refusal_text("ninelives", Refusal(code, params=params))
            assert is_chinese_sentence(text), (code, text)


def test_refusals_name_the_card_from_their_arguments(chinese):
    with translation.override("zh-hans"):
        assert P.refusal(Refusal("not_in_hand", params={"card": "SNIPER"})) == "你手里没有狙击手。"
        assert P.refusal(Refusal("night_only", params={"card": "WITCH_DOCTOR"})) == \
            "巫医只能在夜里使用。"
        text = P.refusal(Refusal("manifesto_too_short", params={"min": 100, "got": 12}))
        assert "%(" not in text and "12" in text and "100" in text


def test_an_unknown_code_has_no_sentence_of_its_own():
    assert P.refusal(Refusal("brand_new")) is None


# --- seat facts for the home page ------------------------------------------------------------

def test_seat_facts_show_lost_camps_life_and_death(games, chinese):
    state = next(s for s in games if not all(s["public"]["alive"]))
    from games.engine.ninelives.rules import NineLives

    view = NineLives().view(state, "spectator")
    with translation.override("zh-hans"):
        for seat, alive in enumerate(state["public"]["alive"]):
            facts = P.seat_facts(view, seat)
            lost = state["public"]["lost"][seat]
            if lost:
                assert facts.startswith("已丢：" + "、".join(CAMP_NAMES_ZH[c] for c in lost))
            else:
                assert facts.startswith("未丢牌")
            if alive:
                assert "存活" in facts
            else:
                camp = state["private"][seat]["camp"]
                assert "死亡" in facts or "出局" in facts
                assert CAMP_NAMES_ZH[camp] + "阵营" in facts
    assert P.seat_facts(None, 0) == ""


# --- the catalogue ---------------------------------------------------------------------------

def test_the_catalogue_translates_every_msgid_with_the_same_placeholders():
    every = read_catalog(DJANGO_PO)
    translated = {(m.context, m.id) for m in every if m.id and m.string}
    used = python_msgids() | template_msgids()
    missing = sorted(str(i) for i in used - translated)
    assert not missing, missing
    catalog = {(m.context, m.id): m.string for m in ninelives_entries(every)}
    assert len(catalog) > 150
    unused = sorted(str(i) for i in set(catalog) - used)
    assert not unused, unused
    for (_context, msgid), msgstr in catalog.items():
        assert msgstr and (re.search(r"[\u4e00-\u9fff]", msgstr) or msgid == ", "), msgid
        assert placeholders(msgid) == placeholders(msgstr), msgid


def test_visibility_is_the_engines(games):
    """The presenter is only ever handed events a viewer may see: a seat's conversation gets
    events whose visibility names it (the machinery's filter), so the sentences above cannot
    reach another seat. This checks the engine's side of that contract on real games."""
    for state in games:
        for event in state["log"]:
            if event["kind"] in ("hand_dealt", "investigation", "own_card_lost"):
                seat = event["data"]["seat"]
                others = [s for s in range(len(state["private"])) if s != seat]
                assert visible_to(event["visibility"], seat)
                assert not any(visible_to(event["visibility"], s) for s in others)


def test_phase_names_for_titles_and_nothing_announced_at_once(chinese):
    from games.presenters import announce_at_once, phase_title

    with translation.override("zh-hans"):
        assert [phase_title("ninelives", n) for n in ("night", "day", "runoff")] == [
            "夜", "白天", "生死投票"]
        assert phase_title("ninelives", "setup") is None
    with translation.override("en"):
        assert phase_title("ninelives", "runoff") == "Runoff vote"
    assert announce_at_once("ninelives") == frozenset()
