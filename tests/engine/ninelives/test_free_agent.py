"""The free agent (§2): a camp chosen on night 1 among the camps of the cards it holds.

SIX deal: seat 6 (index 5) is the free agent with KILLER, SORCERER, VEST, CURSE.
"""

from __future__ import annotations

from games.engine.base import GM
from games.engine.ninelives.reasons import R

from .deals import SIX
from .helpers import RULES, Game

FA = 5


def test_the_free_agent_chooses_a_camp_of_its_cards():
    g = Game(SIX, camp=None)
    offered = {c.params["camp"] for c in RULES.legal_actions(g.state, FA)
               if c.kind == "choose_camp"}
    assert offered == {"killer", "wolf"}
    (e,) = g.do(FA, "choose_camp", camp="wolf")
    assert g.priv(FA)["camp"] == "wolf" and e["visibility"]["seats"] == [FA]


def test_the_free_agent_cannot_join_a_camp_it_holds_no_card_of():
    g = Game(SIX, camp=None)
    assert g.refused(FA, "choose_camp", camp="civilian").code == "camp_not_held"
    assert g.refused(FA, "choose_camp", camp="neutral").code == "camp_not_held"


def test_the_choice_is_final():
    g = Game(SIX, camp=None)
    g.do(FA, "choose_camp", camp="wolf")
    assert g.refused(FA, "choose_camp", camp="killer").code == "not_free_agent"
    assert g.refused(GM, "choose_camp_for", seat=FA, camp="killer").code == "not_free_agent"


def test_only_the_free_agent_chooses():
    g = Game(SIX, camp=None)
    assert g.refused(0, "choose_camp", camp="killer").code == "not_free_agent"


def test_the_loss_order_needs_the_camp_first():
    g = Game(SIX, camp=None)
    assert g.refused(FA, "loss_order", cards=["SORCERER", "VEST", "CURSE", "KILLER"]).code \
        == "camp_first"
    assert FA in RULES.phase(g.state).awaiting
    g.do(FA, "choose_camp", camp="killer")
    assert g.refused(FA, "loss_order", cards=["KILLER", "VEST", "CURSE", "SORCERER"]).code \
        == "core_camp"
    g.do(FA, "loss_order", cards=["SORCERER", "VEST", "CURSE", "KILLER"])


def test_the_gm_default_applies_when_the_free_agent_does_not_choose():
    g = Game(SIX, camp=None)
    g.do(GM, "choose_camp_for", seat=FA, camp="wolf")
    events = g.end()
    assert g.priv(FA)["camp"] == "wolf"
    (e,) = g.find("camp_chosen", events, seat=FA)
    assert e["data"]["by"] == "default"
    assert e["because"] == [R("default_camp_applies", seat=FA, camp="wolf", ref=["2"])]
    assert g.priv(FA)["core_card"] == "SORCERER"


def test_without_any_choice_the_camp_is_drawn_among_the_allowed_camps():
    camps = set()
    for seed in range(16):
        g = Game(SIX, camp=None, seed=f"fa {seed}")
        events = g.end()
        camps.add(g.priv(FA)["camp"])
        assert g.find("chance", events, purpose="free_agent_camp")
    assert camps == {"killer", "wolf"}


def test_the_camp_cannot_be_chosen_after_night_1():
    g = Game(SIX, camp=None)
    g.end()
    assert g.refused(FA, "choose_camp", camp="killer").code == "camp_closed"


def test_the_free_agent_camp_stays_hidden_from_others():
    g = Game(SIX, camp=None)
    g.do(FA, "choose_camp", camp="killer")
    for seat in range(5):
        assert "killer" not in str(RULES.view(g.state, seat)["log"][-1:])
        assert "me" in RULES.view(g.state, seat) and RULES.view(g.state, seat)["me"]["seat"] == seat
