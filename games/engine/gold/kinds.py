"""The event kinds the gold engine emits and what each one's data holds, field by field
(games/engine/events.py; docs/events-json.md lists them from here). games/rulesets.py hands
the kinds to the system check that its presenter covers each; tests/engine/test_event_kinds.py
checks random play emits no other kind and tests/engine/test_event_fields.py that every
event's data has the declared fields and types."""

from ..events import (
    FLAG,
    KEY,
    NUMBER,
    SEAT,
    SEATS,
    VIRTUAL,
    ByKey,
    ListOf,
    PerSeat,
    Record,
    Schema,
    kind,
    note,
)

ROUND = note(NUMBER, "the round")
CARD = note(KEY, "a card")
VIRTUAL_CARDS = ListOf(CARD, "a list with one card per virtual player, the first for "
                             "虚拟玩家 1")
COUNTS = ByKey(note(NUMBER, "how many of that card are on the table"))
PER_CARD = ByKey(note(NUMBER, "the coins each holder of that card wins"))
JUDGMENT = {"counts": COUNTS, "per_card": PER_CARD,
            "vanished": note(NUMBER, "coins that vanish"),
            "winner": note(KEY, "the card whose holders take the coins, or null")}

EVENTS: dict[str, Record] = {
    "setup": kind("The game's setup.", players=note(NUMBER, "how many players"),
                  virtual_players=note(NUMBER, "how many virtual players"),
                  rounds=note(NUMBER, "how many rounds"),
                  first_lead=note(SEAT, "who leads the first round")),
    "round_started": kind("A round begins.", round=ROUND,
                          lead=note(SEAT, "who leads the round"), virtual=VIRTUAL_CARDS),
    "picked": kind("A seat's secret pick (to that seat).", seat=SEAT, card=CARD, round=ROUND),
    "pick_defaulted": kind("A seat picked nothing in time and got a card by lot (to that "
                           "seat).", seat=SEAT, card=CARD),
    "revealed": kind("Every pick is shown.",
                     seats=PerSeat(note(KEY, "the card the seat shows")),
                     virtual=VIRTUAL_CARDS),
    "preliminary": kind("The preliminary judgment.", **JUDGMENT,
                        shares=PerSeat(note(NUMBER, "the coins the seat would win")),
                        priority=note(SEATS, "the seats that take a priority token")),
    "bonus": kind("A priority holder takes the bonus.", seat=SEAT,
                  coins=note(NUMBER, "the coins taken"),
                  total=note(NUMBER, "the seat's coins now"),
                  missed=note(FLAG, "whether it chose nothing in time")),
    "double": kind("A priority holder takes the ×2 token.", seat=SEAT),
    "kept": kind("A seat keeps its card.", seat=SEAT,
                 missed=note(FLAG, "whether it chose nothing in time")),
    "swapped": kind("A seat swapped its shown card for a face-down one.", seat=SEAT),
    "swapped_card": kind("The card a seat put face down (to that seat).", seat=SEAT,
                         card=CARD),
    "replaced": kind("A seat replaced a virtual player's card.", seat=SEAT, virtual=VIRTUAL,
                     removed=note(KEY, "the card taken away")),
    "replaced_card": kind("The card a seat put face down on a virtual player (to that seat).",
                          seat=SEAT, virtual=VIRTUAL, card=CARD),
    "flipped": kind("A seat turned a face-down card up.", seat=SEAT, card=CARD,
                    target=Record({"seat": SEAT, "virtual": VIRTUAL},
                                  "the place turned up: a seat or a virtual player")),
    "final": kind("The round's final judgment.", round=ROUND,
                  lead=note(SEAT, "who led the round"),
                  seats=PerSeat(note(KEY, "the seat's card")), virtual=VIRTUAL_CARDS,
                  tokens=PerSeat(note(KEY, "the seat's token, or null")),
                  choices=PerSeat(Record({"operation": note(KEY, "the operation chosen"),
                                          "priority": note(KEY, "the priority choice")},
                                         "the seat's choice (null: none)")),
                  shares=PerSeat(note(NUMBER, "the coins the seat's card wins")),
                  paid=PerSeat(note(NUMBER, "the coins paid to the seat")),
                  judgment=Record(JUDGMENT, "the judgment"),
                  coins=PerSeat(note(NUMBER, "the seat's coins now"))),
    "game_over": kind("The game ends.", result=note(KEY, "the result"), winners=SEATS,
                      coins=PerSeat(note(NUMBER, "the seat's coins"))),
}

EVENT_KINDS: tuple[str, ...] = tuple(EVENTS)

# The shapes of the reason argument types of games/engine/gold/reasons.py.
REASON_ARGS = {
    "gold_table": Record({"seats": PerSeat(note(KEY, "the seat's card")),
                          "virtual": VIRTUAL_CARDS}, "the cards on the table"),
    "gold_counts": COUNTS,
    "gold_virtual": VIRTUAL,
    "gold_place": Record({"seat": SEAT, "virtual": VIRTUAL},
                         "a place: a seat or a virtual player"),
    "gold_payments": ListOf(Record({"seat": SEAT, "coins": note(NUMBER, "the coins paid")},
                                   "a payment"), "the payments, each an object"),
}

SCHEMA = Schema(events=EVENTS, reason_args=REASON_ARGS)
