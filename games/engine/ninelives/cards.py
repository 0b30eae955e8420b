"""猫有n条命 (seed 002) cards and camps: §2 (counts), §3 (the 19 card kinds), §3.5.4 (SAINT).

Names follow shared/GLOSSARY.md. Chinese names are for the Chinese UI only.
"""

from __future__ import annotations

KILLER_CAMP = "killer"
WOLF_CAMP = "wolf"
CIVILIAN_CAMP = "civilian"
NEUTRAL = "neutral"          # a card camp only; no seat belongs to it
FREE_AGENT = "free_agent"    # a seat "camp" before the free agent chooses (§2)

SEAT_CAMPS = (KILLER_CAMP, WOLF_CAMP, CIVILIAN_CAMP)

# card -> (camp, copies in the deck, Chinese name)   (§3.1-§3.4)
CARDS: dict[str, tuple[str, int, str]] = {
    "KILLER": (KILLER_CAMP, 2, "杀手"),
    "DEMON": (KILLER_CAMP, 2, "恶魔"),
    "WEREWOLF": (WOLF_CAMP, 2, "狼人"),
    "SORCERER": (WOLF_CAMP, 2, "巫师"),
    "SNIPER": (CIVILIAN_CAMP, 1, "狙击手"),
    "DIVINER": (CIVILIAN_CAMP, 2, "占卜"),
    "PROPHET": (CIVILIAN_CAMP, 2, "先知"),
    "SOULBINDER": (CIVILIAN_CAMP, 1, "束魂"),
    "WITCH_DOCTOR": (CIVILIAN_CAMP, 1, "巫医"),
    "VEST": (NEUTRAL, 1, "防弹衣"),
    "WOLFSBANE": (NEUTRAL, 1, "狼毒"),
    "JAIL": (NEUTRAL, 1, "禁锢"),
    "PARDON": (NEUTRAL, 1, "特赦"),
    "COUNTER_SNIPER": (NEUTRAL, 1, "反狙击手"),
    "STRIKE": (NEUTRAL, 1, "必杀"),
    "BOMB": (NEUTRAL, 1, "炸弹"),
    "CURSE": (NEUTRAL, 1, "诅咒"),
    "BLESS": (NEUTRAL, 1, "庇佑"),
    "SAINT": (NEUTRAL, 1, "圣人"),
}

CAMP_NAMES_ZH = {KILLER_CAMP: "杀手", WOLF_CAMP: "狼人", CIVILIAN_CAMP: "平民",
                 NEUTRAL: "中立", FREE_AGENT: "自选立场者"}

NEUTRAL_CARDS = tuple(c for c, (camp, _, _) in CARDS.items() if camp == NEUTRAL)
ATTACK_CARDS = ("KILLER", "WEREWOLF", "SNIPER")          # need a manifesto (§3.5.2)
DAY_CARDS = ("STRIKE", "BOMB", "CURSE", "BLESS")          # usable by day too (§3.5.3)


def camp_of(card: str) -> str:
    return CARDS[card][0]


def deck(players: int) -> list[str]:
    """The deck for 5 players (25 cards) or 6 players (24 cards, no SAINT: §3.5.4)."""
    if players not in (5, 6):
        raise ValueError("猫有n条命 is played by 5 or 6 players")
    cards = [c for c, (_, n, _) in CARDS.items() for _ in range(n)]
    if players == 6:
        cards.remove("SAINT")
    return cards


def hand_size(players: int) -> int:
    return 5 if players == 5 else 4
