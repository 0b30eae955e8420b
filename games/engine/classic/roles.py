"""Classic 杀人游戏 roles: who is dealt what (seed 001 §1, seed 003), sides, labels, victory.

Names follow shared/GLOSSARY.md. A seat's role is one of `ROLES`; a possessed civilian's
role becomes `BANDIT` (seed 003, ghost rule 1) and the seat is listed in
`secret["possessed"]`; the ghost is a `BANDIT` whose seat is `secret["ghost"]`.

Sides decide three things, each documented in docs/rules/classic.md:
1. whom a dual guardian's protection works for (seed 003, dual guardians §3);
2. which seats count as police, bandits and civilians for victory (seed 001 §4,
   seed 003 ghost rule 5);
3. who shares a win (seed 001 §4.4; seed 003 dual guardians §2).
"""

from __future__ import annotations

POLICE = "police"
BANDIT = "bandit"
CIVILIAN = "civilian"
POISON = "poison"
GUARDIAN = "guardian"                  # the single guardian: free stance (seed 003, guardian)
POLICE_GUARDIAN = "police_guardian"
BANDIT_GUARDIAN = "bandit_guardian"
GHOST = "ghost"                        # only as a card in a fixed deal and in the final reveal

ROLES = (POLICE, BANDIT, CIVILIAN, POISON, GUARDIAN, POLICE_GUARDIAN, BANDIT_GUARDIAN)
GUARDIANS = (GUARDIAN, POLICE_GUARDIAN, BANDIT_GUARDIAN)

# Labels: what an announcement or a check may say about a seat (a role, or this one).
POSSESSED_BANDIT = "possessed_bandit"
ROLE_NAMES_ZH = {
    POLICE: "警", BANDIT: "匪", CIVILIAN: "民", POISON: "毒药", GUARDIAN: "守护神",
    POLICE_GUARDIAN: "警神", BANDIT_GUARDIAN: "匪神", POSSESSED_BANDIT: "被附体匪", GHOST: "鬼匪",
}

# Results of a game (Outcome.result).
POLICE_WIN = "police"      # police and civilians win (seed 001 §4.1, §4.4)
BANDIT_WIN = "bandit"
DRAW = "draw"


def team_size(seats: int) -> int:
    """Police (and bandits) per game: 3 for 11-14 players, 4 for 15-16 (seed 001 §1)."""
    return 3 if seats <= 14 else 4


def composition(seats: int, *, ghost_poison: bool, guardian: bool,
                dual_guardians: bool) -> dict[str, int]:
    """How many of each card the deal holds. The ghost is one of the bandits, counted apart.

    Every special role takes the place of a civilian: the 2.0 variants keep the police and
    bandit teams equal (seed 003, ghost and poison, first paragraph; guardian, first line).
    """
    n = team_size(seats)
    cards = {POLICE: n, BANDIT: n, POISON: 0, GUARDIAN: 0, POLICE_GUARDIAN: 0,
             BANDIT_GUARDIAN: 0, GHOST: 0}
    if ghost_poison:
        cards[POISON] = 1
        cards[GHOST] = 1
        cards[BANDIT] -= 1          # the ghost is one of the n bandits
    if guardian:
        cards[GUARDIAN] = 1
    if dual_guardians:
        cards[POLICE_GUARDIAN] = 1
        cards[BANDIT_GUARDIAN] = 1
    cards[CIVILIAN] = seats - sum(cards.values())
    return {k: v for k, v in cards.items() if v}


def side(role: str, *, lapsed: bool = False) -> str:
    """The side a role plays for: "police", "bandit", "civilian" or "free" (single guardian).

    A lapsed police guardian plays as a civilian (seed 003, dual guardians §6); the poison is on
    the police side (seed 003, poison, first paragraph).
    """
    if role == POLICE_GUARDIAN:
        return CIVILIAN if lapsed else POLICE
    if role in (POLICE, POISON):
        return POLICE
    if role in (BANDIT, BANDIT_GUARDIAN):
        return BANDIT
    if role == CIVILIAN:
        return CIVILIAN
    return "free"


def protection_works(guardian_role: str, target_role: str, *, target_lapsed: bool) -> bool:
    """Whether a guardian's protection saves a seat of `target_role` (seed 003, dual §3).

    The single guardian protects anyone. A police guardian protects the police side and
    civilians; a bandit guardian protects bandits and civilians.
    """
    if guardian_role == GUARDIAN:
        return True
    target_side = side(target_role, lapsed=target_lapsed)
    if guardian_role == POLICE_GUARDIAN:
        return target_side in (POLICE, CIVILIAN)
    if guardian_role == BANDIT_GUARDIAN:
        return target_side in (BANDIT, CIVILIAN)
    return False


def counts_as(role: str, *, lapsed: bool = False) -> str | None:
    """Which victory group a seat counts in: POLICE, BANDIT, CIVILIAN or None.

    Only the checking police count as police: the poison does not (seed 003 ghost rule 5C) and
    neither does a police guardian; a lapsed police guardian counts as a civilian (dual §6).
    """
    if role == POLICE:
        return POLICE
    if role == BANDIT:
        return BANDIT
    if role == CIVILIAN or (role == POLICE_GUARDIAN and lapsed):
        return CIVILIAN
    return None


def winning_side(role: str, result: str) -> bool:
    """Whether a seat of `role` shares the win `result` (seed 001 §4.4; seed 003 dual §2).

    The single guardian chose its stance freely and privately, so it shares no result.
    """
    if result == POLICE_WIN:
        return role in (POLICE, CIVILIAN, POISON, POLICE_GUARDIAN)
    if result == BANDIT_WIN:
        return role in (BANDIT, BANDIT_GUARDIAN)
    return False
