"""谁偷了我的金币 on the lifecycle machinery: a simultaneous pick, then priority and operation
turns in seat order from the lead, each with its own deadline, defaults through the sweeper,
readable refusals, and a whole game whose log replays to the stored state."""

from __future__ import annotations

import datetime as dt
import json
import random
from html import unescape

import pytest
import time_machine
from django.urls import reverse

from games import selectors, services
from games.engine import registry
from games.engine.base import replay
from games.engine.gold.rules import CARDS
from games.models import Action, Event, Game, Phase
from games.presenters import describe, refusal_text
from messaging.models import Message, Thread
from tests.factories.gold import (
    DURATIONS,
    T0,
    act,
    after_deadline,
    fresh,
    pick_all,
    seed_where,
    user_of,
)

pytestmark = pytest.mark.django_db


def conversation(game: Game, number: int) -> list[str]:
    seat = game.seats.get(number=number)
    return list(Message.objects.filter(conversation=seat.conversation)
                .order_by("created_at", "id").values_list("body", flat=True))


def announcements(game: Game) -> str:
    thread = Thread.objects.get(board=game.board, key="announcements")
    return "\n".join(thread.posts.order_by("id").values_list("body", flat=True))


def sentence(game: Game, kind: str, **match) -> str:
    """The presenter's sentence for the latest stored event of `kind` (matching `match`)."""
    events = [e for e in Event.objects.filter(game=game, kind=kind).order_by("-id")
              if all(e.data.get(k) == v for k, v in match.items())]
    assert events, f"no {kind} event with {match}"
    return describe("gold", events[0].as_engine_event(), selectors.seat_names(game))


def test_the_game_opens_with_a_secret_pick_and_its_deadline(start_gold):
    game = start_gold()
    assert game.phase_name == "pick" and game.phase_number == 1
    assert game.deadline == T0 + dt.timedelta(minutes=DURATIONS["pick"])
    text = announcements(game)
    assert sentence(game, "round_started") in text
    dealt = Event.objects.get(game=game, kind="round_started")  # the virtual cards are public
    assert dealt.public and dealt.data["virtual"] == [
        spot["shown"] for spot in game.state["public"]["virtual"]]
    assert all(conversation(game, n) == [] for n in range(3))


def test_picks_stay_secret_until_everyone_has_picked_then_are_shown_together(start_gold):
    game = start_gold()
    act(game, 1, "pick", card="ASSASSIN")
    game = fresh(game)
    assert game.phase_name == "pick", "one pick must not end the phase"
    assert any(sentence(game, "picked", seat=1) == body for body in conversation(game, 1))
    assert conversation(game, 0) == [] and conversation(game, 2) == []
    before = announcements(game)
    assert sentence(game, "picked", seat=1) not in before
    act(game, 0, "pick", card="KILLER")
    act(game, 2, "pick", card="THIEF")
    game = fresh(game)
    assert game.phase_name in ("priority", "operation") and game.current_phase.seq == 2
    assert Phase.objects.get(game=game, seq=1).end_reason == "early"
    assert game.state["public"]["table"][1]["shown"] == "ASSASSIN"
    assert sentence(game, "revealed") in announcements(game)


def test_a_pick_can_be_changed_until_the_change_cutoff(start_gold):
    game = start_gold()
    act(game, 0, "pick", card="KILLER", now=T0 + dt.timedelta(minutes=5))
    act(game, 0, "pick", card="THIEF", now=T0 + dt.timedelta(minutes=10))
    assert fresh(game).state["private"][0]["pick"] == "THIEF"
    late = fresh(game).deadline - dt.timedelta(minutes=5)
    with pytest.raises(services.GameError) as refused:
        act(game, 0, "pick", card="ASSASSIN", now=late)
    assert "10" in str(refused.value.message)
    assert fresh(game).state["private"][0]["pick"] == "THIEF"


