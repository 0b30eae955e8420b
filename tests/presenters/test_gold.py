"""games/presenters/gold.py and the Chinese catalogue: every event, choice and refusal of the
engine has its own readable sentence, and django.po translates every msgid used."""

from __future__ import annotations

import pytest
from django.utils import translation

from games.engine.base import Choice, Refusal, action
from games.engine.gold.rules import Gold
from games.presenters import choice_label, describe, refusal_text
from games.presenters import gold as gold
from tests.factories import DJANGO_PO, read_catalog
from tests.factories.gold import (
    gold_entries,
    placeholders,
    python_msgids,
    random_game,
    template_msgids,
)

NAMES = {0: "金子", 1: "银子", 2: "铜子", 3: "铁子", 4: "锡子", 5: "铅子"}
LEFTOVERS = ("%(", "{seat}", "None", "[", "]")


@pytest.fixture(scope="module")
def played():
    """Events and offered choices of random games for every player count."""
    events, offered = [], []
    for players in range(2, 7):
        for seed in range(3):
            e, o, _state = random_game(players, seed=players * 10 + seed)
            events += e
            offered += o
    return events, offered


def test_every_event_kind_the_engine_emits_has_its_own_sentence(played):
    events, _offered = played
    kinds = {e["kind"] for e in events}
    assert kinds == set(gold.EVENTS), "an event kind has no sentence, or was never played"
    from games.engine import registry

    assert set(registry.get("gold").schema.events) == kinds  # the engine's declared kinds
    with translation.override("en"):
        for e in events:
            text = gold.present(e, NAMES)
            assert text, e["kind"]
            assert not any(bad in text for bad in LEFTOVERS), text
            if "seat" in e["data"]:
                assert NAMES[e["data"]["seat"]] in text


def test_sentences_number_virtual_players_from_one_and_translate_cards(chinese):
    replaced = {"kind": "replaced", "data": {"seat": 1, "virtual": 0, "removed": "THIEF"}}
    flipped = {"kind": "flipped", "data": {"seat": 2, "card": "ASSASSIN",
                                           "target": {"virtual": 3}}}
    with translation.override("en"):
        assert "virtual player 1" in gold.present(replaced, NAMES)
        assert "virtual player 4" in gold.present(flipped, NAMES)
    with translation.override("zh-hans"):
        text = gold.present(replaced, NAMES)
        assert "虚拟玩家 1" in text and "盗贼" in text and "银子" in text
        assert "THIEF" not in text
        assert "刺客" in describe("gold", flipped, NAMES)


def test_the_coin_rule_sentence_follows_the_judgment():
    def judged(counts, winner, per_card, vanished):
        return gold.judgment_text({"counts": counts, "winner": winner, "per_card": per_card,
                                   "vanished": vanished})

    with translation.override("en"):
        crowd = judged({"KILLER": 5, "ASSASSIN": 2, "THIEF": 1}, None, {}, 4)
        assert "5 KILLER holders" in crowd and "5 or more" in crowd
        empty = judged({"KILLER": 4, "ASSASSIN": 4, "THIEF": 0}, None, {}, 4)
        assert "Nobody holds THIEF" in empty
        split = judged({"KILLER": 3, "ASSASSIN": 2, "THIEF": 3}, "KILLER",
                       {"KILLER": 1, "ASSASSIN": 0, "THIEF": 0}, 1)
        assert "1 for each holder" in split and "1 coin(s) cannot be split" in split
        rest = judged({"KILLER": 3, "ASSASSIN": 0, "THIEF": 1}, "KILLER",
                      {"KILLER": 1, "ASSASSIN": 0, "THIEF": 1}, 0)
        assert "THIEF holders get the rest: 1 each" in rest


def test_a_malformed_or_unknown_event_falls_back_to_the_generic_text():
    assert gold.present({"kind": "final", "data": {"round": 1}}, NAMES) is None
    assert gold.present({"kind": "gm_pause", "data": {}}, NAMES) is None
    assert describe("gold", {"kind": "gm_pause", "data": {}}, NAMES) == "**gm pause**"


