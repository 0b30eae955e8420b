"""谁偷了我的金币 rules beyond the coin rule: setup, picks, priority, operations, final
judgment, the end of the game, refusals and views. Named scenarios rig the virtual players'
cards so the table is known in advance."""

from __future__ import annotations

import copy

import pytest

from games.engine.base import GM, SPECTATOR, Refusal, Transition, action, replay
from games.engine.gold.reasons import R
from games.engine.gold.rules import (
    ASSASSIN,
    CARDS,
    KILLER,
    THIEF,
    Gold,
)
from games.engine.gold.simulate import max_round_payout

RULES = Gold()
K, A, T = KILLER, ASSASSIN, THIEF


def new_game(players: int, virtual: list[str], lead: int = 0, seed: str = "rules") -> dict:
    """A fresh game whose round-1 virtual players show `virtual` (rigged for the test)."""
    state = copy.deepcopy(RULES.initial_state(seats=players, config={"lead": lead},
                                              seed=seed).state)
    assert len(virtual) == 8 - players
    state["public"]["virtual"] = [{"shown": c, "covered": False, "cover": None}
                                  for c in virtual]
    state["secret"]["cards"]["virtual"] = list(virtual)
    return state


def do(state: dict, actor, kind: str, **params) -> dict:
    result = RULES.step(state, action(actor, kind, **params))
    assert isinstance(result, Transition), result
    return result.state


def refused(state: dict, actor, kind: str, **params) -> Refusal:
    before = copy.deepcopy(state)
    result = RULES.apply(state, action(actor, kind, **params))
    assert isinstance(result, Refusal), result
    assert state == before
    return result


def clock(state: dict) -> dict:
    return RULES.end_phase(state).state


def reveal(state: dict, *cards: str) -> dict:
    """Every seat picks its card in turn, then the pick phase ends."""
    for seat, card in enumerate(cards):
        state = do(state, seat, "pick", card=card)
    return clock(state)


def events(state: dict, kind: str) -> list[dict]:
    return [e for e in state["log"] if e["kind"] == kind]


def turns_until_final(state: dict) -> list[tuple[str, int]]:
    """The (phase, seat) of every turn from now to the final judgment, all defaulted."""
    seen = []
    rnd = state["public"]["round"]
    while state["public"]["round"] == rnd and state["public"]["phase"] in ("priority",
                                                                           "operation"):
        seen.append((state["public"]["phase"], state["public"]["turn"]))
        state = clock(state)
    return seen


# --- setup (§1, §2) ----------------------------------------------------------------------

@pytest.mark.parametrize("players", range(2, 7))
def test_x_players_face_8_minus_x_virtual_players_for_x_rounds(players):
    state = RULES.initial_state(seats=players, config=None, seed="s").state
    pub = state["public"]
    assert len(pub["virtual"]) == 8 - players and pub["rounds"] == players
    assert all(p["hand"] == list(CARDS) for p in state["private"])
    assert pub["supply"] == 80 and pub["coins"] == [0] * players


@pytest.mark.parametrize("seats,config", [(1, None), (7, None), (3, {"lead": 3}),
                                          (3, {"lead": -1}), (3, {"lead": True}),
                                          (3, {"lead": "1"})])
def test_impossible_setups_are_rejected(seats, config):
    with pytest.raises(ValueError):
        RULES.initial_state(seats=seats, config=config, seed="s")


def test_the_chosen_lead_starts_and_the_lead_passes_to_the_next_seat_each_round():
    state = RULES.initial_state(seats=3, config={"lead": 2}, seed="s").state
    while RULES.outcome(state) is None:
        state = clock(state)
    assert [e["data"]["lead"] for e in events(state, "round_started")] == [2, 0, 1]
    assert events(state, "setup")[0]["because"][1] == R("lead_chosen", seat=2, ref=["1②"])


def test_without_a_chosen_lead_it_is_drawn_by_lot_and_recorded():
    leads = set()
    for n in range(30):
        state = RULES.initial_state(seats=4, config={"lead": None}, seed=f"lot {n}").state
        lead = state["public"]["first_lead"]
        assert events(state, "setup")[0]["because"][1] == R("lead_by_lot", seat=lead,
                                                           ref=["1②"])
        assert state["secret"]["draws"] == 2  # the lead, then the virtual pile
        leads.add(lead)
    assert leads == {0, 1, 2, 3}


