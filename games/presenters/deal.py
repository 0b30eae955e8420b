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
    number: int  # 1-based, as every page numbers seats
    seat: str  # "1号阿猫"
    camp: str
    cards: str
    attributes: str  # "" when the seat has none


def headings() -> tuple[str, str, str, str]:
    return (
        pgettext("deal table", "Seat"),
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
    """Who Stole My Gold has no camps: each seat's cards, the card it showed and the card it
    laid face down."""
    rows = []
    for n, private in enumerate(view.get("private") or []):
        private = private or {}
        marks = []
        if private.get("pick"):
            marks.append(
                pgettext("deal table", "showed %(card)s") % {"card": gold.card(private["pick"])}
            )
        face_down = private.get("face_down") or {}
        if face_down.get("card"):
            where = (
                gold.virtual_name(face_down["virtual"])
                if "virtual" in face_down
                else pgettext("deal table", "its own card")
            )
            marks.append(
                pgettext("deal table", "laid %(card)s face down on %(place)s")
                % {"card": gold.card(face_down["card"]), "place": where}
            )
        cards = listing(gold.card(c) for c in private.get("hand") or []) or "—"
        rows.append(
            DealRow(n + 1, who(names, n), pgettext("deal table", "no camps"), cards, listing(marks))
        )
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


def deal_markdown(rows: list[DealRow]) -> str:
    """The rows as a Markdown table (the game-over announcement is a post)."""
    if not rows:
        return ""

    def cell(text: str) -> str:
        return (text or "—").replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(headings()) + " |", "|---|---|---|---|"]
    lines += [
        f"| {cell(r.seat)} | {cell(r.camp)} | {cell(r.cards)} | {cell(r.attributes)} |"
        for r in rows
    ]
    return "\n".join(lines)
