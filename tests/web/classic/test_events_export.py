"""events.json numbers every seat of a Classic night from 1 by what the engine declares each
field holds (games/engine/events.py), the fields a list of names once missed among them (the
death pact, the possession, the guardians' pairs, a vote's count in a reason), and gives a
player's words as plain text with their speaker (games/web/events_export.py)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games import services
from games.engine.classic.reasons import R as WHY
from games.web.events_export import as_plain_text, data_json, reason_args, speaker_json
from messaging.words import words_block
from tests.factories import fresh
from tests.factories.classic import act, pub

pytestmark = pytest.mark.django_db

# 1-based: police 1 5 9, bandits 2 6 10 (10 the ghost), the poison 3.
ROLES = ["police", "bandit", "poison", "civilian", "police", "bandit", "civilian", "civilian",
         "police", "ghost", "civilian"]
POLICE, BANDITS, GHOST = [0, 4, 8], [1, 5, 9], 9
WORDS = "# 我不是匪\n**真的**，~~~ 信我 ~~~\n- 4号"


@pytest.fixture
def night_one(players, gm):
    """A ghost-and-poison game after its first night: the bandits kill seat 4 (engine 3)
    with 2号 (engine 1) as the death pact's bandit, the ghost possesses 7号 (engine 6), the
    police check 4号 (everyone has answered: the night ends); then 4号 leaves last words
    written in Markdown."""
    game = services.create_game(name="导出局", ruleset="classic", gm=gm, seat_count=11,
                                config={"fixed_roles": ROLES, "variant_ghost_poison": True})
    game = services.start_game(game_id=game.pk, users=players, seed="export")
    for b in BANDITS:
        act(game, b, "kill", target=3, pact=BANDITS[0])
    act(game, GHOST, "possess", target=6)
    for p in POLICE:
        act(game, p, "check", target=3)
    assert pub(game)["phase"] == "last_words"  # everyone answered: the night is over
    act(game, 3, "last_words", text=WORDS)
    return fresh(game)


def export(client, user, game) -> dict:
    client.force_login(user)
    return client.get(reverse("game-events-json", args=[game.pk])).json()


def only(data: dict, kind: str) -> list[dict]:
    return [e for e in data["events"] if e["kind"] == kind]


def test_the_night_s_pact_possession_and_check_are_numbered_from_1(night_one, gm, client):
    data = export(client, gm, night_one)
    proposals = only(data, "kill_proposed")
    assert [(e["data"]["seat"], e["data"]["target"], e["data"]["pact"]) for e in proposals] == [
        (2, 4, 2), (6, 4, 2), (10, 4, 2)]
    [resolved] = only(data, "night_resolved")
    assert resolved["data"] == {"victim": 4, "pact": 2, "check": 4, "possess": 7,
                                "protecting": []}
    [possessed] = only(data, "possessed")
    assert possessed["data"] == {"seat": 7, "team": [2, 6, 7, 10]}


def test_a_bandit_s_own_export_gives_the_pact_from_1_during_the_game(night_one, client):
    bandit = night_one.seats.get(number=BANDITS[1]).user
    data = export(client, bandit, night_one)
    assert not data["complete"]
    assert [e["data"]["pact"] for e in only(data, "kill_proposed")] == [2, 2, 2]
    assert only(data, "night_resolved") == []  # the GM's alone


def test_last_words_are_plain_text_with_their_speaker(night_one, gm, client):
    data = export(client, gm, night_one)
    [words] = only(data, "last_words")
    assert words["speaker"] == 4 and words["data"]["seat"] == 4
    assert words["data"]["text"] == WORDS
    assert WORDS in words["text"], "the words exactly as written"
    assert words["text"].startswith("4号老黑")
    assert "player-words" not in words["text"] and "~~~~" not in words["text"]
    assert {e["speaker"] for e in data["events"] if e["kind"] != "last_words"} == {None}
    assert "**" not in "".join(e["text"] for e in only(data, "role"))  # no Markdown left


# --- the conversion, event by event -------------------------------------------------------

def test_guardians_pairs_and_a_vote_count_in_a_reason_are_numbered_from_1():
    data = {"victim": None, "pact": None, "check": 0, "possess": None,
            "protecting": [[3, 4], [7, 0]]}
    assert data_json("classic", "night_resolved", data) == dict(
        data, check=1, protecting=[[4, 5], [8, 1]])
    reason = WHY("votes_per_seat", tally=[[0, 3], [4, 1]])
    assert reason_args("classic", reason) == {"tally": [[1, 3], [5, 1]]}


def test_a_field_or_a_kind_nobody_declared_is_left_out():
    assert data_json("classic", "speech", {"seat": 2, "stage": 0, "text": "好", "x": 4}) == {
        "seat": 3, "stage": 0, "text": "好"}
    assert data_json("classic", "no_such_kind", {"seat": 2}) == {}
    assert data_json("no_such_ruleset", "speech", {"seat": 2}) == {}
    assert speaker_json("classic", "speech", {"seat": 2, "text": "好"}) == 3
    assert speaker_json("ninelives", "manifesto", {"target": 1, "text": "好"}) is None


def test_a_gm_act_is_numbered_by_its_declaration():
    assert data_json("ninelives", "gm_foul_out", {"seat": 0, "reason": "x", "gm": "天神"}) == {
        "seat": 1, "reason": "x", "gm": "天神"}
    assert data_json("classic", "gm_rollback", {"seat": None, "steps": [3, 4], "gm": "g"}) == {
        "seat": None, "steps": [3, 4], "gm": "g"}


def test_plain_text_keeps_the_words_as_written_and_drops_the_markup():
    text = "**3号小白** 发言：\n\n" + words_block(WORDS, "3号小白") + "\n\n（过）"
    assert as_plain_text(text) == f"3号小白 发言：\n\n{WORDS}\n\n（过）"