def test_the_virtual_pile_is_drawn_with_exact_odds():
    # 6 players: the pile is 2 KILLER, 2 ASSASSIN, 2 THIEF and 2 cards are drawn.
    # P(both the same card) = 3 * (2/6 * 1/5) = 1/5.
    n = 600
    same = 0
    for i in range(n):
        drawn = RULES.initial_state(seats=6, config={"lead": 0},
                                    seed=f"pile {i}").state["secret"]["cards"]["virtual"]
        assert all(drawn.count(c) <= 2 for c in CARDS)
        same += drawn[0] == drawn[1]
    # mean 120, standard deviation about 9.8: four deviations either side
    assert 80 <= same <= 160


def test_the_virtual_players_are_redrawn_every_round():
    state = RULES.initial_state(seats=2, config={"lead": 0}, seed="redraw").state
    while RULES.outcome(state) is None:
        state = clock(state)
    draws = [e["data"]["virtual"] for e in events(state, "round_started")]
    assert len(draws) == 2 and all(len(d) == 6 for d in draws)
    assert draws[0] != draws[1]  # this seed draws differently; the counter moved on


# --- picking (§3) ------------------------------------------------------------------------

def test_a_pick_is_hidden_from_everyone_else_until_the_reveal():
    state = new_game(3, [K, K, A, T, T])
    before = {v: RULES.view(state, v) for v in (1, 2, SPECTATOR)}
    state = do(state, 0, "pick", card=ASSASSIN)
    for v, old in before.items():
        now = RULES.view(state, v)
        assert now["log"] == old["log"]
        assert now["public"]["table"] == [None, None, None]
        assert now.get("me") == old.get("me")
    assert RULES.view(state, 0)["me"]["pick"] == ASSASSIN
    assert RULES.phase(state).awaiting == frozenset({1, 2})


def test_a_seat_may_change_its_pick_before_the_reveal():
    state = new_game(3, [K, K, A, T, T])
    state = do(state, 0, "pick", card=ASSASSIN)
    state = do(state, 0, "pick", card=THIEF)
    assert events(state, "picked")[-1]["because"][0] == R(
        "pick_changed", seat=0, card=ASSASSIN, card2=THIEF, ref=["3①", "I3"])
    state = clock(do(do(state, 1, "pick", card=K), 2, "pick", card=K))
    assert state["public"]["table"][0]["shown"] == THIEF


def test_a_missed_pick_becomes_a_random_card_told_only_to_that_seat():
    state = new_game(3, [K, K, A, T, T])
    state = do(do(state, 0, "pick", card=K), 2, "pick", card=T)
    state = clock(state)
    (missed,) = events(state, "pick_defaulted")
    assert missed["visibility"] == {"public": False, "seats": [1]}
    assert state["public"]["table"][1]["shown"] == missed["data"]["card"] in CARDS
    assert events(state, "revealed")[0]["because"][1] == R("picks_missed", seats=[1],
                                                             ref=["I3"])


def test_the_reveal_shows_every_pick_and_leaves_two_cards_in_each_hand():
    state = reveal(new_game(3, [K, K, A, T, T]), K, A, T)
    assert [s["shown"] for s in state["public"]["table"]] == [K, A, T]
    assert [p["hand"] for p in state["private"]] == [[A, T], [K, T], [K, A]]


# --- preliminary judgment and priority (§4, §5①-③) ----------------------------------------

def test_preliminary_winners_take_a_priority_token_instead_of_coins():
    # 3 KILLER (seat 1 + two virtual), 2 ASSASSIN, 3 THIEF: the killers win 1 each.
    state = reveal(new_game(3, [K, K, A, T, T]), K, A, T)
    assert state["public"]["tokens"] == ["priority", None, None]
    assert state["public"]["coins"] == [0, 0, 0]
    assert state["public"]["preliminary"]["shares"] == [1, 0, 0]
    assert RULES.phase(state).name == "priority" and RULES.phase(state).awaiting == {0}


