"""The deal revealed at the end, as a table for people: one row per seat with its number and
name ("1号阿猫"), its camp, its cards and its secret attributes, in the reader's language.

The review page and the game-over announcement show this table; the canonical text the deal
commitment hashes stays on the commitment page (and in events.json), where it is checked.
Each rule set reads its own part of the GM's view (`view(state, GM)`): the rows never hold an
engine key, a JSON object or a 0-based seat number.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from ..engine.classic import roles as classic_roles
from . import classic, gold, ninelives
from .base import listing, who


@dataclass(frozen=True)
class DealRow:
    """One seat's row. `camp`, `cards` and `attributes` are the three columns after the
    seat, in that order; `headings(ruleset)` names them in the rule set's own words (gold
    has no camps: its columns are the last round's hand, the card shown and the card laid
    face down)."""

    number: int  # 1-based, as every page numbers seats
    seat: str  # "1号阿猫"
    camp: str
    cards: str
    attributes: str  # "" when the seat has none


def headings(ruleset: str | None = None) -> tuple[str, str, str, str]:
    """The table's four column headings for `ruleset`: 猫有n条命's camp, cards and secret
    attributes (taints, §3.5.1); classic's side, card and what changed in secret (the
    ghost, a possession, a lapsed guardian); gold's last round (hand, card shown, card laid
    face down). Without a rule set, the general ones."""
    seat = pgettext("deal table", "Seat")
    if ruleset == "classic":
        return (seat, pgettext("deal table", "Side"), pgettext("deal table", "Card"),
                pgettext("deal table", "In secret"))
    if ruleset == "gold":
        return (seat, pgettext("deal table", "Hand in the last round"),
                pgettext("deal table", "Shown in the last round"),
                pgettext("deal table", "Laid face down in the last round"))
    return (
        seat,
        pgettext("deal table", "Camp"),
        pgettext("deal table", "Cards"),
        pgettext("deal table", "Secret attributes"),
    )


def _ninelives(view: dict, names: dict[int, str]) -> list[DealRow]:
    """Camp as dealt (a free agent's choice after it), hand as dealt, and the secret taints
    (§3.5.1) carried by cards of that hand."""
    secret = view.get("secret") or {}
    private = view.get("private") or []
    deal = secret.get("deal") or {}
    taints = secret.get("taints") or deal.get("taints") or {}
    rows = []
    for n, entry in enumerate(deal.get("seats") or []):
        dealt = entry.get("camp")
        chosen = (private[n] or {}).get("camp") if n < len(private) else None
        camp = ninelives.camp_name(dealt)
        if dealt == "free_agent" and chosen and chosen != "free_agent":
            camp = _("free agent, chose %(camp)s") % {"camp": ninelives.camp_name(chosen)}
        cards = entry.get("cards") or []
        marks = [
            pgettext("deal table", "%(card)s carries the %(camp)s taint")
            % {"card": ninelives.card_name(c), "camp": ninelives.camp_name(kind)}
            for kind, tainted in sorted(taints.items())
            for c in cards
            if c in tainted
        ]
        rows.append(
            DealRow(n + 1, who(names, n), camp, ninelives.cards_text(cards), listing(marks))
        )
    return rows


CLASSIC_SIDES = {
    "police": lambda: pgettext("classic side", "police side"),
    "bandit": lambda: pgettext("classic side", "bandit side"),
    "civilian": lambda: pgettext("classic side", "civilians"),
    "free": lambda: pgettext("classic side", "on no side"),
}


def _classic(view: dict, names: dict[int, str]) -> list[DealRow]:
    """The card each seat was dealt (the ghost bandit named), its side, and what the game
    made of it in secret: the ghost's possession, a lapsed guardian."""
    secret = view.get("secret") or {}
    deal = secret.get("deal") or secret.get("roles") or []
    possessed = set(secret.get("possessed") or [])
    lapsed = set(secret.get("lapsed") or [])
    rows = []
    for n, card in enumerate(deal):
        role = classic_roles.BANDIT if card == classic_roles.GHOST else card
        side = classic_roles.side(role, lapsed=n in lapsed)
        marks = []
        if secret.get("ghost") == n or card == classic_roles.GHOST:
            marks.append(pgettext("deal table", "the ghost bandit"))
        if n in possessed:
            marks.append(pgettext("deal table", "possessed by the ghost"))
        if n in lapsed:
            marks.append(pgettext("deal table", "lapsed guardian"))
        rows.append(
            DealRow(
                n + 1,
                who(names, n),
                CLASSIC_SIDES.get(side, CLASSIC_SIDES["free"])(),
                classic.role_text(card),
                listing(marks),
            )
        )
    return rows


def _gold(view: dict, names: dict[int, str]) -> list[DealRow]:
    """Who Stole My Gold has no camps and deals every player the same three cards: each
    seat's last round instead, in the columns `headings("gold")` names (the hand, the card
    it showed, the card it laid face down and where)."""
    rows = []
    for n, private in enumerate(view.get("private") or []):
        private = private or {}
        shown = gold.card(private["pick"]) if private.get("pick") else ""
        face_down = private.get("face_down") or {}
        laid = ""
        if face_down.get("card"):
            where = (
                gold.virtual_name(face_down["virtual"])
                if "virtual" in face_down
                else pgettext("deal table", "its own card")
            )
            laid = pgettext("deal table", "laid %(card)s face down on %(place)s") % {
                "card": gold.card(face_down["card"]), "place": where}
        hand = listing(gold.card(c) for c in private.get("hand") or []) or "—"
        rows.append(DealRow(n + 1, who(names, n), hand, shown, laid))
    return rows


READERS = {"ninelives": _ninelives, "classic": _classic, "gold": _gold}


def deal_rows(ruleset: str, gm_view: dict | None, names: dict[int, str]) -> list[DealRow]:
    """The deal as rows, from the GM's view after the end; [] for a rule set without a
    reader here (a test's toy) or a game never dealt.

    Precondition: the caller may show the GM's view (the game is over, or the GM asks).
    """
    reader = READERS.get(ruleset)
    if reader is None or not gm_view:
        return []
    return reader(gm_view, names)


def deal_markdown(rows: list[DealRow], ruleset: str | None = None) -> str:
    """The rows as a Markdown table (the game-over announcement is a post), headed in the
    rule set's words (`headings`)."""
    if not rows:
        return ""

    def cell(text: str) -> str:
        return (text or "—").replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(headings(ruleset)) + " |", "|---|---|---|---|"]
    lines += [
        f"| {cell(r.seat)} | {cell(r.camp)} | {cell(r.cards)} | {cell(r.attributes)} |"
        for r in rows
    ]
    return "\n".join(lines)
