"""The Classic presenter and its catalogue: every event the engine can emit and every choice
it offers reads as a Chinese sentence, every refusal the engine can give has one, and the
Chinese catalogue (django.po) holds a translation for every message the presenter and the panel
use."""

from __future__ import annotations

import ast
import io
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation
from django.utils.translation.template import templatize

from games.engine.base import Refusal
from games.engine.classic import roles as R
from games.engine.classic.rules import Classic
from games.engine.conformance import random_playthrough
from games.presenters import choice_label, describe, refusal_text
from games.presenters import classic as P
from tests.factories.classic import classic_entries, read_catalogue, zh_catalogue  # noqa: F401

ENGINE = Path(settings.BASE_DIR) / "games/engine/classic"
NAMES = {s: f"玩家{s + 1}" for s in range(12)}
CJK = re.compile(r"[\u4e00-\u9fff]")
# Private events about the reader itself: they say "you", not the reader's seat.
SELF_ADDRESSED = {"role", "protection_skipped", "poison_checked", "guardian_lapsed"}
CONFIGS = [{}, {"variant_ghost_poison": True}, {"guardian": True}, {"dual_guardians": True},
           {"variant_ghost_poison": True, "dual_guardians": True}]


@pytest.fixture(autouse=True)
def chinese(zh_catalogue):  # noqa: F811 (the fixture imported above)
    with translation.override("zh-hans"):
        yield


@pytest.fixture(scope="module")
def plays():
    """Seeded random games, one per option mix (the generic conformance player)."""
    return [random_playthrough(Classic(), seats=12, seed=seed, config=config,
                               garbage_odds=0.0, max_steps=1500)
            for seed, config in enumerate(CONFIGS)]


def engine_event_kinds() -> set[str]:
    """Every event kind the engine declares (games/engine/classic/kinds.py, its schema): the
    played games of tests/engine/test_event_fields.py hold the engine to emitting only
    declared kinds, and to emitting every one of them."""
    from games.engine import registry

    return set(registry.get("classic").schema.events)


def test_the_presenter_knows_every_event_kind_the_engine_writes():
    kinds = engine_event_kinds()
    assert {"dawn", "verdict", "check_result", "possessed", "guardian_lapsed"} <= kinds
    assert kinds <= set(P.EVENTS), kinds - set(P.EVENTS)


def test_every_event_of_random_games_reads_as_a_chinese_sentence(plays):
    seen = set()
    for play in plays:
        for event in play.final["log"]:
            text = describe("classic", event, NAMES)
            seen.add(event["kind"])
            assert "%(" not in text, text
            if not (event["visibility"]["public"] or event["visibility"]["seats"]):
                # GM-only notes (deal, lots, the night's resolution) for the console: Chinese,
                # every sentence of the night's resolution known to the presenter's table
                assert CJK.search(text) and "**" + event["kind"] not in text, text
                unknown = [b for b in event["because"] if P.REASONS.render(b, NAMES) is None]
                assert event["kind"] != "night_resolved" or not unknown, unknown
                seen.add("gm:" + event["kind"])
                continue
            assert CJK.search(text) and "**" + event["kind"] not in text, (event["kind"], text)
            if event["kind"] in SELF_ADDRESSED:
                continue
            for key in ("seat", "target", "voter"):
                if isinstance(event["data"].get(key), int):
                    assert f"{event['data'][key] + 1}号" in text, (event["kind"], text)
    assert {"dawn", "vote", "vote_result", "verdict", "check_result", "game_over"} <= seen
    assert {"gm:chance", "gm:night_resolved"} <= seen


def test_every_offered_choice_has_a_chinese_label(plays):
    rules = Classic()
    kinds = set()
    for play in plays:
        for state in play.states[::7]:
            for seat in range(12):
                for choice in rules.legal_actions(state, seat):
                    kinds.add(choice.kind)
                    text = choice_label("classic", choice, NAMES)
                    assert P.label(choice, NAMES) == text and CJK.search(text), choice
                    if "target" in choice.params:
                        assert f"{choice.params['target'] + 1}号" in text
    assert {"kill", "check", "vote", "abstain", "speak", "defer", "team_message"} <= kinds


def test_a_confirmation_restates_the_step_in_chinese():
    confirm = {"visibility": {"public": False, "seats": []}}
    assert describe("classic", {**confirm, "kind": "kill", "data": {"target": 2, "pact": 4}},
                    NAMES) == "提议杀3号玩家3，生死状：5号玩家5"
    assert describe("classic", {**confirm, "kind": "vote", "data": {"target": 0}},
                    NAMES) == "投票给1号玩家1"
    assert describe("classic", {**confirm, "kind": "last_words", "data": {"text": "x"}},
                    NAMES) == "我的遗言"
    assert describe("classic", {**confirm, "kind": "team_message", "data": {"text": "x"}},
                    NAMES) == "给队友的留言"