def test_a_crowd_of_five_wins_nothing_so_nobody_takes_a_priority_token():
    state = reveal(new_game(3, [K, K, K, A, T]), K, K, T)
    assert state["public"]["tokens"] == [None, None, None]
    assert RULES.phase(state).name == "operation"


def test_priority_turns_go_from_the_lead_in_seat_order():
    # 4 players, lead seat 3: the killers (seats 1, 3, 4) hold priority; order 3, 4, 1.
    state = reveal(new_game(4, [A, A, T, T], lead=2), K, T, K, K)
    assert state["public"]["tokens"] == ["priority", None, "priority", "priority"]
    turns = turns_until_final(state)
    assert turns[:3] == [("priority", 2), ("priority", 3), ("priority", 0)]


def test_keeping_the_priority_token_pays_two_coins_and_fixes_the_card():
    state = reveal(new_game(3, [K, K, A, T, T]), K, A, T)
    state = do(state, 0, "take_bonus")
    assert state["public"]["coins"] == [2, 0, 0] and state["public"]["supply"] == 78
    assert RULES.legal_actions(state, 0) == []
    assert turns_until_final(clock(state)) == [("operation", 1), ("operation", 2)]


def test_a_missed_priority_choice_keeps_the_token_and_takes_the_bonus():
    state = clock(reveal(new_game(3, [K, K, A, T, T]), K, A, T))
    (bonus,) = events(state, "bonus")
    assert bonus["data"]["missed"] and state["public"]["coins"][0] == 2
    assert state["public"]["tokens"][0] == "priority"


def test_trading_for_a_double_token_gives_an_operation_turn_and_doubles_the_final_share():
    # Seats 1 and 2 pick KILLER with one virtual KILLER: 3 KILLER, 2 ASSASSIN, 3 THIEF.
    state = reveal(new_game(3, [K, A, A, T, T]), K, K, T)
    assert state["public"]["tokens"] == ["priority", "priority", None]
    state = clock(do(state, 0, "take_double"))
    state = clock(do(state, 1, "take_bonus"))
    assert turns_until_final(state) == [("operation", 0), ("operation", 2)]
    state = clock(do(state, 0, "keep"))
    state = clock(do(state, 2, "keep"))
    (final,) = events(state, "final")
    assert final["data"]["shares"] == [1, 1, 0]
    assert final["data"]["paid"] == [2, 1, 0]
    assert state["public"]["coins"] == [2, 3, 0]


# --- operations (§5④) ---------------------------------------------------------------------

def operations_state() -> dict:
    """3 players, nobody wins the preliminary (5 KILLER): all three take operation turns,
    seat 1 first."""
    state = reveal(new_game(3, [K, K, K, A, T]), K, K, T)
    assert RULES.phase(state).name == "operation" and state["public"]["turn"] == 0
    return state


def test_a_swapped_card_is_hidden_from_all_but_its_owner_until_judged():
    state = do(operations_state(), 0, "swap", card=ASSASSIN)
    assert state["public"]["table"][0] == {"shown": K, "covered": True, "cover": None}
    assert RULES.view(state, 0)["me"]["face_down"] == {"seat": 0, "card": ASSASSIN}
    for viewer in (1, 2, SPECTATOR):
        view = RULES.view(state, viewer)
        assert all(ASSASSIN not in str(e["data"]) for e in view["log"]
                   if e["kind"].startswith("swapped"))
    assert RULES.view(state, GM)["secret"]["cards"]["seats"][0] == ASSASSIN


def test_a_swap_must_use_a_card_still_in_hand():
    state = operations_state()
    assert refused(state, 0, "swap", card=KILLER).code == "card_not_in_hand"


def test_only_one_virtual_player_can_be_replaced_each_round():
    state = clock(do(operations_state(), 0, "replace", card=ASSASSIN, virtual=0))
    assert not [c for c in RULES.legal_actions(state, 1) if c.kind == "replace"]
    assert refused(state, 1, "replace", card=ASSASSIN, virtual=1).code == "replace_used"


def test_the_replaced_card_is_public_and_the_new_one_hidden():
    state = do(operations_state(), 0, "replace", card=THIEF, virtual=3)
    spot = state["public"]["virtual"][3]
    assert spot == {"shown": A, "covered": True, "cover": None}
    (public_event,) = events(state, "replaced")
    assert public_event["data"]["removed"] == A and "card" not in public_event["data"]
    (private_event,) = events(state, "replaced_card")
    assert private_event["visibility"]["seats"] == [0]


