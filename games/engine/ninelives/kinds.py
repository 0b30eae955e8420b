"""The event kinds the ninelives engine emits and what each one's data holds, field by field,
and the parameters of the GM's steps (games/engine/events.py; docs/events-json.md lists them
from here). games/rulesets.py hands the kinds to the system check that its presenter covers
each; tests/engine/test_event_kinds.py checks random play emits no other kind and
tests/engine/test_event_fields.py that every event's data has the declared fields and
types."""

from ..events import (
    FLAG,
    KEY,
    KEYS,
    NUMBER,
    PHASE,
    SEAT,
    SEATS,
    SPEAKER,
    TEXT,
    WORDS,
    ByKey,
    BySeat,
    Either,
    ListOf,
    PerSeat,
    Record,
    Schema,
    kind,
    note,
)

CARD = note(KEY, "a card")
CAMP = note(KEY, "a camp")
CAUSE = note(KEY, "what took the card or the life (an attack card, the vote, a foul-out…)")
DAY = note(NUMBER, "the day's number")
RUNOFF = note(FLAG, "whether it is the runoff")
TALLY = BySeat(note(NUMBER, "the votes the seat got"))
ADJUSTMENTS = ListOf(Record({"target": SEAT, "delta": note(NUMBER, "+1 or -1")},
                            "a curse or a blessing counted"),
                     "the curses and blessings counted, each an object")
# The vote's count as the day's announcement gives it.
COUNTED = Record({"tally": TALLY, "adjustments": ADJUSTMENTS}, "the count")
TAINTS = ByKey(note(KEYS, "the cards tainted for that camp"))
DEAL = Record({"players": note(NUMBER, "how many players"),
               "seats": PerSeat(Record({"camp": CAMP, "cards": note(KEYS, "the hand")},
                                       "the seat's camp and hand")),
               "taints": TAINTS}, "the deal")