def test_every_choice_offered_has_a_label_and_keeps_the_engine_facts(played):
    _events, offered = played
    assert {c.kind for c in offered} == set(gold.CONFIRMATIONS)
    with translation.override("en"):
        for c in offered:
            text = choice_label("gold", c, NAMES)
            assert text == gold.label(c, NAMES) and not any(b in text for b in LEFTOVERS)
            if c.kind == "pick":
                assert ("(your current pick)" in text) == ("current pick" in c.label)
            if c.kind == "replace":
                shown = c.label.split("(showing ")[1].rstrip(")")
                assert f"(it shows {shown})" in text
                assert f"virtual player {c.params['virtual'] + 1}" in text
            if c.kind == "flip" and "seat" in c.params:
                assert NAMES[c.params["seat"]] in text


def test_a_confirmation_restates_the_step():
    confirm = {"kind": "swap", "data": {"card": "KILLER"},
               "visibility": {"public": False, "seats": []}}
    with translation.override("en"):
        assert describe("gold", confirm, NAMES) == "Cover your card with your KILLER, face down"
        assert gold.label(Choice("keep", {}), NAMES) == "Keep your card and do nothing else"


def refusals_from_the_engine() -> list[Refusal]:
    """Provoke refusals on a real 3-player game: one per code the players can meet."""
    engine = Gold()
    state = engine.initial_state(seats=3, config={"lead": 0}, seed="refusals").state
    out = [engine.apply(state, action(0, "take_bonus")),         # still_picking
           engine.apply(state, action(0, "pick", card="JOKER")),  # bad_card
           engine.apply(state, action("gm", "pick", card="THIEF")),  # not_a_seat
           engine.apply(state, action(0, "dance")),               # unknown_action
           engine.apply(state, {"actor": 0, "kind": "pick"})]     # bad_params
    for seat, card in enumerate(["THIEF", "THIEF", "THIEF"]):
        state = engine.apply(state, action(seat, "pick", card=card)).state
    state = engine.end_phase(state).state
    pub = state["public"]
    assert pub["phase"] == "operation" and pub["turn"] == 0
    out.append(engine.apply(state, action(1, "keep")))            # not_your_turn
    out.append(engine.apply(state, action(0, "swap", card="THIEF")))  # card_not_in_hand
    state = engine.apply(state, action(0, "replace", card="KILLER", virtual=0)).state
    state = engine.end_phase(state).state
    out.append(engine.apply(state, action(1, "replace", card="KILLER", virtual=1)))
    out.append(engine.apply(state, action(1, "flip", seat=2)))    # not_face_down
    state = engine.apply(state, action(1, "flip", virtual=0)).state
    state = engine.end_phase(state).state
    out.append(engine.apply(state, action(2, "flip", virtual=0)))  # flip_used
    assert all(isinstance(r, Refusal) for r in out), out
    return out


def test_every_refusal_reads_as_a_chinese_sentence_with_its_seat_filled_in(chinese):
    refusals = refusals_from_the_engine()
    assert {r.code for r in refusals} >= {
        "still_picking", "bad_card", "not_a_seat", "unknown_action", "bad_params",
        "not_your_turn", "card_not_in_hand", "replace_used", "not_face_down", "flip_used"}
    with translation.override("zh-hans"):
        for r in refusals:
            text = refusal_text("gold", r)
            assert "%(" not in text, (r.code, text)
            assert any("\u4e00" <= ch <= "\u9fff" for ch in text), text
            if "seat" in r.params:  # 0-based in the data, from 1 in the sentence
                assert f"{r.params['seat'] + 1} 号座位" in text
    with translation.override("en"):
        used = next(r for r in refusals if r.code == "replace_used")
        assert refusal_text("gold", used) == (
            "Seat 1 already replaced a virtual player's card this round; only one may.")


def test_the_catalogue_translates_every_msgid_the_gold_pages_use():
    catalog = read_catalog(DJANGO_PO)
    translated = {m.id: m.string for m in catalog if m.id and m.context is None}
    used = python_msgids() | template_msgids()
    missing = {m for m in used if not translated.get(m)}
    assert not missing, f"msgids with no translation: {sorted(missing)}"
    ours = {m.id: m.string for m in gold_entries(catalog)}
    assert len(ours) > 100
    unused = set(ours) - used
    assert not unused, f"gold entries nothing uses: {sorted(unused)}"
    for msgid, msgstr in ours.items():
        assert msgstr, f"untranslated: {msgid}"
        assert placeholders(msgid) == placeholders(msgstr), msgid