def event(kind, **data):
    return {"kind": kind, "visibility": {"public": True, "seats": []}, "because": [],
            "data": data}


def test_dawn_hides_what_the_engine_withholds_and_names_the_poison_pair_together():
    pair = event("dawn", number=2, dereliction=[6],
                 deaths=[{"seat": 2, "label": None, "last_words": True},
                         {"seat": 4, "label": None, "last_words": False},
                         {"seat": 6, "label": "guardian", "last_words": False}],
                 pair={"seats": [2, 4], "label": "possessed_bandit"})
    text = P.present(pair, NAMES)
    assert "3号玩家3：身份不公布（留遗言）、5号玩家5：身份不公布" in text
    assert "3号玩家3、5号玩家5之中一人是毒药，另一人是被附体匪" in text
    assert "7号玩家7因渎职而死" in text
    assert "毒药" not in text.split("之中")[0]  # the list of deaths itself names no poison
    quiet = P.present(event("dawn", number=1, deaths=[], pair=None, dereliction=[]), NAMES)
    assert quiet == "第1天天亮。夜里无人死亡。"


@pytest.mark.parametrize("data, sentence", [
    ({"stage": 0, "eliminated": [3], "tied": []}, "4号玩家4得票最多。"),
    ({"stage": 0, "eliminated": [], "tied": [1, 3]}, "2号玩家2、4号玩家4平票最高。"),
    ({"stage": 2, "eliminated": [], "tied": [1, 3]}, "2号玩家2、4号玩家4第三次平票：今天无人出局。"),
    ({"stage": 1, "eliminated": [1, 3], "tied": [1, 3]},
     "2号玩家2、4号玩家4平票最高：守护神与其被守护人，两人同死。"),
    ({"stage": 0, "eliminated": [], "tied": []}, "无人得票：今天无人出局。"),
])
def test_each_vote_result_has_its_sentence(data, sentence):
    assert P.present(event("vote_result", **data), NAMES) == sentence


def test_a_malformed_event_falls_back_to_the_generic_text_instead_of_failing():
    assert P.present(event("dawn"), NAMES) is None
    assert describe("classic", event("dawn"), NAMES).startswith("**dawn**")
    assert P.present(event("no_such_kind"), NAMES) is None


# --- refusals ---------------------------------------------------------------------------------

def engine_refusal_codes() -> set[str]:
    """Every refusal code the engine source names: the first argument of its `refuse` /
    `_refuse` calls, the target refusals of the action table (`bad_target=`) and the
    kill's parameter refusal (`kill_keys`)."""
    nodes = [node for name in ("rules.py", "actions.py")
             for node in ast.walk(ast.parse((ENGINE / name).read_text(encoding="utf-8")))]
    found = set()
    for node in nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            found |= {k.value.value for k in node.keywords
                      if k.arg == "bad_target" and isinstance(k.value, ast.Constant)}
            if node.func.id in ("_refuse", "refuse") and node.args:
                found |= {c.value for c in ast.walk(node.args[0])
                          if isinstance(c, ast.Constant) and isinstance(c.value, str)}
        if isinstance(node, ast.FunctionDef) and node.name == "kill_keys":
            found |= {c.value for c in ast.walk(node) if isinstance(c, ast.Constant)
                      and isinstance(c.value, str) and c.value.startswith("kill_")}
    return found


def test_every_refusal_the_engine_can_give_is_a_chinese_sentence():
    codes = engine_refusal_codes()
    assert len(codes) > 30 and {"bad_kill_target", "bad_vote_target", "kill_needs_pact",
                                "bad_params", "bad_text_length"} <= codes
    for code in codes:
        refusal = Refusal(code, params={"min": 1, "max": 20000} if code == "bad_text_length"
                          else {})
        text = P.refusal(refusal)
        assert text is not None, code
        assert CJK.search(text) and not re.search(r"[A-Za-z]{2,}", text), (code, text)
        assert refusal_text("classic", refusal) == text
    assert P.refusal(Refusal("bad_text_length", params={"min": 1, "max": 300})) == \
        "内容须为1到300个字符。"


def test_a_refusal_code_the_table_does_not_know_is_left_to_the_machinery():
    assert P.refusal(Refusal("new_code")) is None


# --- the catalogue ---------------------------------------------------------------------------

def used_messages() -> set[tuple[str | None, str]]:
    """(context, msgid) of every message the presenter and the panel template mark, the way
    makemessages finds them."""
    from babel.messages.extract import extract

    keywords = {"_": None, "gettext": None, "gettext_lazy": None, "gettext_noop": None,
                "pgettext": ((1, "c"), 2), "pgettext_lazy": ((1, "c"), 2),
                "ngettext": (1, 2), "npgettext": ((1, "c"), 2, 3)}
    base = Path(settings.BASE_DIR)
    sources = [(base / "games/presenters/classic.py").read_text(encoding="utf-8"),
               templatize((base / "templates/games/panels/classic.html").read_text(
                   encoding="utf-8"))]
    found = set()
    for source in sources:
        for _line, message, _comments, context in extract(
                "python", io.BytesIO(source.encode("utf-8")), keywords=keywords):
            found.add((context, message))
    return found


