"""猫有n条命: every reason the engine gives, in one table (games/engine/reasons.py).

An event's `because` chain, a refused step and the result of a game are reasons: a code of
this table with typed arguments, never a sentence. The presenter
(games/presenters/ninelives.py, `REASONS`) has one msgid per code.

Arguments: seats are 0-based; `ref` (and `ref2`, `ref3`) are sections of seed 002
("3.5.2"); `n`, `n2` numbers (a day, a night, a count). Four types are the rule set's own:
    USE      a card used by a seat, perhaps on a seat: {"card", "seat", "target"}
             ("WEREWOLF of seat 2 on seat 4"; `target` None for a card without one)
    ORDER    a loss order, first lost first (a list of cards)
    CAMPS    a list of camps (the camps a free agent's camp was drawn among; a deal's camps)
    NUMBERS  a list of numbers (the loss totals a reorder window reached)
    DELTA    a CURSE's +1 or a BLESS's -1 on a count (shown with its sign)

The table has four parts: the chains of events (the night, the day, the seats' and the GM's
steps, losses and deaths), the results of a game, the refusals of a step, and the rules a
deal breaks (dealing.py `validate`).
"""

from __future__ import annotations

from ..reasons import (
    CAMP,
    CARD,
    CARDS,
    NUMBER,
    PHASE,
    SEAT,
    SEATS,
    SECTIONS,
    TEXT,
    Reasons,
    register_type,
)
from ..reasons import phase_arg as phase_arg


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_use(v) -> bool:
    return (isinstance(v, dict) and set(v) == {"card", "seat", "target"}
            and isinstance(v["card"], str) and _is_int(v["seat"])
            and (v["target"] is None or _is_int(v["target"])))


USE = register_type("ninelives.use", _is_use)
ORDER = register_type("ninelives.order",
                      lambda v: isinstance(v, list) and all(isinstance(c, str) for c in v))
CAMPS = register_type("ninelives.camps",
                      lambda v: isinstance(v, list) and all(isinstance(c, str) for c in v))
NUMBERS = register_type("ninelives.numbers", lambda v: isinstance(v, list)
                        and all(_is_int(n) for n in v))
DELTA = register_type("ninelives.delta", _is_int)


def use(seat: int, card: str, target: int | None = None) -> dict:
    """A USE argument: `card` used by `seat` (on `target`)."""
    return {"card": card, "seat": seat, "target": target}


def ref(*sections: str) -> list[str]:
    """A SECTIONS argument: ref("3.3.4", "3.3.5")."""
    return list(sections)


def phase_of(phase: dict) -> dict:
    """A PHASE argument from a state's phase ({"name", "number"})."""
    return phase_arg(phase["name"], phase["number"])


