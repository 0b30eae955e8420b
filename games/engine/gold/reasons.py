"""谁偷了我的金币's reasons: every explanation (an event's `because` chain), refusal and result
the gold engine can give, as a code with typed arguments (games/engine/reasons.py).

Seats and virtual players are 0-based in the data; games/presenters/gold.py renders each code
through its msgid. Rule references are SECTIONS in the seed's own numbering, read by the gold
presenter: "4②" is block (4) clause ② (§4②), "5④.3" is operation 3 of §5④, and "I12" is the
engine's interpretation I12 (games/engine/gold/rules.py lists them).

Argument names follow the msgids the presenter already had for these sentences (`n`, `n2`,
`card2`... where a sentence holds several numbers or cards).

Types of this rule set only:
    TABLE     the cards of a judgment: {"seats": [card per seat], "virtual": [card per
              virtual player]}
    COUNTS    how many of each card the table shows: {"KILLER": 2, "ASSASSIN": 3, "THIEF": 3}
    VIRTUAL   a virtual player, 0-based
    PLACE     a place on the table: {"seat": i} or {"virtual": j}
    PAYMENTS  the coins a final judgment pays: [{"seat": 0, "coins": 2}, ...], paying seats
              only (a seat under the name "seat", so that the event log's export numbers it
              from 1 as it does every seat)
"""

from __future__ import annotations

from ..reasons import CARD, NUMBER, SEAT, SEATS, SECTIONS, Reasons, register_type

CARD_KEYS = ("KILLER", "ASSASSIN", "THIEF")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_table(v) -> bool:
    return (isinstance(v, dict) and set(v) == {"seats", "virtual"}
            and all(isinstance(v[k], list) and all(c in CARD_KEYS for c in v[k])
                    for k in ("seats", "virtual")))


def _is_counts(v) -> bool:
    return isinstance(v, dict) and set(v) == set(CARD_KEYS) and all(
        _is_int(n) and n >= 0 for n in v.values())


def _is_place(v) -> bool:
    return (isinstance(v, dict) and len(v) == 1 and set(v) <= {"seat", "virtual"}
            and all(_is_int(i) and i >= 0 for i in v.values()))


def _is_payments(v) -> bool:
    return isinstance(v, list) and all(
        isinstance(p, dict) and set(p) == {"seat", "coins"} and all(_is_int(x) for x in p.values())
        for p in v)


TABLE = register_type("gold_table", _is_table)
COUNTS = register_type("gold_counts", _is_counts)
VIRTUAL = register_type("gold_virtual", lambda v: _is_int(v) and v >= 0)
PLACE = register_type("gold_place", _is_place)
PAYMENTS = register_type("gold_payments", _is_payments)

