"""What every presenter shares: seat names, the generic text of an event or a choice, and
vote tallies. (The engine's reasons are rendered by games/presenters/reasons.py.)

It is also the presenter of a rule set that has no sentences of its own (the test toy
registers it explicitly): with no `present`/`label` here, every event and choice is shown in
the generic text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

SEAT_KEYS = ("seat", "target", "voter", "attacker", "victim", "by", "executed", "loser")


def listing(items) -> str:
    """Items joined the reader's way: "A、B" in Chinese, "A, B" in English."""
    return pgettext("list separator", ", ").join(str(i) for i in items)


def sentences(first: str, second: str) -> str:
    """Two sentences one after the other: with a space in English, none in Chinese."""
    return pgettext("sentences", "%(first)s %(second)s") % {"first": first, "second": second}


def seat_name(names: dict[int, str], seat) -> str:
    """A seat by its player's name alone (a picker's entry adds the number itself)."""
    if isinstance(seat, int) and not isinstance(seat, bool):
        return names.get(seat, _("seat %(n)d") % {"n": seat + 1})
    return str(seat)


def who(names: dict[int, str], seat) -> str:
    """A seat named in a sentence: its number from 1 and its player, "3号阿狗" in Chinese
    (the one way every rule set names a seat in text; pickers say "3 · 阿狗")."""
    if not isinstance(seat, int) or isinstance(seat, bool):
        return str(seat)
    name = names.get(seat)
    if not name:
        return _("seat %(n)d") % {"n": seat + 1}
    return _("%(name)s (seat %(n)d)") % {"name": name, "n": seat + 1}


def generic_label(choice, names: dict[int, str]) -> str:
    """A choice as its kind and parameters, seats named."""
    parts = [choice.kind.replace("_", " ")]
    for key, value in choice.params.items():
        if key in SEAT_KEYS:
            value = seat_name(names, value)
        elif isinstance(value, list):
            value = " → ".join(str(v) for v in value)
        parts.append(f"{key}: {value}")
    return " · ".join(str(p) for p in parts)


def generic_text(event: dict, names: dict[int, str]) -> str:
    """An event as its kind and facts, seats named (the GM's own log entries, and the kinds a
    rule set's presenter leaves to it)."""
    data = event.get("data", {})
    parts = []
    for key, value in data.items():
        if key in SEAT_KEYS or key.endswith("_seat"):
            value = who(names, value)
        elif isinstance(value, list) and key.endswith("seats"):
            value = listing(who(names, v) for v in value)
        parts.append(f"{key}: {value}")
    kind = event.get("kind", "?").replace("_", " ")
    return f"**{kind}**" + (" — " + "; ".join(parts) if parts else "")


# --- vote tallies ---------------------------------------------------------

@dataclass
class TallyRow:
    """One candidate of a vote as the public may know it, in the order the engine counts:
    the votes cast in person (in the order cast), the proxy votes (published at the count),
    the votes voided, then the effects that changed the count (+1 / -1, as the rules publish
    them). `count` is the engine's own final count; None while it is not published.
    `out`: the seat left the game in this vote (a foul-out), so the votes for it count for
    nothing; the line says so instead of a count of 0."""

    seat: int
    name: str
    in_person: list[str] = field(default_factory=list)
    proxies: list[str] = field(default_factory=list)
    void: list[str] = field(default_factory=list)
    effects: list[str] = field(default_factory=list)
    count: int | None = None
    out: bool = False

    @property
    def provisional(self) -> int:
        """The votes known so far (in person and proxies, voided ones left out)."""
        return len(self.in_person) + len(self.proxies)


@dataclass
class VoteTally:
    """A vote's tally, built by a presenter's `vote_tallies(events, names)` from the
    engine's public events only (every viewer reads the same).

    `key` identifies the vote within the game ((phase name, number) or (day, stage));
    `status` is "open" (votes still arrive), "pending" (closed, the count published later)
    or "closed"; `settled_seq` is the seq of the event that closed it or published its count
    (the service posts the result in the vote thread when that event is stored)."""

    key: tuple
    heading: str
    rows: list[TallyRow] = field(default_factory=list)
    status: str = "open"
    result: str = ""
    notes: list[str] = field(default_factory=list)
    settled_seq: int | None = None

    def as_markdown(self, *, count_label: str, none_label: str) -> str:
        """The tally as the lines of 神的使者's result post (text from the presenter)."""
        lines = [f"**{self.heading}**", ""]
        for row in self.rows:
            lines.append(f"- {row_text(row, count_label)}")
        if not self.rows:
            lines.append(f"- {none_label}")
        lines += [""] + [n for n in self.notes] + ([self.result] if self.result else [])
        return "\n".join(lines).strip()


def row_text(row: TallyRow, count_label: str) -> str:
    """"2号阿狗：3票（亲自投票：阿猫、老黑；委托投票：花花；诅咒 +1）"."""
    parts = []
    sep = pgettext("list separator", ", ")
    if row.in_person:
        parts.append(_("in person: %(names)s") % {"names": sep.join(row.in_person)})
    if row.proxies:
        parts.append(_("proxy: %(names)s") % {"names": sep.join(row.proxies)})
    if row.void:
        parts.append(_("void: %(names)s") % {"names": sep.join(row.void)})
    parts += row.effects
    count = row.count if row.count is not None else row.provisional
    text = (pgettext("tally", "%(seat)s: out of the game, so votes for it do not count")
            % {"seat": row.name} if row.out else count_label % {"seat": row.name, "n": count})
    return text + (pgettext("tally details", " (%(details)s)") % {
        "details": pgettext("tally parts", "; ").join(parts)} if parts else "")