def test_a_flip_shows_a_face_down_card_to_everyone_once_a_round():
    state = clock(do(operations_state(), 0, "swap", card=THIEF))
    flips = [c for c in RULES.legal_actions(state, 1) if c.kind == "flip"]
    assert [c.params for c in flips] == [{"seat": 0}]
    state = do(state, 1, "flip", seat=0)
    assert state["public"]["table"][0]["cover"] == THIEF
    assert events(state, "flipped")[0]["visibility"]["public"]
    state = clock(state)
    assert not [c for c in RULES.legal_actions(state, 2) if c.kind == "flip"]
    assert refused(state, 2, "flip", seat=0).code == "flip_used"


def test_a_second_flip_in_the_same_round_is_refused():
    state = clock(do(operations_state(), 0, "replace", card=THIEF, virtual=0))
    state = clock(do(state, 1, "flip", virtual=0))
    assert state["public"]["virtual"][0]["cover"] == THIEF
    assert refused(state, 2, "flip", virtual=0).code == "flip_used"


def test_flipping_needs_a_card_that_is_still_face_down():
    state = operations_state()
    assert not [c for c in RULES.legal_actions(state, 0) if c.kind == "flip"]
    assert refused(state, 0, "flip", seat=1).code == "not_face_down"
    assert refused(state, 0, "flip", seat=True).code == "not_face_down"


def test_a_missed_operation_keeps_the_card():
    state = clock(operations_state())
    (kept,) = events(state, "kept")
    assert kept["data"] == {"seat": 0, "missed": True}
    assert state["public"]["turn"] == 1


# --- final judgment and the end (§6) -------------------------------------------------------

def test_the_final_judgment_counts_the_cards_after_the_operations():
    # Preliminary: 5 KILLER, nobody wins. Seat 1 puts an ASSASSIN on virtual player 1 and
    # seats 2 and 3 swap to ASSASSIN: 3 KILLER, 4 ASSASSIN, 1 THIEF, the assassins win.
    state = clock(do(operations_state(), 0, "replace", card=ASSASSIN, virtual=0))
    state = clock(do(state, 1, "swap", card=ASSASSIN))
    state = clock(do(state, 2, "swap", card=ASSASSIN))
    (final,) = events(state, "final")
    assert final["data"]["seats"] == [K, A, A]
    assert final["data"]["virtual"] == [A, K, K, A, T]
    assert final["data"]["judgment"]["counts"] == {K: 3, A: 4, T: 1}
    assert final["data"]["paid"] == [0, 1, 1]
    assert state["public"]["round"] == 2 and RULES.phase(state).name == "pick"


def test_face_down_cards_are_turned_up_by_the_final_judgment():
    state = clock(do(operations_state(), 0, "swap", card=THIEF))
    state = clock(clock(state))
    assert events(state, "final")[0]["data"]["seats"][0] == THIEF
    assert RULES.view(state, 1)["me"]["hand"] == list(CARDS)  # a new round has begun


def test_the_game_ends_after_x_rounds_and_the_most_coins_wins():
    state = RULES.initial_state(seats=2, config={"lead": 0}, seed="end").state
    rounds = 0
    while RULES.outcome(state) is None:
        rounds += RULES.phase(state).name == "pick"
        state = clock(state)
    assert rounds == 2 and RULES.phase(state).finished
    out = RULES.outcome(state)
    coins = state["public"]["coins"]
    assert all(coins[w] == max(coins) for w in out.winners)
    assert events(state, "game_over")[0]["data"]["winners"] == list(out.winners)
    assert RULES.end_phase(state).state == state and RULES.end_phase(state).events == []


@pytest.mark.parametrize("coins,result,winners", [([5, 3, 1], "win", (0,)),
                                                  ([4, 6, 6], "tie", (1, 2))])
def test_the_most_coins_wins_and_a_tie_shares_the_win(coins, result, winners):
    state = RULES.initial_state(seats=3, config={"lead": 0}, seed="tie").state
    state["public"].update(phase="finished", coins=coins)
    out = RULES.outcome(state)
    assert (out.result, out.winners) == (result, winners)


