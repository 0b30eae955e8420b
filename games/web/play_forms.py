"""The forms a seat fills on its act page and in the vote box: what they offer comes from the
engine's legal actions (through games.selectors), what they send is exactly what the person
chose, and a refused form comes back with what was entered and the refusal beside its field.

1. `ActForm`: the action list (no action preselected: its first entry is "choose"), the
   pickers and the free texts. The options and the check of a picked combination are
   games.web.play's; this class holds the bound data and the errors.
2. `LossOrderForm`: a list parameter ordered by the person (a 猫有n条命 loss order): one
   select per position for every card but the last, and the last (the core card) chosen
   among the cards the rules allow there. Nothing is typed and nothing is reordered: a card
   listed twice or left out is refused beside its position, and the step sent is the order
   on screen (static/js/play-forms.js adds 上移/下移 buttons and dragging on top of the
   selects; the selects stay the form's only fields).
3. `round_cost`: the sentence that says what a step costs before it is paid (a day card
   after a night card leaves no card for the next round, seed 002 §3.5.3), read from the
   seat's own view.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from ..engine.base import Choice
from ..presenters import listing, picker_entry

# Refusal codes of the rules that concern a free text: shown beside that text's box.
TEXT_REFUSALS = {
    "manifesto_too_short": "manifesto",
    "two_texts": "manifesto",
    "empty_story": "story",
    "no_text": "manifesto",
    "bad_text": "manifesto",
}
# Refusal codes that concern a picked parameter.
PICK_REFUSALS = {
    "not_in_hand": "card",
    "unknown_card": "card",
    "dead_card": "card",
    "night_only": "card",
    "not_in_runoff": "card",
    "bad_target": "target",
    "not_self": "target",
    "jail_twice": "target",
    "no_target": "target",
    "bad_seat": "target",
}
# Refusal codes that concern a loss order (beside its core card, the rule they break).
ORDER_REFUSALS = {"bad_order": None, "core_camp": "core", "core_fixed": "core"}


class ActForm(forms.Form):
    """The act form's fields, bound to what was posted (or empty): `choice` (the option's
    value, "" until one is chosen), `pick_<key>` for each picker, `text_<name>` for each
    free text. Every field is optional here: games.web.play reads them with
    config.inputs and the rules, and puts each refusal on its field (`refuse`)."""

    def __init__(self, data=None, *, picks=(), texts=()):
        super().__init__(data)
        self.fields["choice"] = forms.CharField(required=False, strip=False)
        for key in picks:
            self.fields[f"pick_{key}"] = forms.CharField(required=False, strip=False)
        for name in texts:
            self.fields[f"text_{name}"] = forms.CharField(required=False, strip=False)

    def value(self, name: str) -> str:
        """What the person entered in `name` ("" on a fresh form): shown again as it was."""
        if not self.is_bound:
            return ""
        raw = self.data.get(name, "")
        return raw if isinstance(raw, str) else ""

    def refuse(self, message, *, field: str | None = None, code: str | None = None) -> None:
        """Add `message` beside `field` (an InputError's field), or beside the field the
        rules' refusal `code` concerns, else beside the action list."""
        if field is None and code is not None:
            if code in TEXT_REFUSALS:
                field = self._text_field(TEXT_REFUSALS[code])
            elif (
                code in PICK_REFUSALS
                and f"pick_{PICK_REFUSALS[code]}" in self.fields
                and self.value(f"pick_{PICK_REFUSALS[code]}")
            ):
                field = f"pick_{PICK_REFUSALS[code]}"
        if field not in self.fields:
            field = "choice"
        self.add_error(field, str(message))

    def _text_field(self, preferred: str) -> str:
        """The text box a text refusal belongs to: the one written, else `preferred`."""
        written = [n for n in self.fields if n.startswith("text_") and self.value(n).strip()]
        if len(written) == 1:
            return written[0]
        return f"text_{preferred}"

    def errors_of(self, name: str) -> list[str]:
        return list(self.errors.get(name, [])) if self.is_bound else []


@dataclass
class OrderRow:
    """One position of the loss-order form: its field name, its number from 1, the value
    shown (the card there), the cards it offers (value, label) and its refusals."""

    name: str
    number: int
    value: str
    entries: list[tuple[str, str]]
    errors: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.entries_label(self.value)

    def entries_label(self, value: str) -> str:
        return dict(self.entries).get(value, value)


@dataclass
class LossOrderSetup:
    """What the rules offer for the ordered list: the cards held (as the engine's options
    list them, the current order first), the cards allowed last (the core card), and the
    order shown first (the seat's current one, when it has one the rules offer)."""

    cards: list[str]
    cores: list[str]
    initial: list[str]

    @classmethod
    def from_choices(
        cls, choices: list[Choice], current: list | None, hand: list | None = None
    ) -> LossOrderSetup | None:
        """From the offered loss orders (one per allowed core card); `current` and `hand`
        (the seat's own view) only order what the page shows: the positions start from the
        current order if the rules offer it, the selects list the cards as held."""
        orders = [
            c.params["cards"]
            for c in choices
            if c.kind == "loss_order"
            and isinstance(c.params.get("cards"), list)
            and c.params["cards"]
        ]
        if not orders:
            return None
        cores = list(dict.fromkeys(order[-1] for order in orders))
        initial = next(
            (list(o) for o in orders if current and list(o) == list(current)), list(orders[0])
        )
        cards = list(hand) if hand and Counter(hand) == Counter(orders[0]) else list(orders[0])
        return cls(cards=cards, cores=cores, initial=initial)


class LossOrderForm(forms.Form):
    """The loss order as chosen: `order_1` ... `order_<n-1>` (each listing every card held)
    and `core` (the last card, among the allowed ones). Valid when the positions and the
    core hold each card of the hand exactly once; `cards()` is then the order to send,
    exactly as chosen."""

    def __init__(self, data=None, *, setup: LossOrderSetup, ruleset: str, names: dict[int, str]):
        super().__init__(data)
        self.setup = setup
        label = {c: picker_entry(ruleset, "card", c, names) for c in setup.cards}
        self.card_entries = [(c, label[c]) for c in dict.fromkeys(setup.cards)]
        self.core_entries = [(c, label.get(c, c)) for c in setup.cores]
        card_choices = [("", "—"), *self.card_entries]
        wrong_card = gettext_lazy("Choose one of the cards you hold.")
        for n in range(1, len(setup.cards)):
            self.fields[f"order_{n}"] = forms.ChoiceField(
                choices=card_choices,
                required=True,
                error_messages={"required": wrong_card, "invalid_choice": wrong_card},
            )
        wrong_core = gettext_lazy("Your core card must be one of those listed.")
        self.fields["core"] = forms.ChoiceField(
            choices=self.core_entries,
            required=True,
            error_messages={"required": wrong_core, "invalid_choice": wrong_core},
        )

    def positions(self) -> list[str]:
        return [f"order_{n}" for n in range(1, len(self.setup.cards))]

    def clean(self):
        data = super().clean()
        names = [*self.positions(), "core"]
        if any(n not in data for n in names):
            return data  # a field already refused
        chosen = [data[n] for n in names]
        label = dict(self.card_entries)
        seen: dict[str, str] = {}
        held = Counter(self.setup.cards)
        counted: Counter = Counter()
        # The core card is placed first in the count, so a position that repeats it is the
        # one refused (the core was chosen in its own select).
        for name in ["core", *self.positions()]:
            card = data[name]
            counted[card] += 1
            if counted[card] > held[card]:
                where = (
                    _("your core card")
                    if seen[card] == "core"
                    else _("position %(n)d") % {"n": int(seen[card].split("_")[1])}
                )
                self.add_error(
                    name,
                    _("%(card)s is already at %(where)s: list each card once.")
                    % {"card": label.get(card, card), "where": where},
                )
            seen.setdefault(card, name)
        missing = list((held - Counter(chosen)).elements())
        if missing:
            self.add_error(
                None,
                _("Missing from your order: %(cards)s. Each card you hold is listed once.")
                % {"cards": listing(label.get(c, c) for c in missing)},
            )
        return data

    def cards(self) -> list[str]:
        """The order chosen, first lost first, the core card last (a valid form only)."""
        return [self.cleaned_data[n] for n in self.positions()] + [self.cleaned_data["core"]]

    def rows(self) -> list[OrderRow]:
        """The positions as the page shows them: what was entered, else the order shown
        first."""
        rows = []
        for n, name in enumerate(self.positions(), start=1):
            value = self.data.get(name, "") if self.is_bound else self.setup.initial[n - 1]
            rows.append(
                OrderRow(
                    name,
                    n,
                    value if isinstance(value, str) else "",
                    self.card_entries,
                    list(self.errors.get(name, [])) if self.is_bound else [],
                )
            )
        return rows

    def core_value(self) -> str:
        value = self.data.get("core", "") if self.is_bound else self.setup.initial[-1]
        return value if isinstance(value, str) else ""

    def refuse(self, message, *, code: str | None = None) -> None:
        """A refusal of the rules or the service: beside the core card when it concerns the
        core card, else above the positions."""
        self.add_error("core" if ORDER_REFUSALS.get(code) == "core" else None, str(message))


def round_cost(ruleset: str, view: dict | None) -> str:
    """What using a card in this phase costs the seat beyond the card, or "".

    猫有n条命 (seed 002 §3.5.3): one card a round (a night and the day after it); a seat that
    used a card last night and uses one by day may use none in the next round. Read from the
    seat's own view: the phase and the seat's uses of this round.
    """
    if ruleset != "ninelives" or not view or "me" not in view:
        return ""
    phase = (view.get("public") or {}).get("phase") or {}
    name, number = phase.get("name"), phase.get("number")
    if name not in ("day", "runoff") or not isinstance(number, int):
        return ""
    uses = (view["me"].get("uses") or {}).get(str(number), [])
    if "night" not in uses or "day" in uses:
        return ""
    return pgettext(
        "ninelives",
        "You used a card last night: if you use a card today, you "
        "may use no card in round %(next)d (night %(next)d and day %(next)d).",
    ) % {"next": number + 1}