# --- the chains of events -------------------------------------------------------------------
CHAINS = {
    # losing cards, dying, fouls, reorder windows (common.py)
    "nothing_left_to_lose": {"seat": SEAT},
    "camp_announced": {"seat": SEAT, "camp": CAMP, "ref": SECTIONS},
    "first_of_loss_order": {"card": CARD, "ref": SECTIONS},
    "loses_first_card": {"seat": SEAT, "card": CARD, "camp": CAMP},
    "lost_last_card": {"seat": SEAT, "ref": SECTIONS},
    "no_card_left": {"seat": SEAT, "ref": SECTIONS},
    "still_held": {"seat": SEAT, "cards": CARDS},
    "out_of_game": {"seat": SEAT, "reason": TEXT, "ref": SECTIONS},
    "out_for_silence": {"seat": SEAT, "ref": SECTIONS},
    "bomb_gone": {"card": CARD, "ref": SECTIONS},
    "losses_reached": {"n": NUMBER, "marks": NUMBERS, "ref": SECTIONS},
    "reorder_open": {"phase": PHASE, "ref": SECTIONS},
    # the night (resolution.py)
    "free_agent_camp_drawn": {"seat": SEAT, "camps": CAMPS},
    "default_camp_applies": {"seat": SEAT, "camp": CAMP, "ref": SECTIONS},
    "camp_drawn_at_random": {"seat": SEAT, "camp": CAMP, "ref": SECTIONS},
    "loss_order_drawn": {"seat": SEAT, "ref": SECTIONS},
    "your_loss_order_drawn": {"order": ORDER, "ref": SECTIONS},
    "night_over": {"phase": PHASE, "ref": SECTIONS},
    "manifesto_not_resent": {"use": USE, "ref": SECTIONS},
    "voided_powers": {"use": USE, "seat": SEAT, "ref": SECTIONS},
    "your_powers_voided": {"card": CARD, "phase": PHASE, "card2": CARD, "card3": CARD,
                           "ref": SECTIONS},
    "use_void": {"use": USE},
    "jail_landed": {"use": USE, "seat": SEAT, "ref": SECTIONS},
    "answered_yes": {"card": CARD, "seat": SEAT, "card2": CARD, "phase": PHASE,
                     "ref": SECTIONS},
    "answered_no": {"card": CARD, "seat": SEAT, "card2": CARD, "phase": PHASE,
                    "ref": SECTIONS},
    "holds_card": {"use": USE, "card": CARD, "card2": CARD},
    "holds_tainted": {"use": USE, "card": CARD, "cards": CARDS, "camp": CAMP, "ref": SECTIONS},
    "holds_no_card": {"use": USE, "card": CARD, "card2": CARD},
    "holds_no_tainted": {"use": USE, "card": CARD, "card2": CARD, "camp": CAMP},
    "saint_armed": {"card": CARD, "n": NUMBER, "ref": SECTIONS},
    "counts_at_vote": {"use": USE, "n": NUMBER, "ref": SECTIONS},
    "stopped_by": {"use": USE, "ref": SECTIONS},
    "protected_by": {"use": USE, "seat": SEAT, "n": NUMBER, "ref": SECTIONS},
    "counter_sniper": {"card": CARD, "seats": SEATS, "card2": CARD, "ref": SECTIONS},
    "attacked_with": {"use": USE, "ref": SECTIONS},
    "target_loses": {"seat": SEAT},
    "no_loss": {},
    "manifesto_published": {"seat": SEAT, "phase": PHASE, "ref": SECTIONS},
    "story_published": {"seat": SEAT, "phase": PHASE, "ref": SECTIONS},
    "saved": {"seat": SEAT, "phase": PHASE, "n": NUMBER, "ref": SECTIONS},
    "attacked_no_loss": {"seat": SEAT, "phase": PHASE},
    "failed_protection": {"seat": SEAT, "ref": SECTIONS},
    "protected_twice": {"use": USE, "seat": SEAT, "n": NUMBER, "n2": NUMBER, "card": CARD,
                        "ref": SECTIONS},
    "nobody_to_pardon": {"use": USE},
    "pardoned_at_night": {"seat": SEAT, "n": NUMBER, "phase": PHASE, "ref": SECTIONS},
    "spared": {"use": USE, "seat": SEAT, "n": NUMBER, "ref": SECTIONS},
    "executed_unpardoned": {"seat": SEAT, "n": NUMBER, "ref": SECTIONS},
    "executed_on_day": {"seat": SEAT, "n": NUMBER, "ref": SECTIONS},
    "hit_by": {"seat": SEAT, "card": CARD, "phase": PHASE, "ref": SECTIONS},
    "hit_by_bomb": {"seat": SEAT, "card": CARD, "phase": PHASE, "ref": SECTIONS},
    "attacked": {"seat": SEAT, "phase": PHASE, "ref": SECTIONS},
    "day_begins": {"n": NUMBER, "ref": SECTIONS},
    "saved_may_not_vote": {"seats": SEATS, "ref": SECTIONS},
    # the deal and the seats' own steps (rules.py)
    "dealt": {"seat": SEAT, "n": NUMBER, "ref": SECTIONS},
    "deal_drawn": {"ref": SECTIONS},
    "game_opens": {"ref": SECTIONS, "ref2": SECTIONS, "ref3": SECTIONS},
    "chose_card": {"seat": SEAT, "card": CARD, "phase": PHASE, "ref": SECTIONS,
                   "ref2": SECTIONS},
    "chose_card_on": {"seat": SEAT, "card": CARD, "target": SEAT, "phase": PHASE,
                      "ref": SECTIONS, "ref2": SECTIONS},
    "replaces_use_on": {"card": CARD, "seat": SEAT},
    "replaces_use": {"card": CARD},
    "replaces_pass": {},
    "withdrew": {"seat": SEAT, "phase": PHASE, "ref": SECTIONS},
    "will_pass": {"seat": SEAT, "phase": PHASE},
    "joined_camp": {"seat": SEAT, "camp": CAMP, "ref": SECTIONS},
    "vote_is_final": {"seat": SEAT, "phase": PHASE, "target": SEAT, "ref": SECTIONS},
    "runoff_vote_is_final": {"seat": SEAT, "phase": PHASE, "target": SEAT, "ref": SECTIONS},
    "proxy_void_by_vote": {"seat": SEAT, "ref": SECTIONS},
    "proxy_held": {"seat": SEAT, "target": SEAT, "seat2": SEAT, "ref": SECTIONS},
    "proxy_runoff_held": {"seat": SEAT, "target": SEAT, "seat2": SEAT, "ref": SECTIONS},
    "loss_order_sent": {"seat": SEAT, "card": CARD, "ref": SECTIONS},
    # the GM's steps (rules.py)
    "gm_aborted": {"reason": TEXT, "ref": SECTIONS},
    "manifesto_rejected_for": {"reason": TEXT, "ref": SECTIONS},
    "manifesto_rejected": {"ref": SECTIONS},
    "send_attack_again": {},
    "default_camp_set": {"seat": SEAT, "camp": CAMP, "ref": SECTIONS},
    "gm_fouled_out": {"seat": SEAT, "reason": TEXT, "ref": SECTIONS},
    # the day's vote and the runoff (votes.py)
    "vote_over": {"phase": PHASE, "ref": SECTIONS},
    "proxy_cast": {"seat": SEAT, "target": SEAT, "ref": SECTIONS},
    "silent": {"seat": SEAT, "phase": PHASE, "ref": SECTIONS},
    "vote_void_bomb": {"seat": SEAT, "card": CARD, "ref": SECTIONS},
    "voted_for": {"seat": SEAT, "target": SEAT},
    "count_effect": {"use": USE, "delta": DELTA, "target": SEAT, "ref": SECTIONS},
    "nobody_voted": {},
    "hit_target": {"use": USE, "target": SEAT, "phase": PHASE, "ref": SECTIONS},
    "runoff_follows": {"seats": SEATS, "phase": PHASE, "card": CARD, "card2": CARD,
                       "ref": SECTIONS},
    "runoff_tied_again": {"phase": PHASE, "ref": SECTIONS},
    "no_vote_counted": {"phase": PHASE, "ref": SECTIONS},
    "runoff_begins": {"n": NUMBER, "seats": SEATS, "ref": SECTIONS},
    "may_not_vote_today": {"seats": SEATS},
    "night_begins": {"n": NUMBER, "ref": SECTIONS},
    "pardon_may_spare": {"card": CARD, "ref": SECTIONS},
    "execution_waits": {"phase": PHASE, "card": CARD, "n": NUMBER, "ref": SECTIONS},
    "most_votes": {"seat": SEAT, "phase": PHASE, "ref": SECTIONS},
    "executed_saint_fired": {"seat": SEAT, "phase": PHASE, "card": CARD, "card2": CARD,
                             "ref": SECTIONS, "ref2": SECTIONS},
    "executed_pardoned_before": {"seat": SEAT, "phase": PHASE, "ref": SECTIONS,
                                 "ref2": SECTIONS},
    "saint_fired": {"seat": SEAT, "card": CARD, "ref": SECTIONS, "seats": SEATS},
    "saint_spent": {"card": CARD, "ref": SECTIONS},
    "voted_for_saint": {"seat": SEAT, "card": CARD, "target": SEAT, "ref": SECTIONS},
    "saint_voter": {"use": USE, "seat": SEAT, "ref": SECTIONS},
}

