"""Fixed, §4-valid deals for the 猫有n条命 tests (seat numbers 0-based, as in steps)."""

FIVE = {
    "players": 5,
    "seats": [
        {"camp": "killer", "cards": ["KILLER", "DEMON", "WITCH_DOCTOR", "VEST", "JAIL"]},
        {"camp": "wolf", "cards": ["WEREWOLF", "SORCERER", "SOULBINDER", "WOLFSBANE", "PARDON"]},
        {"camp": "civilian", "cards": ["SNIPER", "DIVINER", "KILLER", "SORCERER", "SAINT"]},
        {"camp": "civilian", "cards": ["DIVINER", "PROPHET", "WEREWOLF", "STRIKE", "CURSE"]},
        {"camp": "civilian", "cards": ["PROPHET", "DEMON", "BLESS", "COUNTER_SNIPER", "BOMB"]},
    ],
    "taints": {"killer": ["STRIKE", "BLESS"], "wolf": ["JAIL", "SAINT"]},
}

SIX = {
    "players": 6,
    "seats": [
        {"camp": "killer", "cards": ["KILLER", "DEMON", "WITCH_DOCTOR", "JAIL"]},
        {"camp": "wolf", "cards": ["WEREWOLF", "SORCERER", "SOULBINDER", "WOLFSBANE"]},
        {"camp": "civilian", "cards": ["SNIPER", "PROPHET", "DEMON", "BLESS"]},
        {"camp": "civilian", "cards": ["DIVINER", "PROPHET", "WEREWOLF", "STRIKE"]},
        {"camp": "civilian", "cards": ["DIVINER", "PARDON", "COUNTER_SNIPER", "BOMB"]},
        {"camp": "free_agent", "cards": ["KILLER", "SORCERER", "VEST", "CURSE"]},
    ],
    "taints": {"killer": ["JAIL", "BOMB"], "wolf": ["STRIKE", "CURSE"]},
}
