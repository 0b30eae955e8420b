"""Games stored while explanations were English sentences get their reasons back as data:
the migration replays each game from its setup and replay log and writes the engine's
reasons into the stored events, the state and the result (games 0025)."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from games.engine.reasons import is_reason
from games.models import Event, Game
from tests.factories import fresh
from tests.web.test_players_see_no_engine_data import NAMES
from tests.web.test_review_rulesets import random_game

pytestmark = [pytest.mark.django_db]

migration = importlib.import_module("games.migrations.0025_reasons_as_data")


def english_game(ruleset: str, make_user) -> Game:
    """A finished game made to look like one stored before: English sentences in every
    chain, an English summary as its result."""
    users = [make_user(n) for n in NAMES]
    gm = make_user("天神", staff=True)
    for seed in range(11, 21):
        game, _accepted, _refused = random_game(ruleset, users, gm, seed=seed)
        if fresh(game).status == Game.Status.FINISHED:
            break
        users = [make_user(f"{n}{seed}") for n in NAMES]
    game = fresh(game)
    assert game.status == Game.Status.FINISHED
    Event.objects.filter(game=game).update(because=["Seat 3 was attacked during night 2 (§3.5.2)."])
    state = game.state
    for event in state["log"]:
        event["because"] = ["an English sentence"]
    outcome = {"result": game.outcome["result"], "winners": game.outcome["winners"],
               "summary": "Every killer and wolf seat is dead: the civilians win (§10.1)."}
    Game.objects.filter(pk=game.pk).update(state=state, outcome=outcome)
    return game


@pytest.mark.parametrize("ruleset", ["ninelives", "classic", "gold"])
def test_a_game_stored_with_english_chains_gets_its_reasons(ruleset, make_user):
    game = english_game(ruleset, make_user)
    stored = Event.objects.filter(game=game).count()
    migration.forwards(apps, None)
    game = fresh(game)
    assert "summary" not in game.outcome
    assert is_reason(game.outcome["reason"])
    for event in Event.objects.filter(game=game):
        assert all(is_reason(b) for b in event.because), (event.kind, event.because)
        if event.seq is None and event.kind.startswith("gm_"):
            assert event.because == [{"code": "gm_action", "args": {"act": event.kind[3:]}}]
    assert all(is_reason(b) for e in game.state["log"] for b in e["because"])
    assert stored == Event.objects.filter(game=game).count()
    explained = [e for e in Event.objects.filter(game=game) if e.because]
    assert explained, "the replay gave the chains back"


def test_an_aborted_game_keeps_the_gm_s_words_as_its_note(make_user):
    game = english_game("gold", make_user)
    Game.objects.filter(pk=game.pk).update(
        status=Game.Status.ABORTED,
        outcome={"result": "aborted", "winners": [], "summary": "天神临时有事"})
    migration.forwards(apps, None)
    assert fresh(game).outcome == {"result": "aborted", "winners": [], "note": "天神临时有事"}