# --- the results of a game (common.py `decide_outcome`; rules.py for `gm_aborted`) ------------
RESULTS = {
    "all_dead_draw": {"ref": SECTIONS},
    "civilians_win": {"ref": SECTIONS},
    "last_seat_wins": {"seat": SEAT, "camp": CAMP, "ref": SECTIONS},
    "stalemate_draw": {"seats": SEATS, "ref": SECTIONS},
}

# --- refusals (rules.py): what a player reads when a step is not allowed ---------------------
REFUSALS = {
    # malformed requests (a hand-made form, a stale page)
    "bad_step": {},
    "bad_actor": {},
    "unknown_kind": {},
    "bad_params": {},
    "game_over": {},
    "dead": {},
    # card uses
    "unknown_card": {},
    "not_in_hand": {"card": CARD},
    "dead_card": {"card": CARD},
    "banned_round": {},
    "night_only": {"card": CARD},
    "not_in_runoff": {"card": CARD},
    "one_day_card": {},
    "no_target": {"card": CARD},
    "bad_target": {},
    "not_self": {"card": CARD},
    "jail_twice": {},
    "nothing_to_pardon": {},
    "no_text": {"card": CARD},
    "bad_text": {},
    "two_texts": {},
    "empty_story": {},
    "manifesto_too_short": {"min": NUMBER, "got": NUMBER},
    "nothing_to_withdraw": {},
    "wrong_phase": {},
    "already_passed": {},
    # loss order and camp
    "order_closed": {},
    "bad_order": {},
    "core_camp": {},
    "core_fixed": {"core": CARD},
    "camp_first": {},
    "camp_closed": {},
    "not_free_agent": {},
    "camp_not_held": {},
    # votes
    "no_vote_now": {},
    "may_not_vote": {},
    "vote_final": {},
    "vote_among_tied": {},
    "proxy_unchanged": {},
    # the GM's steps
    "bad_seat": {},
    "no_manifesto": {},
    "reason_needed": {},
}

