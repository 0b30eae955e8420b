"""The post-game review: phase names, who held each seat, the deal commitment and its check."""

from __future__ import annotations

import hashlib

from accounts.models import display_name

from .. import rulesets
from ..models import Game, Substitution
from ..presenters import counts_rounds, phase_name, phase_names, round_of


def commitment_of(text: str, salt: str) -> str:
    """SHA-256 hex of the canonical deal text followed by the salt (see docs)."""
    return hashlib.sha256((text + salt).encode("utf-8")).hexdigest()


def phase_titles(game: Game) -> dict[int, str]:
    """Phase.pk -> the phase's name ("第1夜", "第2轮 · 选牌") in the reader's language."""
    phases = list(game.phases.order_by("seq"))
    return dict(zip([p.pk for p in phases], phase_names(game.ruleset, phases), strict=True))


def phase_title(game: Game, phase) -> str:
    """One stored phase's name (a gold phase's round is counted from the phases before it:
    one query; no query for the other rule sets); "—" for none."""
    if phase is None:
        return "—"
    if not counts_rounds(game.ruleset):
        return phase_name(game.ruleset, phase.name, phase.number)
    phases = list(game.phases.filter(seq__lte=phase.seq).order_by("seq"))
    return phase_names(game.ruleset, phases)[-1] if phases else phase_name(
        game.ruleset, phase.name, phase.number)


def current_phase_name(game: Game) -> str:
    """The name of the game's current phase (the round from the public state: no query);
    "" before the game starts."""
    if not game.phase_name:
        return ""
    public = (game.state or {}).get("public") if isinstance(game.state, dict) else None
    return phase_name(game.ruleset, game.phase_name, game.phase_number,
                      round_of(game.ruleset, public))


def seat_holders(game: Game) -> dict[int, list[str]]:
    """Seat number -> the names of everyone who held it, first to last (substitutions)."""
    holders: dict[int, list[str]] = {}
    handovers = (Substitution.objects.filter(game=game, status=Substitution.Status.ACCEPTED)
                 .select_related("seat", "outgoing__profile", "incoming__profile")
                 .order_by("closed_at", "id"))
    for sub in handovers:
        chain = holders.setdefault(sub.seat.number, [])
        if not chain and sub.outgoing_id:
            chain.append(display_name(sub.outgoing))
        if sub.incoming_id:
            chain.append(display_name(sub.incoming))
    for seat in game.seats.select_related("user__profile"):
        chain = holders.setdefault(seat.number, [])
        current = display_name(seat.user) if seat.user_id else ""
        if current and (not chain or chain[-1] != current):
            chain.append(current)
    return holders


def commitment_check(game: Game) -> dict:
    """The deal commitment recomputed from the revealed deal and salt (after the end, or for
    staff: the caller has checked access)."""
    text = rulesets.engine(game.ruleset).commitment_text(game.state) if game.state else None
    if text is None or not game.commitment:
        return {"text": None}
    recomputed = commitment_of(text, game.salt)
    return {"text": text, "salt": game.salt, "recomputed": recomputed,
            "matches": recomputed == game.commitment}
