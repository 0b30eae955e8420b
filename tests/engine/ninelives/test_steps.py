"""The named steps of a night's and a day's resolution (resolution.py, votes.py), each
called on its own, on a state the test owns, as `end_night` / `end_vote` call them."""

from __future__ import annotations

import copy

from games.engine.ninelives import resolution, votes
from games.engine.ninelives.common import spend_bomb

from .deals import FIVE
from .helpers import MANIFESTO, Game


def night_with(*uses: tuple[int, dict]) -> dict:
    """A copy of night 1 of the FIVE deal with each (seat, use_card params) submitted."""
    game = Game(FIVE)
    for seat, params in uses:
        game.do(seat, "use_card", **params)
    return copy.deepcopy(game.state)


def test_record_card_uses_drops_a_rejected_attack_and_remembers_the_jail():
    state = night_with((0, {"card": "JAIL", "target": 1}),
                       (1, {"card": "WEREWOLF", "target": 2, "manifesto": MANIFESTO}))
    state["private"][1]["action"]["rejected"] = True
    events: list = []
    acts = resolution.record_card_uses(state, events)
    assert sorted(acts) == [0]
    assert [e["kind"] for e in events] == ["attack_dropped"]
    assert state["private"][0]["last_jail"] == {"night": 1, "target": 1}
    assert state["private"][0]["uses"] == {"1": ["night"]}
    assert state["private"][1]["uses"] == {}


def test_apply_blocks_voids_every_power_of_the_jailed_seat():
    state = night_with((0, {"card": "JAIL", "target": 2}),
                       (2, {"card": "DIVINER", "target": 0}),
                       (3, {"card": "PROPHET", "target": 1}))
    events: list = []
    eff = resolution.apply_blocks(state, events, resolution.record_card_uses(state, events))
    assert sorted(eff) == [0, 3]
    assert [(e["kind"], e["data"]["seat"]) for e in events] == [
        ("power_voided", 2), ("action_resolved", 2), ("action_resolved", 0)]


def test_two_bombs_on_each_other_both_land():
    assert resolution.resolve_blocks([(0, 1, "BOMB"), (1, 0, "BOMB")]) == {0: True, 1: True}
    assert resolution.resolve_blocks([(0, 1, "JAIL"), (1, 0, "BOMB")]) == {0: True, 1: False}


def test_attack_result_a_vest_stops_the_killer_before_a_soulbinder_saves():
    guards = resolution.Protections(self_guarded={"VEST": {3}, "WOLFSBANE": set()},
                                    counter=[], guards={"SOULBINDER": {3: 1},
                                                        "WITCH_DOCTOR": {}})
    chain: list[str] = []
    assert resolution.attack_result("KILLER", 3, guards, 1, chain) == "stopped"
    assert resolution.attack_result("KILLER", 2, guards, 1, []) == "lost"
    guards.self_guarded["VEST"] = set()
    assert resolution.attack_result("KILLER", 3, guards, 1, []) == "saved"
    guards.counter = [4]
    assert resolution.attack_result("SNIPER", 2, guards, 1, []) == "stopped"


def test_protection_failures_cost_a_card_on_the_second_quiet_night():
    state = night_with((0, {"card": "WITCH_DOCTOR", "target": 3}))
    state["public"]["phase"]["number"] = 2
    state["secret"]["protect_history"]["WITCH_DOCTOR"] = {
        "seat": 0, "night": 1, "target": 3, "attacked": False}
    eff = {0: state["private"][0]["action"]}
    losses = resolution.protection_failures(state, eff, {"KILLER": set(), "WEREWOLF": set()})
    assert [(seat, cause) for seat, cause, _, _ in losses] == [(3, "failed_protection")]
    attacked = {"KILLER": set(), "WEREWOLF": {3}}
    state["secret"]["protect_history"]["WITCH_DOCTOR"]["night"] = 1
    assert resolution.protection_failures(state, eff, attacked) == []


def test_spend_bomb_removes_it_unannounced_and_moves_the_core_card():
    state = night_with()
    priv = state["private"][4]
    priv["loss_order"] = ["PROPHET", "DEMON", "BLESS", "COUNTER_SNIPER", "BOMB"]
    priv["core_card"] = "BOMB"
    events: list = []
    spend_bomb(state, events, 4)
    assert "BOMB" not in priv["hand"] and priv["core_card"] == "COUNTER_SNIPER"
    assert [(e["kind"], e["visibility"]) for e in events] == [
        ("bomb_spent", {"public": False, "seats": [4]})]


def day_one() -> Game:
    game = Game(FIVE)
    for seat in range(5):
        game.do(seat, "pass")
    game.end()
    return game


def test_count_votes_curse_adds_and_a_bombed_voter_does_not_count():
    state = copy.deepcopy(day_one().state)
    acts = {3: {"card": "CURSE", "target": 1, "phase": "day"}}
    events: list = []
    count = votes.count_votes(state, events, {0: 1, 2: 1, 4: 0}, {4}, acts)
    assert count.counted == {0: 1, 2: 1}
    assert count.tally == {1: 3}
    assert count.adjustments == [{"target": 1, "delta": 1}]
    assert [e["kind"] for e in events] == ["vote_void", "count"]


def test_announce_result_a_tie_opens_a_runoff_and_a_runoff_tie_executes_nobody():
    state = copy.deepcopy(day_one().state)
    count = votes.Count(counted={0: 1, 1: 0}, tally={0: 1, 1: 1}, chain=[], adjustments=[])
    events: list = []
    assert votes.announce_result(state, events, count) == (
        {"name": "runoff", "number": 1}, [0, 1])
    state["public"]["phase"]["name"] = "runoff"
    assert votes.announce_result(state, events, count) == ({"name": "night", "number": 2}, [])
    assert [e["kind"] for e in events] == ["runoff_started", "no_execution"]


def test_publish_proxies_counts_a_proxy_only_without_a_vote_in_person():
    game = day_one()
    game.do(0, "proxy_vote", target=2)
    game.do(1, "proxy_vote", target=2)
    game.do(1, "vote", target=3)
    state = copy.deepcopy(game.state)
    events: list = []
    assert votes.publish_proxies(state, events) == {1: 3, 0: 2}
    assert [e["data"]["seat"] for e in events] == [0]