EVENTS: dict[str, Record] = {
    "chance": kind("A draw by lot (GM only): the deal, a free agent's camp, a loss order.",
                   purpose=note(KEY, "what was drawn"),
                   seat=note(SEAT, "the seat the draw was for"),
                   result=Either((note(KEY, "the camp drawn"),
                                  note(KEYS, "the loss order drawn"))),
                   deal=DEAL),
    "hand_dealt": kind("A seat's camp and hand (to that seat).", seat=SEAT, camp=CAMP,
                       cards=note(KEYS, "the hand")),
    "phase_started": kind("A phase begins.", phase=PHASE,
                          no_vote=note(SEATS, "the seats that may not vote today"),
                          candidates=note(SEATS, "the runoff's candidates")),
    "phase_ended": kind("A phase ends.", phase=PHASE),
    "camp_chosen": kind("A free agent's camp (to that seat).", seat=SEAT, camp=CAMP,
                        by=note(KEY, "`seat`: its own choice; `default`: by default")),
    "camp_default_set": kind("The GM set a free agent's default camp (GM only).", seat=SEAT,
                             camp=CAMP),
    "loss_order_set": kind("A seat's loss order (to that seat).", seat=SEAT,
                           cards=note(KEYS, "the order, the first lost first"),
                           by=note(KEY, "`seat`: its own; otherwise drawn")),
    "card_chosen": kind("A seat's card use for this phase (to that seat).", seat=SPEAKER,
                        card=CARD, target=note(SEAT, "the seat aimed at, or null"),
                        story=note(FLAG, "whether the words are a story (else a manifesto)"),
                        text=note(WORDS, "the manifesto or story sent, or null")),
    "withdrawn": kind("A seat withdrew its card use (to that seat).", seat=SEAT),
    "passed": kind("A seat uses no card tonight (to that seat).", seat=SEAT),
    "vote_cast": kind("A vote.", seat=note(SEAT, "the voter"),
                      target=note(SEAT, "the seat voted for"), runoff=RUNOFF),
    "proxy_vote_received": kind("A proxy vote left for the seat's absence (to that seat).",
                                seat=SEAT, target=note(SEAT, "the seat voted for")),
    "proxy_vote_published": kind("A proxy vote counted for an absent seat.",
                                 seat=note(SEAT, "the voter"),
                                 target=note(SEAT, "the seat voted for"), runoff=RUNOFF),
    "proxy_void": kind("A seat's proxy vote no longer counts (to that seat).", seat=SEAT),
    "vote_void": kind("A seat's vote no longer counts.", seat=SEAT),
    "count": kind("The vote's count (GM only).", tally=TALLY, runoff=RUNOFF),
    "runoff_started": kind("The vote tied: a runoff.",
                           candidates=note(SEATS, "the tied seats"), tally=TALLY,
                           adjustments=ADJUSTMENTS),
    "no_execution": kind("Nobody is executed today.", tally=TALLY, adjustments=ADJUSTMENTS),
    "vote_closed": kind("The day's vote is closed.", day=DAY),
    "execution_pending": kind("A seat is to be executed at night's end.", seat=SEAT, day=DAY),
    "execution": kind("A seat is executed.", seat=SEAT, day=DAY,
                      tally=Either((TALLY, COUNTED)), adjustments=ADJUSTMENTS),
    "pardoned": kind("A seat to be executed was pardoned.", seat=SEAT, day=DAY,
                     tally=COUNTED),
    "saint_armed": kind("A seat's SAINT is armed for the day (to that seat).", seat=SEAT,
                        day=DAY),
    "saint_fired": kind("The SAINT struck the seats that voted for its holder.",
                        seat=note(SEAT, "the SAINT's holder"),
                        voters=note(SEATS, "the seats that voted for it")),
    "saint_spent": kind("A seat's SAINT is spent (to that seat).", seat=SEAT),
    "action_resolved": kind("What a card use did (GM only).", seat=note(SEAT, "the user"),
                            card=CARD, target=note(SEAT, "the seat aimed at, or null"),
                            result=note(KEY, "what came of it")),
    "attack_dropped": kind("An attack is dropped: its rejected manifesto was not sent again "
                           "(to that seat).", seat=SEAT, card=CARD,
                           target=note(SEAT, "the seat aimed at")),
    "power_voided": kind("A card's power was voided (to that seat).", seat=SEAT, card=CARD),
    "investigation": kind("An investigation's answer (to the investigator).",
                          seat=note(SEAT, "the investigator"), card=CARD,
                          target=note(SEAT, "the seat investigated"),
                          asked=note(KEY, "the card asked about"),
                          found=note(FLAG, "the answer")),
    "manifesto": kind("An attack's manifesto or story, published without its author.",
                      target=note(SEAT, "the seat attacked"), text=WORDS,
                      story=note(FLAG, "whether it is a story")),
    "manifesto_rejected": kind("The GM rejected a seat's manifesto (to that seat).",
                               seat=SEAT, reason=note(TEXT, "the GM's reason, or null")),
    "protected": kind("An attacked seat was protected.", seat=SEAT),
    "attack_failed": kind("An attacked seat lost nothing.", seat=SEAT),
    "bomb_spent": kind("A seat's BOMB is spent.", seat=SEAT),
    "card_lost": kind("A seat lost a card: its camp is announced.", seat=SEAT, camp=CAMP,
                      cause=CAUSE),
    "own_card_lost": kind("The card a seat lost (to that seat).", seat=SEAT, card=CARD,
                          camp=CAMP, cause=CAUSE),
    "loss_explained": kind("Why a seat lost a card, or nothing (GM only).", seat=SEAT,
                           card=note(KEY, "the card lost, or null"), camp=CAMP, cause=CAUSE),
    "seat_died": kind("A seat died.", seat=SEAT, camp=CAMP, cause=CAUSE),
    "foul_out": kind("A seat fouled out.", seat=SEAT, reason=note(TEXT, "why")),
    "foul_out_cards": kind("The cards of a seat that fouled out.", seat=SEAT,
                           cards=note(KEYS, "its hand")),
    "reorder_window": kind("Loss orders may be changed until the given phase.",
                           window=note(NUMBER, "which window (1, 2…)"),
                           total_lost=note(NUMBER, "the cards lost so far"),
                           until=note(PHASE, "the phase the window closes with")),
    "game_aborted": kind("The GM ended the game without a result.",
                         reason=note(TEXT, "the GM's reason")),
    "game_over": kind("The game ends.", result=note(KEY, "the result"), winners=SEATS,
                      reveal=Record({"camps": PerSeat(CAMP),
                                     "hands": PerSeat(note(KEYS, "the cards left")),
                                     "taints": TAINTS, "deal": DEAL},
                                    "everything secret until the end")),
}

# The GM's steps (`legal_actions(state, GM)`) and their parameters, which the services
# record as the event "gm_<kind>" (games/engine/events.py `gm_fields`).
GM_STEPS: dict[str, Record] = {
    "reject_manifesto": kind("The GM rejected a seat's manifesto.", seat=SEAT,
                             reason=note(TEXT, "the GM's reason")),
    "choose_camp_for": kind("The GM set a free agent's default camp.", seat=SEAT, camp=CAMP),
    "foul_out": kind("The GM fouled a seat out.", seat=SEAT,
                     reason=note(TEXT, "the GM's reason")),
    "abort": kind("The GM ended the game without a result.",
                  reason=note(TEXT, "the GM's reason")),
}

EVENT_KINDS: tuple[str, ...] = tuple(EVENTS)

# The shapes of the reason argument types of games/engine/ninelives/reasons.py.
REASON_ARGS = {
    "ninelives.use": Record({"card": CARD, "seat": note(SEAT, "the user"),
                             "target": note(SEAT, "the seat aimed at, or null")},
                            "a card use"),
    "ninelives.order": note(KEYS, "a loss order, the first lost first"),
    "ninelives.camps": note(KEYS, "camps"),
    "ninelives.numbers": ListOf(NUMBER, "a list of numbers"),
    "ninelives.delta": note(NUMBER, "+1 or -1"),
}

SCHEMA = Schema(events=EVENTS, gm_steps=GM_STEPS, reason_args=REASON_ARGS)
