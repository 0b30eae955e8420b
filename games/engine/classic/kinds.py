"""The event kinds the classic engine can emit (games/rulesets.py hands them to the system
check that its presenter covers each; tests/engine/test_event_kinds.py checks random play
emits no other)."""

EVENT_KINDS: tuple[str, ...] = (
    "abstain", "abstained", "cancel_possession", "chance", "check", "check_proposed",
    "check_result", "dawn", "deal", "defer", "deferred", "extra_check", "game_over",
    "guardian_lapsed", "kill", "kill_proposed", "last_words", "last_words_skipped",
    "night_falls", "night_resolved", "poison_checked", "possess", "possessed",
    "possession_cancelled", "possession_on_police", "possession_submitted", "possession_void",
    "protect", "protection_skip_chosen", "protection_skipped", "protection_submitted", "role",
    "skip_protection", "speak", "speech", "speech_skipped", "speeches_open", "team_message",
    "teammates", "verdict", "vote", "vote_opens", "vote_result",
)
