"""The 猫有n条命 dealer's validator, the free agent's open camps, the JSON shape and the
commitment (seed 002 §2, §3, §3.5.1, §3.5.4, §4, §6.2; docs/rules/ninelives-dealing.md)."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.ninelives import dealing
from games.engine.ninelives.dealing import Deal, validate
from games.engine.ninelives.reasons import R

# A valid 5-player deal written out by hand (seats 0-based).
FIVE = Deal(
    players=5,
    camps=("killer", "wolf", "civilian", "civilian", "civilian"),
    hands=(
        ("KILLER", "DEMON", "SORCERER", "VEST", "JAIL"),
        ("WEREWOLF", "SORCERER", "DIVINER", "WOLFSBANE", "PARDON"),
        ("SNIPER", "DIVINER", "KILLER", "CURSE", "BOMB"),
        ("PROPHET", "SOULBINDER", "DEMON", "BLESS", "STRIKE"),
        ("WITCH_DOCTOR", "PROPHET", "WEREWOLF", "COUNTER_SNIPER", "SAINT"),
    ),
    taints={"killer": ("VEST", "CURSE"), "wolf": ("PARDON", "SAINT")},
)

# A valid 6-player deal: no SAINT (§3.5.4), seat 5 is the free agent.
SIX = Deal(
    players=6,
    camps=("killer", "wolf", "civilian", "civilian", "civilian", "free_agent"),
    hands=(
        ("KILLER", "DEMON", "VEST", "JAIL"),
        ("WEREWOLF", "SORCERER", "WOLFSBANE", "PARDON"),
        ("SNIPER", "DIVINER", "CURSE", "BOMB"),
        ("PROPHET", "SOULBINDER", "KILLER", "BLESS"),
        ("DIVINER", "WITCH_DOCTOR", "SORCERER", "STRIKE"),
        ("DEMON", "WEREWOLF", "PROPHET", "COUNTER_SNIPER"),
    ),
    taints={"killer": ("VEST", "CURSE"), "wolf": ("PARDON", "BLESS")},
)


def swapped(deal: Deal, a: int, card_a: str, b: int, card_b: str) -> Deal:
    """`deal` with card_a (in seat a) and card_b (in seat b) exchanged."""
    hands = [list(h) for h in deal.hands]
    hands[a].remove(card_a)
    hands[b].remove(card_b)
    hands[a].append(card_b)
    hands[b].append(card_a)
    return Deal(players=deal.players, camps=deal.camps, hands=hands, taints=deal.taints)


def rules_broken(deal: Deal) -> set[str]:
    return {v.rule for v in validate(deal)}


def test_the_example_deals_are_valid():
    assert validate(FIVE) == []
    assert validate(SIX) == []


# --- one violating deal per constraint, each breaking only that rule -----------------------

CASES = [
    # (rule, deal, seat that breaks it)
    ("4.1", swapped(FIVE, 0, "DEMON", 4, "COUNTER_SNIPER"), 0),
    ("4.2", swapped(FIVE, 1, "SORCERER", 2, "BOMB"), 1),
    ("4.3", swapped(FIVE, 0, "SORCERER", 2, "SNIPER"), 0),
    ("4.3", swapped(SIX, 2, "SNIPER", 5, "COUNTER_SNIPER"), 5),   # not to the free agent
    ("4.4.1", swapped(FIVE, 2, "BOMB", 4, "COUNTER_SNIPER"), 2),
    ("4.4.2", swapped(FIVE, 2, "BOMB", 3, "STRIKE"), 2),
    ("4.4.3", swapped(FIVE, 0, "SORCERER", 2, "DIVINER"), 0),
    ("4.4.4", swapped(FIVE, 0, "SORCERER", 3, "BLESS"), 3),
    ("4.4.5", swapped(FIVE, 0, "JAIL", 3, "SOULBINDER"), 0),
    ("4.4.6", swapped(FIVE, 1, "DIVINER", 4, "WITCH_DOCTOR"), 1),
    ("4.4.7", swapped(FIVE, 3, "SOULBINDER", 4, "PROPHET"), 3),
    ("4.4.8", swapped(FIVE, 2, "BOMB", 3, "BLESS"), 2),
    ("4.4.9", swapped(FIVE, 0, "JAIL", 1, "WOLFSBANE"), 0),
    ("4.4.10", swapped(FIVE, 2, "KILLER", 4, "WITCH_DOCTOR"), 2),   # three civilian cards
    ("4.4.10", swapped(FIVE, 0, "JAIL", 4, "WEREWOLF"), 0),          # two wolf cards
    ("4.4.11", swapped(FIVE, 0, "JAIL", 2, "CURSE"), 0),             # both killer taints
]


@pytest.mark.parametrize(("rule", "deal", "seat"), CASES,
                         ids=[f"{r}-{i}" for i, (r, _, _) in enumerate(CASES)])
def test_a_deal_breaking_one_rule_is_rejected_naming_it(rule, deal, seat):
    broken = validate(deal)
    assert {v.rule for v in broken} == {rule}, broken
    assert seat in {v.seat for v in broken}
    assert all(rule in v.reason["args"]["ref"] and not R.problems(v.reason) for v in broken)


def test_a_civilian_without_a_civilian_card_breaks_the_core_card_rule():
    # seat 2 is a civilian holding DEMON and three neutral cards: no civilian core card (§6.2)
    deal = Deal(players=6, camps=SIX.camps, hands=(
        ("KILLER", "DEMON", "PROPHET", "JAIL"),
        ("WEREWOLF", "SORCERER", "DIVINER", "PARDON"),
        ("DEMON", "CURSE", "BOMB", "STRIKE"),
        ("SNIPER", "DIVINER", "SORCERER", "BLESS"),
        ("PROPHET", "WEREWOLF", "WOLFSBANE", "COUNTER_SNIPER"),
        ("SOULBINDER", "WITCH_DOCTOR", "KILLER", "VEST"),
    ), taints={"killer": ("JAIL", "CURSE"), "wolf": ("PARDON", "BLESS")})
    assert [(v.rule, v.seat) for v in validate(deal)] == [("6.2", 2)]


def test_a_free_agent_with_no_open_camp_breaks_the_core_card_rule():
    # KILLER, DEMON, WEREWOLF, SORCERER: whichever camp it chose, it would hold two cards of
    # another camp (§4.4.10), so it has no camp and no core card to choose (§2, §6.2)
    deal = Deal(players=6, camps=SIX.camps, hands=(
        ("KILLER", "DEMON", "PROPHET", "JAIL"),
        ("WEREWOLF", "SORCERER", "WOLFSBANE", "PARDON"),
        ("SNIPER", "DIVINER", "CURSE", "BOMB"),
        ("DIVINER", "PROPHET", "BLESS", "STRIKE"),
        ("SOULBINDER", "WITCH_DOCTOR", "COUNTER_SNIPER", "VEST"),
        ("KILLER", "DEMON", "WEREWOLF", "SORCERER"),
    ), taints={"killer": ("JAIL", "CURSE"), "wolf": ("PARDON", "BLESS")})
    assert [(v.rule, v.seat) for v in validate(deal)] == [("6.2", 5)]


# --- the deal as a whole -------------------------------------------------------------------

def test_a_deal_for_seven_players_is_rejected():
    deal = Deal(players=7, camps=FIVE.camps, hands=FIVE.hands, taints=FIVE.taints)
    assert rules_broken(deal) == {"2"}


def test_the_camps_must_be_the_ones_drawn_by_lot():
    camps = ("killer", "killer", "civilian", "civilian", "civilian")
    deal = Deal(players=5, camps=camps, hands=FIVE.hands, taints=FIVE.taints)
    assert "2" in rules_broken(deal)
    free_agent_in_five = ("killer", "wolf", "civilian", "civilian", "free_agent")
    deal = Deal(players=5, camps=free_agent_in_five, hands=FIVE.hands, taints=FIVE.taints)
    assert "2" in rules_broken(deal)


def test_every_hand_has_the_right_size():
    hands = [list(h) for h in FIVE.hands]
    hands[4].remove("SAINT")
    hands[3].append("SAINT")
    broken = validate(Deal(players=5, camps=FIVE.camps, hands=hands, taints=FIVE.taints))
    assert {(v.rule, v.seat) for v in broken} >= {("2", 3), ("2", 4)}


def test_the_hands_must_be_exactly_the_deck():
    hands = [list(h) for h in FIVE.hands]
    hands[3][hands[3].index("BOMB" if "BOMB" in hands[3] else "STRIKE")] = "NOT_A_CARD"
    broken = validate(Deal(players=5, camps=FIVE.camps, hands=hands, taints=FIVE.taints))
    assert [v.rule for v in broken] == ["3"]
    assert broken[0].reason["code"] == "deal_not_the_deck"
    assert "NOT_A_CARD" in broken[0].reason["args"]["extra"]
    assert "STRIKE" in broken[0].reason["args"]["missing"]


def test_six_players_play_without_the_saint():
    hands = [list(h) for h in SIX.hands]
    hands[2][hands[2].index("BOMB")] = "SAINT"
    broken = validate(Deal(players=6, camps=SIX.camps, hands=hands, taints=SIX.taints))
    assert "3.5.4" in {v.rule for v in broken}


@pytest.mark.parametrize("taints", [
    {"killer": ("VEST", "CURSE")},                                   # no wolf taint
    {"killer": ("VEST", "KILLER"), "wolf": ("PARDON", "SAINT")},     # not neutral
    {"killer": ("VEST", "VEST"), "wolf": ("PARDON", "SAINT")},       # one card twice
    {"killer": ("VEST", "CURSE"), "wolf": ("VEST", "SAINT")},        # a card tainted twice
    {"killer": ("VEST", "CURSE", "JAIL"), "wolf": ("PARDON", "SAINT")},
])
def test_the_taints_are_two_and_two_different_neutral_cards(taints):
    deal = Deal(players=5, camps=FIVE.camps, hands=FIVE.hands, taints=taints)
    assert rules_broken(deal) == {"3.5.1"}


def test_the_wolf_taints_go_to_different_hands_too():
    deal = Deal(players=5, camps=FIVE.camps, hands=FIVE.hands,
                taints={"killer": ("VEST", "CURSE"), "wolf": ("WOLFSBANE", "PARDON")})
    broken = validate(deal)
    assert [(v.rule, v.seat) for v in broken] == [("4.4.11", 1)]
    assert broken[0].reason == R("deal_taints_apart", seat=1, camp="wolf", ref=["4.4.11"])


def test_a_card_carries_one_taint_at_most():
    deal = Deal(players=5, camps=FIVE.camps, hands=FIVE.hands,
                taints={"killer": ("VEST", "CURSE"), "wolf": ("CURSE", "SAINT")})
    assert rules_broken(deal) == {"3.5.1"}


def test_violations_come_in_the_order_of_the_sections():
    deal = swapped(swapped(FIVE, 0, "JAIL", 1, "WOLFSBANE"), 0, "SORCERER", 2, "SNIPER")
    rules = [v.rule for v in validate(deal)]
    assert rules == sorted(rules, key=lambda r: [int(p) for p in r.split(".")])
    assert {"4.3", "4.4.9"} <= set(rules)


junk_cards = st.sampled_from(list(dealing.CARDS) + ["", "NOT_A_CARD", "killer", "🐱"])


@settings(max_examples=150, deadline=None)
@given(players=st.integers(3, 8),
       camps=st.lists(st.sampled_from(["killer", "wolf", "civilian", "free_agent", "neutral",
                                       "x"]), max_size=8),
       hands=st.lists(st.lists(junk_cards, max_size=7), max_size=8),
       taints=st.dictionaries(st.sampled_from(["killer", "wolf", "x"]),
                              st.lists(junk_cards, max_size=3).map(tuple), max_size=3))
def test_validate_never_raises_on_a_typed_in_deal(players, camps, hands, taints):
    broken = validate(Deal(players=players, camps=camps, hands=hands, taints=taints))
    assert broken, "junk passed as a valid deal"
    assert all(isinstance(v, dealing.Violation) and not R.problems(v.reason) for v in broken)


# --- the free agent's open camps (module doc of dealing.py) ---------------------------------

@pytest.mark.parametrize(("hand", "camps"), [
    (["KILLER", "SORCERER", "VEST", "CURSE"], ("killer", "wolf")),
    (["KILLER", "DEMON", "VEST", "JAIL"], ("killer",)),
    (["KILLER", "WEREWOLF", "DIVINER", "PROPHET"], ("civilian",)),   # two civilian cards
    (["SOULBINDER", "KILLER", "VEST", "JAIL"], ("civilian",)),       # §4.4.5
    (["WITCH_DOCTOR", "WEREWOLF", "VEST", "JAIL"], ("civilian",)),   # §4.4.6
    (["VEST", "JAIL", "BOMB", "DIVINER"], ("civilian",)),
    (["KILLER", "DEMON", "WEREWOLF", "SORCERER"], ()),
    (["DIVINER", "PROPHET", "SOULBINDER", "KILLER"], ()),           # three civilian cards
])
def test_the_free_agent_may_choose_only_a_camp_its_hand_fits(hand, camps):
    assert dealing.free_agent_camps(hand) == camps


def test_every_dealt_free_agent_has_an_open_camp():
    rng = random.Random(6)
    for _ in range(300):
        deal = dealing.deal(6, rng)
        seat = deal.camps.index("free_agent")
        assert dealing.free_agent_camps(deal.hands[seat])


# --- dealing ---------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [5, 6])
def test_every_dealt_deal_is_valid(players):
    rng = random.Random(players)
    for _ in range(1000):
        deal = dealing.deal(players, rng)
        assert validate(deal) == [], deal
        assert sorted(deal.camps) == sorted(dealing.rules_for(players).seat_camps)


def test_the_same_generator_state_gives_the_same_deal():
    assert dealing.deal(6, random.Random(42)) == dealing.deal(6, random.Random(42))
    assert dealing.deal(6, random.Random(42)) != dealing.deal(6, random.Random(43))


def test_only_five_or_six_players_are_dealt():
    with pytest.raises(ValueError):
        dealing.deal(4, random.Random(0))
    with pytest.raises(ValueError):
        dealing.count_deals(7)


# --- JSON and the commitment ---------------------------------------------------------------

def test_the_json_shape_is_the_one_of_the_deal_command():
    data = SIX.to_json()
    assert set(data) == {"players", "seats", "taints"}
    assert data["players"] == 6
    assert data["seats"][5] == {"camp": "free_agent",
                                "cards": ["COUNTER_SNIPER", "DEMON", "PROPHET", "WEREWOLF"]}
    assert data["taints"] == {"killer": ["CURSE", "VEST"], "wolf": ["BLESS", "PARDON"]}
    assert json.loads(json.dumps(data)) == data
    assert Deal.from_json(json.loads(json.dumps(data))) == SIX


@pytest.mark.parametrize("data", [
    None, [], {}, {"players": 5}, {"players": "five", "seats": [], "taints": {}},
    {"players": 5, "seats": [{"camp": "killer"}], "taints": {}},
    {"players": 5, "seats": [{"camp": "killer", "cards": "KILLER"}], "taints": {}},
    {"players": 5, "seats": "x", "taints": {}},
])
def test_a_malformed_deal_is_a_value_error(data):
    with pytest.raises(ValueError):
        Deal.from_json(data)


def test_the_canonical_text_does_not_depend_on_card_order():
    reordered = Deal(players=5, camps=FIVE.camps, hands=[tuple(reversed(h)) for h in FIVE.hands],
                     taints={"wolf": ("SAINT", "PARDON"), "killer": ("CURSE", "VEST")})
    assert dealing.canonical(reordered) == dealing.canonical(FIVE)
    text = dealing.canonical(FIVE)
    assert " " not in text and text.isascii()
    assert json.loads(text) == FIVE.to_json()


def test_the_commitment_is_sha256_of_the_canonical_text_and_the_salt():
    salt = dealing.new_salt()
    assert len(salt) == 32 and salt != dealing.new_salt()
    digest = dealing.commitment(FIVE, salt)
    expected = hashlib.sha256((dealing.canonical(FIVE) + salt).encode()).hexdigest()
    assert digest == expected
    assert dealing.verify(dealing.canonical(FIVE), salt, digest)
    assert not dealing.verify(dealing.canonical(FIVE), salt + "0", digest)
    other = swapped(FIVE, 2, "BOMB", 3, "BLESS")
    assert not dealing.verify(dealing.canonical(other), salt, digest)
    assert dealing.commitment(FIVE, "another salt") != digest


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="needs coreutils sha256sum")
def test_the_documented_shell_command_recomputes_the_commitment():
    salt = "5f0c2a9e1d7b4c3a8e6f0b1d2c3e4f5a"
    out = subprocess.run(["sh", "-c", 'printf \'%s%s\' "$DEAL" "$SALT" | sha256sum'],
                         env={"DEAL": dealing.canonical(SIX), "SALT": salt, "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, check=True).stdout
    assert out.split()[0] == dealing.commitment(SIX, salt)
