"""The GM's steps: every offered GM choice is accepted, and GM steps are checked like any."""

from __future__ import annotations

from games.engine.base import GM
from games.engine.conformance import fill

from .deals import SIX
from .helpers import RULES, Game


def test_every_gm_choice_offered_is_accepted():
    import random

    rng = random.Random(4)
    g = Game(SIX, camp=None)
    g.use(0, "KILLER", 2)
    for state in (g.state,):
        choices = RULES.legal_actions(state, GM)
        kinds = {c.kind for c in choices}
        assert {"reject_manifesto", "choose_camp_for", "foul_out", "abort"} <= kinds
        for choice in choices:
            result = RULES.apply(state, fill(choice, GM, rng))
            assert hasattr(result, "state"), (choice, result)


def test_gm_steps_need_a_living_seat():
    g = Game()
    assert g.refused(GM, "foul_out", seat=9, reason="x").code == "bad_seat"
    assert g.refused(GM, "foul_out", seat=1).code == "reason_needed"
    assert g.refused(GM, "reject_manifesto", seat=1).code == "no_manifesto"
    assert g.refused(GM, "choose_camp_for", seat=1, camp="killer").code == "not_free_agent"


def test_seats_cannot_take_gm_steps():
    g = Game()
    assert g.refused(0, "abort", reason="x").code == "unknown_kind"
    assert g.refused(0, "reject_manifesto", seat=1).code == "unknown_kind"