@pytest.mark.parametrize("players", range(2, 7))
def test_the_80_coin_supply_can_never_run_out(players):
    # The bound is exhaustive over tables; X rounds are played.
    assert max_round_payout(players) * players <= 80
    # and it is not vacuous: a lone KILLER against no ASSASSIN with a ×2 token makes 8.
    assert max_round_payout(players) >= 8


def test_the_supply_always_equals_80_minus_the_coins_held():
    for seed in range(5):
        state = RULES.initial_state(seats=4, config=None, seed=f"supply {seed}").state
        while RULES.outcome(state) is None:
            info = RULES.phase(state)
            for seat in sorted(info.awaiting):
                choices = RULES.legal_actions(state, seat)
                state = do(state, seat, choices[-1].kind, **choices[-1].params)
            state = clock(state)
            assert state["public"]["supply"] == 80 - sum(state["public"]["coins"]) >= 0


# --- refusals and views ---------------------------------------------------------------------

@pytest.mark.parametrize("actor,kind,params,code", [
    (True, "pick", {"card": K}, "not_a_seat"),
    (GM, "pick", {"card": K}, "not_a_seat"),
    (3, "pick", {"card": K}, "not_a_seat"),
    (0, "vote", {}, "unknown_action"),
    (0, "pick", {"card": "KING"}, "bad_card"),
    (0, "pick", {"card": K, "extra": 1}, "bad_card"),
    (0, "swap", {"card": A}, "still_picking"),
    (0, "take_bonus", {}, "still_picking"),
])
def test_choices_that_do_not_fit_the_pick_phase_are_refused(actor, kind, params, code):
    state = new_game(3, [K, K, A, T, T])
    assert refused(state, actor, kind, **params).code == code


def test_turn_choices_are_refused_out_of_turn_or_with_bad_details():
    state = operations_state()
    assert refused(state, 1, "keep").code == "not_your_turn"
    assert refused(state, 0, "pick", card=K).code == "already_revealed"
    assert refused(state, 0, "take_double").code == "not_priority_turn"
    assert refused(state, 0, "keep", card=K).code == "no_details"
    assert refused(state, 0, "replace", card=A, virtual="1").code == "no_such_virtual"
    assert refused(state, 0, "replace", card=A, virtual=True).code == "no_such_virtual"
    assert refused(state, 0, "replace", card=A, virtual=5).code == "no_such_virtual"
    state = do(state, 0, "keep")
    assert refused(state, 0, "keep").code == "already_acted"
    assert RULES.phase(state).awaiting == frozenset()


def test_a_priority_turn_refuses_operations():
    state = reveal(new_game(3, [K, K, A, T, T]), K, A, T)
    assert refused(state, 0, "keep").code == "priority_turn"
    assert refused(state, 0, "take_bonus", card=K).code == "no_details"


def test_views_show_each_seat_only_its_own_private_part():
    state = do(operations_state(), 0, "swap", card=THIEF)
    assert RULES.view(state, 0)["me"] == state["private"][0]
    assert RULES.view(state, 1)["me"] == state["private"][1]
    assert "me" not in RULES.view(state, SPECTATOR)
    assert "secret" not in RULES.view(state, 1)
    assert RULES.view(state, GM)["secret"]["cards"]["seats"] == [T, K, T]


def test_every_event_explains_itself():
    state = RULES.initial_state(seats=5, config=None, seed="explain").state
    while RULES.outcome(state) is None:
        state = clock(state)
    assert all(e["because"] and all(R.problems(r) == [] for r in e["because"])
               for e in state["log"])


def test_a_game_replays_from_its_setup_and_steps():
    setup = {"seats": 3, "config": {"lead": None}, "seed": "replay"}
    state = RULES.initial_state(**setup).state
    steps = []
    while RULES.outcome(state) is None:
        info = RULES.phase(state)
        for seat in sorted(info.awaiting):
            choice = RULES.legal_actions(state, seat)[0]
            steps.append(action(seat, choice.kind, **choice.params))
            state = RULES.step(state, steps[-1]).state
        steps.append({"actor": "clock", "kind": "end_phase", "params": {}})
        state = RULES.step(state, steps[-1]).state
    assert replay(RULES, setup, steps) == state
