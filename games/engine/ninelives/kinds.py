"""The event kinds the ninelives engine can emit (games/rulesets.py hands them to the system
check that its presenter covers each; tests/engine/test_event_kinds.py checks random play
emits no other)."""

EVENT_KINDS: tuple[str, ...] = (
    "action_resolved", "attack_dropped", "attack_failed", "bomb_spent", "camp_chosen",
    "camp_default_set", "card_chosen", "card_lost", "chance", "count", "execution",
    "execution_pending", "foul_out", "foul_out_cards", "game_aborted", "game_over",
    "hand_dealt", "investigation", "loss_explained", "loss_order_set", "manifesto",
    "manifesto_rejected", "no_execution", "own_card_lost", "pardoned", "passed", "phase_ended",
    "phase_started", "power_voided", "protected", "proxy_void", "proxy_vote_published",
    "proxy_vote_received", "reorder_window", "runoff_started", "saint_armed", "saint_fired",
    "saint_spent", "seat_died", "vote_cast", "vote_closed", "vote_void", "withdrawn",
)