def test_the_catalogue_translates_every_message_in_use_and_nothing_stale():
    """Every message in use has a translation; every entry the catalogue places in the presenter
    or the panel is still in use there."""
    every = read_catalogue()
    catalogue = {(m.context, m.id): m.string for m in every if m.id}
    used = used_messages()
    assert len(used) > 150
    missing = sorted((k for k in used if not catalogue.get(k)), key=str)
    assert not missing, missing
    ours = {(m.context, m.id) for m in classic_entries(every)}
    assert len(ours) > 150
    stale = sorted((k for k in ours if k not in used), key=str)
    assert not stale, stale


def test_every_translation_keeps_the_placeholders_of_its_msgid():
    placeholder = re.compile(r"%\(\w+\)[sd]")
    for message in classic_entries(read_catalogue()):
        if message.id:
            assert sorted(placeholder.findall(message.id)) == sorted(
                placeholder.findall(message.string)), message.id


def test_every_role_and_phase_code_the_panel_shows_has_a_translation():
    catalogue = {(m.context, m.id): m.string for m in read_catalogue() if m.id}
    roles = {*R.ROLES, R.POSSESSED_BANDIT, R.GHOST}
    source = "\n".join(p.read_text(encoding="utf-8") for p in ENGINE.glob("*.py"))
    found = re.findall(r'phase="([a-z_]+)"(?: if [^\n]* else "([a-z_]+)")?', source)
    phases = {code for pair in found for code in pair if code} | {"setup", "over"}
    assert {"night", "speech", "tie_vote", "extra_check", "last_words"} <= phases
    for code in roles:
        assert CJK.search(catalogue.get(("classic role", code), "")), code
    for code in phases:
        assert CJK.search(catalogue.get(("classic phase", code), "")), code


# --- the home page's seat facts and phase titles ---------------------------------------------

def test_seat_facts_read_only_the_public_part(plays):
    rules = Classic()
    for play in plays:
        for state in play.states[::11]:
            public_only = {"public": state["public"]}
            for viewer in (0, "spectator"):
                view = rules.view(state, viewer)
                for seat in range(12):
                    assert P.seat_facts(view, seat) == P.seat_facts(public_only, seat)


def test_seat_facts_name_the_dead_with_what_was_revealed_and_the_current_slot():
    public = {"phase": "vote", "alive": [True, False, True, False], "death_order": [3, 1],
              "revealed": [None, "bandit", None, None], "queue": [0, 2], "turn": 1,
              "done": False, "last_words_due": [], "last_words_given": [],
              "final_roles": None, "outcome": None}
    facts = [P.seat_facts({"public": public}, s) for s in range(4)]
    assert facts == ["", "出局（第2个死者）：匪", "正在投票", "出局（第1个死者）：身份不公布"]
    over = dict(public, final_roles=["police", "bandit", "ghost", "civilian"],
                outcome={"result": "police", "winners": [0, 3]})
    assert [P.seat_facts({"public": over}, s) for s in range(4)] == [
        "警 · 获胜", "匪", "鬼匪", "民 · 获胜"]


def test_phase_titles_are_translated_and_unknown_phases_left_to_the_machinery():
    assert [P.phase_label(p) for p in ("night", "tie_vote", "last_words")] == [
        "夜晚", "平票投票", "遗言"]
    assert P.phase_label("day") is None


def test_gm_notes_read_reason_by_reason_in_the_readers_language():
    event = {"kind": "night_resolved", "visibility": {"public": False, "seats": []},
             "data": {}, "because": [
                 {"code": "killed_by_bandits", "args": {"seat": 2}},
                 {"code": "guardian_protects", "args": {"seat": 4, "target": 1}},
                 {"code": "possession_without_effect",
                  "args": {"seat": 3, "role": "police_guardian"}}]}
    text = describe("classic", event, NAMES)
    assert text == ("夜晚结算：3号玩家3被匪徒杀死。 守护神5号玩家5本轮守护2号玩家2。 "
                    "鬼匪附体了4号玩家4（警神）：无效。")
    with translation.override("en"):
        english = describe("classic", event, NAMES)
    assert "玩家3 (seat 3) was killed by the bandits." in english
    assert "The ghost possessed 玩家4 (seat 4) (police guardian): no effect." in english
    lot = {"kind": "chance", "visibility": {"public": False, "seats": []},
           "data": {"purpose": "kill_tie", "among": [1, 6], "drawn": 6},
           "because": [{"code": "lot_breaks_tie", "args": {"seats": [1, 6]}}]}
    text = describe("classic", lot, NAMES)
    assert "2号玩家2" in text and text.count("7号玩家7") == 2 and "lot" not in text