R = Reasons("gold", {
    # --- the setup and the rounds (§1, §2) ---------------------------------------------------
    "places": {"n": NUMBER, "n2": NUMBER, "n3": NUMBER, "ref": SECTIONS},
    "lead_by_lot": {"seat": SEAT, "ref": SECTIONS},
    "lead_chosen": {"seat": SEAT, "ref": SECTIONS},
    "round_lead": {"n": NUMBER, "n2": NUMBER, "seat": SEAT, "ref": SECTIONS},
    "lead_passes": {"ref": SECTIONS},
    "deal": {"card": CARD, "card2": CARD, "card3": CARD, "ref": SECTIONS, "n": NUMBER,
             "n2": NUMBER, "ref2": SECTIONS},
    # --- the pick and the reveal (§3, §5①) ---------------------------------------------------
    "picked": {"seat": SEAT, "card": CARD, "ref": SECTIONS},
    "pick_confirmed": {"seat": SEAT, "card": CARD, "ref": SECTIONS},
    "pick_changed": {"seat": SEAT, "card": CARD, "card2": CARD, "ref": SECTIONS},
    "pick_defaulted": {"seat": SEAT, "card": CARD, "ref": SECTIONS},
    "picks_shown": {"ref": SECTIONS, "table": TABLE},
    "picks_missed": {"seats": SEATS, "ref": SECTIONS},
    "priority_tokens": {"seats": SEATS, "ref": SECTIONS},
    "no_priority": {"ref": SECTIONS},
    # --- the coin rule (§4) ------------------------------------------------------------------
    "table_counts": {"counts": COUNTS, "ref": SECTIONS},
    "outnumber": {"card": CARD, "card2": CARD, "card3": CARD, "n": NUMBER, "ref": SECTIONS},
    "tied": {"card": CARD, "card2": CARD, "n": NUMBER, "card3": CARD, "n2": NUMBER,
             "ref": SECTIONS},
    "nobody_holds": {"card": CARD, "n": NUMBER},
    "crowd": {"n": NUMBER, "n2": NUMBER, "n3": NUMBER, "ref": SECTIONS},
    "share": {"n": NUMBER, "card": CARD, "n2": NUMBER, "ref": SECTIONS},
    "rest_to_thieves": {"n": NUMBER, "n2": NUMBER, "card": CARD, "n3": NUMBER,
                        "ref": SECTIONS},
    "rest_unclaimed": {"n": NUMBER, "card": CARD},
    "rest_vanishes": {"n": NUMBER, "ref": SECTIONS},
    # --- the priority turns (§5③) --------------------------------------------------------------
    "priority_missed": {"seat": SEAT, "ref": SECTIONS},
    "bonus": {"seat": SEAT, "n": NUMBER, "ref": SECTIONS},
    "double": {"seat": SEAT, "ref": SECTIONS},
    "double_operates": {"ref": SECTIONS},
    # --- the operations (§5④) ------------------------------------------------------------------
    "keep_missed": {"seat": SEAT, "ref": SECTIONS},
    "kept": {"seat": SEAT, "ref": SECTIONS},
    "swapped": {"seat": SEAT, "card": CARD, "ref": SECTIONS},
    "swapped_card": {"seat": SEAT, "card": CARD},
    "replaced": {"seat": SEAT, "virtual": VIRTUAL, "card": CARD, "ref": SECTIONS},
    "replace_once": {"ref": SECTIONS},
    "replaced_card": {"seat": SEAT, "virtual": VIRTUAL, "card": CARD},
    "flipped": {"seat": SEAT, "place": PLACE, "card": CARD, "ref": SECTIONS},
    "flip_once": {"ref": SECTIONS},
    # --- the final judgment and the end (§6) ---------------------------------------------------
    "final_table": {"ref": SECTIONS, "table": TABLE},
    "doubled": {"seat": SEAT, "n": NUMBER, "n2": NUMBER, "ref": SECTIONS},
    "paid": {"payments": PAYMENTS},
    "nobody_paid": {},
    "all_rounds": {"n": NUMBER, "ref": SECTIONS},
    # --- results (Outcome.reason) --------------------------------------------------------------
    "wins": {"seat": SEAT, "n": NUMBER},
    "share_win": {"seats": SEATS, "n": NUMBER},
    # --- refusals (Refusal.code and its params) ------------------------------------------------
    "bad_step": {},
    "bad_params": {},
    "unknown_action": {},
    "not_a_seat": {},
    "game_over": {},
    "still_picking": {},
    "not_your_turn": {"seat": SEAT},
    "already_acted": {},
    "not_priority_turn": {},
    "priority_turn": {},
    "already_revealed": {},
    "bad_card": {},
    "no_details": {},
    "no_swap_card": {},
    "card_not_in_hand": {},
    "bad_replace": {},
    "replace_used": {"seat": SEAT},
    "no_such_virtual": {},
    "flip_used": {"seat": SEAT},
    "not_face_down": {},
})

# The codes a Refusal may carry (the rest explain events and results).
REFUSALS = frozenset({
    "bad_step", "bad_params", "unknown_action", "not_a_seat", "game_over", "still_picking",
    "not_your_turn", "already_acted", "not_priority_turn", "priority_turn",
    "already_revealed", "bad_card", "no_swap_card", "no_details", "card_not_in_hand",
    "bad_replace", "replace_used", "no_such_virtual", "flip_used", "not_face_down",
})
# The codes an Outcome's reason may carry.
RESULTS = frozenset({"wins", "share_win"})
