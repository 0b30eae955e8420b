"""Classic 杀人游戏's reasons: every explanation (an event's `because` chain), refusal and
result the engine gives, as a code with typed arguments (games/engine/reasons.py).

The presenter (games/presenters/classic.py `REASONS`) holds one sentence per code.

Rule references (`ref`, SECTIONS) are strings:
- a section of seed 001 by its number: "3.10", a range "3.3-3.11";
- a paragraph of seed 003 (the 2.0 variants, whose paragraphs have no section numbers) by
  its name, alone or with the rule's number in it: "ghost", "ghost 6", "ghost_paragraph 2"
  (the ghost bandit's second paragraph), "poison 3", "minor 2" (the minor rules; victory
  "minor 5B"), "guardian", "guardian 4", "dual 6" (the dual guardians).
"""

from __future__ import annotations

from ..reasons import CARD, NUMBER, SEAT, SEATS, SECTIONS, Reasons, register_type


def _is_votes(value) -> bool:
    return isinstance(value, list) and all(
        isinstance(pair, list) and len(pair) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) for x in pair)
        for pair in value)


# A vote's count, seat by seat: [[seat, votes], ...] (seats 0-based, in the candidates' order).
VOTES = register_type("classic_votes", _is_votes)

# The explanations: the reasons of the events' `because` chains.
EXPLANATIONS: dict[str, dict[str, str]] = {
    # the deal and the teams (rules.py)
    "dealt_by_hand": {},
    "dealt_by_lot": {"ref": SECTIONS},
    "ghost_drawn": {"ref": SECTIONS},
    "drew_card": {"role": CARD},
    "police_team": {"seats": SEATS, "ref": SECTIONS},
    "bandit_team": {"seats": SEATS, "ref": SECTIONS},
    "their_ghost": {"seat": SEAT, "ref": SECTIONS},
    # victory and the night's frame (common.py)
    "every_bandit_dead": {"ref": SECTIONS},
    "every_police_dead": {"ref": SECTIONS},
    "every_civilian_dead_draw": {"ref": SECTIONS},
    "every_civilian_dead_bandit_win": {"ref": SECTIONS},
    "two_results": {"ref": SECTIONS},
    "night_begins": {"n": NUMBER, "ref": SECTIONS},
    # a seat's own steps (actions.py)
    "proposes_kill": {"seat": SEAT, "target": SEAT},
    "death_pact_named": {"seat": SEAT, "ref": SECTIONS},
    "defers": {"seat": SEAT, "ref": SECTIONS},
    "writes_to_team": {"seat": SEAT},
    "will_possess": {"seat": SEAT, "target": SEAT, "ref": SECTIONS},
    "possession_withdrawn": {"seat": SEAT},
    "proposes_check": {"seat": SEAT, "target": SEAT},
    "you_protect": {"seat": SEAT, "ref": SECTIONS},
    "you_protect_nobody": {"ref": SECTIONS},
    "leaves_last_words": {"seat": SEAT, "ref": SECTIONS},
    "speaks": {"seat": SEAT, "ref": SECTIONS},
    "votes_for": {"seat": SEAT, "target": SEAT, "ref": SECTIONS},
    "abstains": {"seat": SEAT, "ref": SECTIONS},
    # the night (night.py)
    "no_victim_proposed": {},
    "no_pact_proposed": {},
    "no_check_proposed": {},
    "victim_proposed": {"seats": SEATS, "ref": SECTIONS},
    "pact_proposed": {"seats": SEATS, "ref": SECTIONS},
    "check_proposed": {"seats": SEATS, "ref": SECTIONS},
    "most_proposals": {"seat": SEAT, "n": NUMBER},
    "lot_breaks_tie": {"seats": SEATS},
    "lot_drew": {"seats": SEATS, "n": NUMBER, "seat": SEAT},
    "police_learn": {"seat": SEAT, "role": CARD, "ref": SECTIONS},
    "poison_told": {"ref": SECTIONS},
    "guardian_protects": {"seat": SEAT, "target": SEAT},
    "guardian_stranded": {"seat": SEAT, "n": NUMBER},
    "guardian_skipped": {"ref": SECTIONS},
    "died_in_its_place": {"seats": SEATS, "target": SEAT, "ref": SECTIONS},
    "killed_by_bandits": {"seat": SEAT},
    "police_guardian_lapses": {"ref": SECTIONS},
    "pact_bandit_dies": {"seat": SEAT, "ref": SECTIONS},
    "dereliction_stranded": {"seat": SEAT, "ref": SECTIONS},
    "dereliction_skipped": {"seat": SEAT, "ref": SECTIONS},
    "extra_check_opens": {"ref": SECTIONS},
    "guardian_lapsed": {"ref": SECTIONS},
    "possession_void_ghost_dead": {"ref": SECTIONS},
    "possession_void_target_dead": {"seat": SEAT, "ref": SECTIONS},
    # the GM introduces the possessed seat to the bandits: rule `n` of the ghost bandit
    "possessed_civilian": {"seat": SEAT, "ref": SECTIONS, "n": NUMBER},
    "civilian_now_bandit": {"seat": SEAT},
    "possessed_poison": {"seat": SEAT, "ref": SECTIONS},
    "possession_on_police": {"ref": SECTIONS},
    "possession_no_effect": {"seat": SEAT, "ref": SECTIONS},
    "possession_without_effect": {"seat": SEAT, "role": CARD},
    "nothing_happened": {},
    "dawn_announces": {"ref": SECTIONS},
    "identities_hidden": {"ref": SECTIONS},
    "poison_pair": {"seats": SEATS, "role": CARD, "ref": SECTIONS},
    "nobody_died": {},
    "died_as": {"seat": SEAT, "role": CARD},
    "died_for_voted_out": {"seat": SEAT, "role": CARD, "ref": SECTIONS},
    "died_of_dereliction": {"seats": SEATS, "ref": SECTIONS},
    "last_words_due_one": {"seat": SEAT, "n": NUMBER, "ref": SECTIONS},
    "last_words_due": {"seats": SEATS, "n": NUMBER, "ref": SECTIONS},
    # the day (day.py)
    "no_last_words_left": {"seats": SEATS},
    "speeches_open": {"ref": SECTIONS},
    "tie_speeches": {"ref": SECTIONS},
    "tie_speeches_again": {"ref": SECTIONS},
    "speech_skipped": {"seat": SEAT},
    "vote_follows": {"ref": SECTIONS},
    "only_candidates": {"seats": SEATS, "ref": SECTIONS},
    "silent_voter": {"seat": SEAT},
    "votes_per_seat": {"tally": VOTES},
    "no_votes_cast": {},
    "nobody_voted": {},
    "most_votes": {"seat": SEAT, "ref": SECTIONS},
    "guardian_pair_tie": {"seats": SEATS, "ref": SECTIONS},
    "tied_at_top": {"seats": SEATS, "ref": SECTIONS},
    "third_tie": {"seats": SEATS, "ref": SECTIONS},
}

