"""The event kinds the classic engine emits and what each one's data holds, field by field
(games/engine/events.py; docs/events-json.md lists them from here). games/rulesets.py hands
the kinds to the system check that its presenter covers each; tests/engine/test_event_kinds.py
checks random play emits no other kind and tests/engine/test_event_fields.py that every
event's data has the declared fields and types."""

from ..events import (
    FLAG,
    KEY,
    KEYS,
    NUMBER,
    REASON,
    SEAT,
    SEAT_PAIRS,
    SEATS,
    SPEAKER,
    WORDS,
    Either,
    ListOf,
    Pair,
    PerSeat,
    Record,
    Schema,
    kind,
    note,
)

STAGE = note(NUMBER, "the vote's stage: 0 the first vote, 1 and 2 the tie-breaks")
# One death as a dawn or a verdict announces it.
DEATH = ListOf(Record({"seat": SEAT,
                       "label": note(KEY, "the identity the death reveals (null: none)"),
                       "last_words": note(FLAG, "whether the seat may leave last words")},
                      "a death"),
               "a list of deaths, each an object")

EVENTS: dict[str, Record] = {
    "deal": kind("The GM dealt the roles by hand (GM only).",
                 roles=PerSeat(note(KEY, "the seat's role"))),
    "chance": kind("A draw by lot (GM only): the deal, the ghost, or a tie among seats.",
                   purpose=note(KEY, "what was drawn"),
                   among=note(SEATS, "the tied seats the lot chose from"),
                   drawn=Either((note(SEAT, "the seat drawn"),
                                 note(KEYS, "the roles dealt, in seat order")))),
    "role": kind("A seat's own role card (to that seat).", seat=SEAT,
                 role=note(KEY, "the role")),
    "teammates": kind("The police, or the bandits, learn who their team is.",
                      team=SEATS, ghost=note(SEAT, "the ghost bandit (bandits only), or null")),
    "night_falls": kind("A night begins.", number=note(NUMBER, "the night's number")),
    "kill_proposed": kind("A bandit proposes tonight's kill (to the bandits).",
                          seat=note(SEAT, "the bandit proposing"),
                          target=note(SEAT, "the victim proposed"),
                          pact=note(SEAT, "the bandit of the death pact, or null")),
    "deferred": kind("A team member goes with the team's choice.", seat=SEAT),
    "team_message": kind("A message to the team (to the team).", seat=SPEAKER,
                         text=WORDS),
    "possession_submitted": kind("The ghost chooses whom to possess (to the bandits).",
                                 seat=note(SEAT, "the ghost"),
                                 target=note(SEAT, "the seat to possess")),
    "possession_cancelled": kind("The ghost withdraws tonight's possession (to the bandits).",
                                 seat=note(SEAT, "the ghost")),
    "check_proposed": kind("A police officer proposes tonight's check (to the police).",
                           seat=note(SEAT, "the officer proposing"),
                           target=note(SEAT, "the seat to check")),
    "protection_submitted": kind("A guardian's protection for this round (to the guardian).",
                                 target=note(SEAT, "the seat protected")),
    "protection_skip_chosen": kind("A guardian chooses to protect nobody (to the guardian)."),
    "protection_skipped": kind("A guardian protected nobody this round (to the guardian).",
                               seat=note(SEAT, "the guardian")),
    "check_result": kind("The police learn a checked seat's identity (to the police).",
                         seat=note(SEAT, "the seat checked"),
                         result=note(KEY, "its identity"),
                         extra=note(FLAG, "whether it is the extra check")),
    "poison_checked": kind("The poison learns the police checked it (to the poison).",
                           seat=note(SEAT, "the poison")),
    "extra_check": kind("The police checked the poison and may check one more seat."),
    "possessed": kind("The ghost possessed a civilian, now a bandit (to the bandits).",
                      seat=note(SEAT, "the seat possessed"),
                      team=note(SEATS, "the bandits now")),
    "possession_void": kind("A possession had no effect (to the bandits).",
                            seat=note(SEAT, "the seat aimed at, or absent when the "
                                            "possession did not happen")),
    "possession_on_police": kind("A ghost possessed one of the police, without effect "
                                 "(to the police)."),
    "guardian_lapsed": kind("The bandit guardian's protection lapsed (to the guardian).",
                            seat=note(SEAT, "the guardian")),
    "night_resolved": kind("The night's choices as they took effect (GM only).",
                           victim=note(SEAT, "the bandits' victim, or null"),
                           pact=note(SEAT, "the bandit of the death pact, or null"),
                           check=note(SEAT, "the seat the police checked, or null"),
                           possess=note(SEAT, "the seat the ghost possessed, or null"),
                           protecting=note(SEAT_PAIRS, "each [guardian, protected seat]")),
    "dawn": kind("The dawn announcement: the night's deaths.",
                 number=note(NUMBER, "the day's number"), deaths=DEATH,
                 pair=Record({"seats": note(SEATS, "the poison and the pact's bandit"),
                              "label": note(KEY, "the identity shown for both")},
                             "the poison pair, or null"),
                 dereliction=note(SEATS, "guardians dead of dereliction")),
    "last_words": kind("A dead seat's last words.", seat=SPEAKER, text=WORDS),
    "last_words_skipped": kind("Seats that left no last words.", seats=SEATS),
    "speeches_open": kind("The speeches begin.", stage=STAGE,
                          order=note(SEATS, "the speakers in order")),
    "speech": kind("A seat's speech.", seat=SPEAKER, stage=STAGE, text=WORDS),
    "speech_skipped": kind("A seat said nothing in time.", seat=SEAT),
    "vote_opens": kind("The vote begins.", stage=STAGE,
                       order=note(SEATS, "the voters in order"),
                       candidates=note(SEATS, "who may be voted for")),
    "vote": kind("A public vote, or an abstention.", voter=SEAT,
                 target=note(SEAT, "the seat voted for; null: an abstention"), stage=STAGE),
    "abstained": kind("A seat did not vote in time (an abstention).", voter=SEAT,
                      silent=note(FLAG, "always true: the seat said nothing")),
    "vote_result": kind("The vote's result.", stage=STAGE,
                        eliminated=note(SEATS, "the seats voted out"),
                        tied=note(SEATS, "the tied seats, when the vote tied")),
    "verdict": kind("The vote's deaths.", deaths=DEATH),
    "game_over": kind("The game ends.", result=note(KEY, "the result"),
                      winners=SEATS, reason=note(REASON, "why the game ended"),
                      roles=PerSeat(note(KEY, "the seat's role"))),
}

# Step kinds the presenter words as a player's confirmation of a step; never an event of the
# log, so they have no data to declare.
CONFIRMATIONS: tuple[str, ...] = (
    "abstain", "cancel_possession", "check", "defer", "kill", "possess", "protect",
    "skip_protection", "speak",
)

EVENT_KINDS: tuple[str, ...] = (*EVENTS, *CONFIRMATIONS)

# The shapes of the reason argument types of games/engine/classic/reasons.py.
REASON_ARGS = {
    "classic_votes": ListOf(Pair(SEAT, note(NUMBER, "its votes"), "a [seat, votes] pair"),
                            "a vote's count: a list of [seat, votes] pairs"),
}

SCHEMA = Schema(events=EVENTS, reason_args=REASON_ARGS)
