"""Victory and draws (§10), checked on positions set up directly, and through play.

The golden playthroughs (test_golden.py) play whole games to a civilian win, a lone-killer
win and a draw; here each rule of §10 is checked on its own.
"""

from __future__ import annotations

from games.engine.base import GM
from games.engine.ninelives.common import decide_outcome

from .deals import FIVE, SIX
from .helpers import Game


def position(deal=FIVE, *, alive, hands=None, phase_alive=None, camp="killer") -> Game:
    """A game whose living seats are `alive`, with `hands` ({seat: cards}) replaced."""
    g = Game(deal, camp=camp)
    g.night()
    for seat in range(g.players):
        g.state["public"]["alive"][seat] = seat in alive
        if seat not in alive:
            g.state["private"][seat]["hand"] = []
    for seat, cards in (hands or {}).items():
        g.state["private"][seat]["hand"] = list(cards)
    g.state["public"]["phase_alive"] = sorted(phase_alive if phase_alive is not None else alive)
    return g


def test_civilians_win_when_every_killer_and_wolf_seat_is_dead_and_share_dead_or_alive():
    g = position(alive={2})
    result = decide_outcome(g.state)
    assert result.result == "civilian" and result.winners == (2, 3, 4)


def test_the_game_goes_on_while_a_wolf_lives():
    assert decide_outcome(position(alive={1, 2, 3}).state) is None


def test_a_killer_alone_wins_alone():
    result = decide_outcome(position(alive={0}).state)
    assert result.result == "killer" and result.winners == (0,)


def test_a_wolf_alone_wins_alone():
    result = decide_outcome(position(alive={1}).state)
    assert result.result == "wolf" and result.winners == (1,)


def test_two_killer_seats_must_still_fight():
    g = position(SIX, alive={0, 5}, camp="killer")
    assert decide_outcome(g.state) is None


def test_killer_and_wolf_left_fight_on():
    assert decide_outcome(position(alive={0, 1}).state) is None


def test_everybody_dead_is_a_draw_shared_by_the_camps_alive_when_the_last_phase_began():
    g = position(alive=set(), phase_alive={0, 1})
    result = decide_outcome(g.state)
    assert result.result == "draw" and result.winners == (0, 1)
    g = position(alive=set(), phase_alive={0, 2})
    assert decide_outcome(g.state).winners == (0, 2, 3, 4)


def test_two_seats_that_cannot_cost_each_other_a_card_draw():
    g = position(alive={0, 2}, hands={0: ["DEMON", "VEST"], 2: ["DIVINER", "SAINT"]})
    result = decide_outcome(g.state)
    assert result.result == "draw" and result.winners == (0, 2, 3, 4)


def test_a_used_strike_is_no_threat_but_an_unused_one_is():
    g = position(alive={0, 2}, hands={0: ["DEMON"], 2: ["STRIKE", "SAINT"]})
    assert decide_outcome(g.state) is None
    g.state["private"][2]["dead_cards"] = ["STRIKE"]
    assert decide_outcome(g.state).result == "draw"


def test_a_curse_is_enough_to_fight_on():
    # two seats vote for each other; a CURSE breaks the tie every day
    g = position(alive={0, 2}, hands={0: ["DEMON"], 2: ["CURSE", "DIVINER"]})
    assert decide_outcome(g.state) is None


def test_a_fouled_out_seat_counts_as_dead():
    g = Game()
    g.night()
    g.do(GM, "foul_out", seat=1, reason="posted a screenshot of the GM's message (§9.1.2)")
    assert not g.alive(1) and g.hand(1) == [] and g.outcome() is None
    g.do(GM, "foul_out", seat=0, reason="two accounts (§9.1.1)")
    assert g.outcome().result == "civilian"
    assert g.public["reveal"]["camps"] == ["killer", "wolf", "civilian", "civilian", "civilian"]


def test_the_gm_may_abort_without_result():
    g = Game()
    assert g.refused(GM, "abort").code == "reason_needed"
    g.do(GM, "abort", reason="the rules cannot decide (§11.3)")
    assert g.outcome().result == "aborted" and g.outcome().winners == ()


def test_game_over_reveals_every_hand_and_the_taints():
    g = Game()
    g.night()
    g.do(GM, "foul_out", seat=0, reason="x")
    events = g.do(GM, "foul_out", seat=1, reason="y")
    (over,) = g.find("game_over", events)
    assert over["visibility"]["public"]
    assert over["data"]["reveal"]["taints"] == FIVE["taints"]