# The refusals of a step (rules.py `_check_step`, actions.py).
REFUSALS: dict[str, dict[str, str]] = {
    "bad_step": {},
    "game_over": {},
    "gm_has_no_moves": {},
    "clock_step": {},
    "bad_actor": {},
    "unknown_action": {},
    "bad_text": {},
    "bad_text_length": {"min": NUMBER, "max": NUMBER},
    "dead": {},
    "wrong_phase": {},              # a night action by day
    "choices_closed": {},           # the night's own choices during a settled extra check
    "not_your_turn_to_speak": {},
    "not_your_turn_to_vote": {},
    "no_last_words_due": {},
    "last_words_given": {},
    "no_team": {},
    "not_a_team_member": {},
    "already_deferred": {},
    "not_police": {},
    "not_bandit": {},
    "cannot_possess": {},
    "nothing_to_cancel": {},
    "not_guardian": {},
    "already_skipped": {},
    "nobody_to_protect": {},
    "kill_needs_pact": {},          # the kill's parameters in the ghost variant
    "bad_params": {},
    "bad_pact": {},
    "self_vote": {},
    # a target the row does not offer, one code per kind of step
    "bad_kill_target": {},
    "bad_possess_target": {},
    "bad_check_target": {},
    "bad_protect_target": {},
    "bad_vote_target": {},
}

R = Reasons("classic", {**EXPLANATIONS, **REFUSALS})

# A result's reason (Outcome.reason, the game_over event's `reason`) is the victory
# reason that decided it, the last of the game_over event's chain (`common.victory`).
RESULTS = frozenset({"every_bandit_dead", "every_police_dead", "every_civilian_dead_draw",
                     "every_civilian_dead_bandit_win", "two_results"})

