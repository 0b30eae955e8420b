"""The event kinds the gold engine can emit (games/rulesets.py hands them to the system
check that its presenter covers each; tests/engine/test_event_kinds.py checks random play
emits no other)."""

EVENT_KINDS: tuple[str, ...] = (
    "bonus", "double", "final", "flipped", "game_over", "kept", "pick_defaulted", "picked",
    "preliminary", "replaced", "replaced_card", "revealed", "round_started", "setup",
    "swapped", "swapped_card",
)
