"""The coin rule of 谁偷了我的金币 (seed 000 §4), one test per clause, then whole-table facts."""

from __future__ import annotations

import pytest

from games.engine.gold.reasons import R
from games.engine.gold.rules import ASSASSIN, CARDS, KILLER, THIEF, judge


def table(killers: int, assassins: int, thieves: int) -> list[str]:
    return [KILLER] * killers + [ASSASSIN] * assassins + [THIEF] * thieves


def every_table():
    """Every composition of the 8 cards on the table (45 of them)."""
    for k in range(9):
        for a in range(9 - k):
            yield k, a, 8 - k - a


def paid_out(result) -> int:
    return sum(result.per_card[c] * result.counts[c] for c in CARDS)


# §4① 4 coins a round --------------------------------------------------------------------

@pytest.mark.parametrize("k,a,t", list(every_table()))
def test_every_table_accounts_for_exactly_four_coins(k, a, t):
    result = judge(table(k, a, t))
    assert paid_out(result) + result.vanished == 4
    assert result.vanished >= 0 and min(result.per_card.values()) >= 0


# §4② counting ----------------------------------------------------------------------------

def test_cards_are_counted_wherever_they_lie():
    result = judge([THIEF, KILLER, ASSASSIN, KILLER, THIEF, KILLER, ASSASSIN, THIEF])
    assert result.counts == {KILLER: 3, ASSASSIN: 2, THIEF: 3}


# §4③ the larger group of KILLER / ASSASSIN takes the coins -------------------------------

def test_more_killers_than_assassins_pays_the_killers():
    result = judge(table(2, 1, 5))
    assert result.winner == KILLER
    assert result.per_card == {KILLER: 2, ASSASSIN: 0, THIEF: 0}


def test_more_assassins_than_killers_pays_the_assassins():
    result = judge(table(0, 1, 7))
    assert result.winner == ASSASSIN
    assert result.per_card == {KILLER: 0, ASSASSIN: 4, THIEF: 0}


def test_the_larger_group_wins_even_when_thieves_outnumber_both():
    result = judge(table(2, 1, 5))
    assert result.per_card[THIEF] == 0 and result.per_card[KILLER] > 0


# §4④ a tie gives the coins to the thieves ------------------------------------------------

@pytest.mark.parametrize("k,t,each", [(3, 2, 2), (2, 4, 1), (0, 8, 0)])
def test_a_tie_between_killers_and_assassins_pays_the_thieves(k, t, each):
    result = judge(table(k, k, t))
    assert result.per_card == {KILLER: 0, ASSASSIN: 0, THIEF: each}


def test_a_tie_with_no_thief_on_the_table_lets_the_coins_vanish():
    result = judge(table(4, 4, 0))
    assert result.winner is None
    assert result.per_card == dict.fromkeys(CARDS, 0) and result.vanished == 4


def test_six_thieves_on_a_tie_are_too_many_to_share_and_get_nothing():
    result = judge(table(1, 1, 6))
    assert result.per_card == dict.fromkeys(CARDS, 0) and result.vanished == 4


# §4⑤ an even share, the rest to the thieves, nothing for 5 or more -----------------------

@pytest.mark.parametrize("winners,each", [(1, 4), (2, 2), (3, 1), (4, 1)])
def test_the_winning_group_shares_the_four_coins_evenly(winners, each):
    result = judge(table(winners, 0, 8 - winners))
    assert result.per_card[KILLER] == each


def test_the_coins_left_after_an_even_share_go_to_the_thieves():
    # With 8 cards a left-over coin always meets 3 or more thieves (see the next test), so
    # the clause shows on a smaller table: 3 KILLER share 4, the 1 left goes to the THIEF.
    result = judge(table(3, 0, 1))
    assert result.per_card == {KILLER: 1, ASSASSIN: 0, THIEF: 1}
    assert result.vanished == 0


def test_five_or_more_sharing_four_coins_get_nothing_and_the_thieves_neither():
    result = judge(table(5, 2, 1))
    assert result.winner is None
    assert result.per_card == dict.fromkeys(CARDS, 0)
    assert result.vanished == 4  # interpretation I4: the thief does not inherit the 4 coins
    assert {"code": "crowd", "args": {"n": 5, "n2": 4, "n3": 5, "ref": ["4⑤"]}} in result.because


@pytest.mark.parametrize("crowd", [5, 6, 7, 8])
def test_any_crowd_of_five_or_more_assassins_gets_nothing(crowd):
    result = judge(table(0, crowd, 8 - crowd))
    assert paid_out(result) == 0 and result.vanished == 4


def test_four_sharing_four_coins_still_get_one_each():
    result = judge(table(4, 3, 1))
    assert result.per_card == {KILLER: 1, ASSASSIN: 0, THIEF: 0}


# §4⑥ what the thieves cannot split evenly vanishes ---------------------------------------

def test_a_left_over_coin_the_thieves_cannot_split_vanishes():
    result = judge(table(3, 2, 3))
    assert result.per_card == {KILLER: 1, ASSASSIN: 0, THIEF: 0}
    assert result.vanished == 1


def test_a_left_over_coin_with_no_thief_vanishes():
    result = judge(table(3, 0, 0))
    assert result.per_card[KILLER] == 1 and result.vanished == 1


# whole-table facts the rest of the engine relies on ----------------------------------------

def test_at_most_four_holders_win_coins_on_any_table():
    # Only 4 priority tokens exist (§H3); §5① hands one to every player who would win.
    for k, a, t in every_table():
        result = judge(table(k, a, t))
        winners = sum(result.counts[c] for c in CARDS if result.per_card[c] > 0)
        assert winners <= 4, (k, a, t)


def test_on_eight_cards_thieves_are_paid_only_on_a_tie():
    for k, a, t in every_table():
        result = judge(table(k, a, t))
        if result.per_card[THIEF] > 0:
            assert k == a, (k, a, t)


def test_every_judgment_explains_itself_with_section_numbers():
    for k, a, t in every_table():
        because = judge(table(k, a, t)).because
        assert because[0] == R("table_counts", counts={KILLER: k, ASSASSIN: a, THIEF: t},
                               ref=["4②"])
        assert all(R.problems(reason) == [] for reason in because)
        assert any(r.startswith("4") for reason in because[1:]
                   for r in reason["args"].get("ref", []))