def test_priority_turns_go_from_the_lead_in_seat_order_then_the_operations(start_gold):
    # seats 1 and 3 win the preliminary judgment, seat 2 does not; seat 2 leads
    seed, picks = seed_where(3, lambda s: s[0] > 0 and s[1] == 0 and s[2] > 0)
    game = start_gold(seed=seed, lead=1)
    game = pick_all(game, picks)
    pub = game.state["public"]
    assert pub["tokens"] == ["priority", None, "priority"]
    assert game.phase_name == "priority" and pub["turn"] == 2 and pub["queue"] == [0]
    with pytest.raises(services.GameError) as refused:
        act(game, 0, "take_bonus")
    assert refused.value.code == "not_your_turn" and "{seat}" not in refused.value.message

    opened = fresh(game).current_phase.started_at
    act(game, 2, "take_double", now=opened + dt.timedelta(minutes=3))
    game = fresh(game)
    assert game.phase_name == "priority" and game.state["public"]["turn"] == 0
    assert game.deadline == opened + dt.timedelta(minutes=3 + DURATIONS["priority"])
    act(game, 0, "take_bonus")
    game = fresh(game)
    pub = game.state["public"]
    assert pub["coins"] == [2, 0, 0] and pub["tokens"] == ["priority", None, "double"]
    # the operations: the lead first, then the seat that traded its token (I8)
    assert game.phase_name == "operation" and pub["turn"] == 1 and pub["queue"] == [2]
    act(game, 1, "keep")
    act(game, 2, "keep")
    names = list(Phase.objects.filter(game=game).order_by("seq").values_list("name", flat=True))
    assert names == ["pick", "priority", "priority", "operation", "operation", "pick"]
    game = fresh(game)
    assert game.state["public"]["round"] == 2 and game.state["public"]["lead"] == 2


def test_a_missed_priority_choice_becomes_the_bonus_through_the_sweeper(start_gold):
    seed, picks = seed_where(3, lambda s: s[0] > 0)
    game = pick_all(start_gold(seed=seed), picks)
    assert game.phase_name == "priority" and game.state["public"]["turn"] == 0
    early = game.deadline - dt.timedelta(seconds=1)
    assert services.sweep(now=early) == 0
    assert services.sweep(now=after_deadline(game)) == 1
    game = fresh(game)
    assert game.state["public"]["coins"][0] == 2
    closed = Phase.objects.get(game=game, seq=2)
    assert closed.name == "priority" and closed.end_reason == "deadline"
    assert sentence(game, "bonus", seat=0, missed=True) in announcements(game)


def test_a_missed_operation_turn_keeps_the_card_through_the_sweeper(start_gold):
    seed, picks = seed_where(3, lambda s: not any(s))
    game = pick_all(start_gold(seed=seed), picks)
    assert game.phase_name == "operation" and game.state["public"]["turn"] == 0
    when = after_deadline(game)
    assert services.sweep(now=when) == 1
    game = fresh(game)
    kept = Event.objects.get(game=game, kind="kept")
    assert kept.data == {"seat": 0, "missed": True} and kept.public
    assert game.state["public"]["turn"] == 1
    assert game.deadline == when + dt.timedelta(minutes=DURATIONS["operation"])
    assert sentence(game, "kept", seat=0) in announcements(game)
    assert services.sweep(now=when) == 0, "a second sweep at the same moment changes nothing"


def test_a_missed_pick_is_drawn_at_random_and_told_only_to_that_seat(start_gold):
    game = start_gold()
    act(game, 0, "pick", card="KILLER")
    act(game, 1, "pick", card="KILLER")
    assert services.sweep(now=after_deadline(game)) == 1
    game = fresh(game)
    drawn = Event.objects.get(game=game, kind="pick_defaulted")
    assert not drawn.public and drawn.audience == ",2,"
    assert drawn.data["card"] == game.state["public"]["table"][2]["shown"]
    told = sentence(game, "pick_defaulted")
    assert told in conversation(game, 2)
    assert all(told not in body for n in (0, 1) for body in conversation(game, n))