# --- the rules a deal breaks (dealing.py `validate`; a GM may type a deal in) ------------------
# A deal's cards and camps are shown as the GM typed them when they are not the rule set's.
DEAL = {
    "deal_malformed": {"n": NUMBER, "ref": SECTIONS},
    "deal_players": {"n": NUMBER, "ref": SECTIONS},
    "deal_seats": {"n": NUMBER, "seats": NUMBER, "camps": NUMBER, "hands": NUMBER,
                   "ref": SECTIONS},
    "deal_camps": {"camps": CAMPS, "ref": SECTIONS},
    "deal_hand_size": {"seat": SEAT, "n": NUMBER, "size": NUMBER, "ref": SECTIONS},
    "deal_saint": {"card": CARD, "ref": SECTIONS},
    "deal_not_the_deck": {"missing": CARDS, "extra": CARDS, "ref": SECTIONS},
    "deal_must_hold": {"seat": SEAT, "camp": CAMP, "card": CARD, "ref": SECTIONS},
    "deal_may_not_hold": {"seat": SEAT, "camp": CAMP, "card": CARD, "ref": SECTIONS},
    "deal_apart": {"seat": SEAT, "card": CARD, "card2": CARD, "ref": SECTIONS},
    "deal_copies": {"seat": SEAT, "n": NUMBER, "card": CARD, "ref": SECTIONS},
    "deal_neutral_cap": {"seat": SEAT, "n": NUMBER, "cap": NUMBER, "ref": SECTIONS},
    "deal_camp_cap": {"seat": SEAT, "camp": CAMP, "n": NUMBER, "card_camp": CAMP,
                      "cap": NUMBER, "ref": SECTIONS},
    "deal_no_core": {"seat": SEAT, "camp": CAMP, "ref": SECTIONS},
    "deal_free_agent_closed": {"seat": SEAT, "ref": SECTIONS, "ref2": SECTIONS,
                               "ref3": SECTIONS},
    "deal_taints_named": {"ref": SECTIONS},
    "deal_taint_count": {"n": NUMBER, "camp": CAMP, "ref": SECTIONS},
    "deal_taint_not_neutral": {"cards": CARDS, "ref": SECTIONS},
    "deal_taints_apart": {"seat": SEAT, "camp": CAMP, "ref": SECTIONS},
    "deal_one_taint": {"ref": SECTIONS},
}

R = Reasons("ninelives", {**CHAINS, **RESULTS, **REFUSALS, **DEAL})
if len(R.table) != len(CHAINS) + len(RESULTS) + len(REFUSALS) + len(DEAL):
    raise ValueError("ninelives: a reason code is declared in two parts of the table")