def test_refusals_are_readable_sentences_and_store_nothing(start_gold, client):
    seed, picks = seed_where(3, lambda s: not any(s))
    game = pick_all(start_gold(seed=seed), picks)
    engine = registry.get("gold")
    steps = Action.objects.filter(game=game).count()
    act(game, 0, "replace", card=next(c for c in CARDS if c != picks[0]), virtual=0)
    game = fresh(game)
    cases = [
        (1, "replace", {"card": next(c for c in CARDS if c != picks[1]), "virtual": 1}),
        (2, "keep", {}),                      # not seat 3's turn
        (1, "swap", {"card": picks[1]}),      # the shown card is no longer in the hand
        (1, "take_bonus", {}),                # not a priority turn
        (1, "flip", {"seat": 2}),             # nothing face down there
    ]
    for number, kind, params in cases:
        expected = engine.apply(game.state, {"actor": number, "kind": kind, "params": params})
        assert not expected
        with pytest.raises(services.GameError) as refused:
            act(game, number, kind, **params)
        assert refused.value.message == refusal_text("gold", expected)
        assert refused.value.code == expected.code
        assert "{" not in refused.value.message and "%(" not in refused.value.message
    assert Action.objects.filter(game=game).count() == steps + 2  # the replacement + the clock

    # the same through the page: a flash message, nothing stored
    client.force_login(user_of(game, 1))
    forged = json.dumps({"kind": "replace", "params": {"card": "THIEF", "virtual": 1}})
    with time_machine.travel(game.deadline - dt.timedelta(minutes=20), tick=False):
        page = client.post(reverse("game-act", args=[game.pk]),
                           {"choice": forged, "phase": str(game.current_phase.seq)},
                           follow=True)
    used = engine.apply(game.state, {"actor": 1, "kind": "replace",
                                     "params": {"card": "THIEF", "virtual": 1}})
    assert refusal_text("gold", used) in unescape(page.content.decode())
    assert Action.objects.filter(game=game).count() == steps + 2


def test_a_whole_game_through_the_services_replays_to_the_stored_state(start_gold):
    """Three rounds of random legal choices; about one turn in five is left to the sweeper."""
    game = start_gold(seed="whole-game", lead=None)
    engine = registry.get("gold")
    rng = random.Random(8)
    steps = 0
    while fresh(game).status == Game.Status.RUNNING:
        steps += 1
        assert steps < 100
        seq = game.current_phase.seq
        for number in sorted(engine.phase(game.state).awaiting):
            if rng.random() < 0.2:
                continue  # this seat lets the deadline pass
            choice = rng.choice(engine.legal_actions(fresh(game).state, number))
            act(game, number, choice.kind, **choice.params)
        game = fresh(game)
        if game.status == Game.Status.RUNNING and game.current_phase.seq == seq:
            assert services.sweep(now=after_deadline(game)) == 1
    game = fresh(game)
    pub = game.state["public"]
    assert game.status == Game.Status.FINISHED and pub["round"] == 3
    outcome = engine.outcome(game.state)
    assert game.outcome["winners"] == list(outcome.winners)
    assert pub["supply"] == 80 - sum(pub["coins"])
    assert sum(sum(r["paid"]) for r in pub["results"]) + 2 * sum(
        1 for r in pub["results"] for c in r["choices"] if c == {"priority": "take_bonus"}) \
        == sum(pub["coins"])
    log = [{"actor": int(a.actor) if a.actor.isdigit() else a.actor, "kind": a.kind,
            "params": a.params} for a in Action.objects.filter(game=game).order_by("seq")]
    rebuilt = replay(engine, {"seats": 3, "config": game.config, "seed": game.seed}, log)
    assert rebuilt == game.state
    assert Event.objects.filter(game=game, kind="pick_defaulted").exists() or \
        Event.objects.filter(game=game, data__missed=True).exists()
    assert sentence(game, "game_over") in announcements(game)
