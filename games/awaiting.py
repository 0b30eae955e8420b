"""Who the engine awaits, kept beside the state it was read from (`Game.awaiting`).

The reminder sweep needs, for each game it looks at, the living seats, the seats the engine
awaits among them and the round of the phase (for the texts). Worked out from the state,
that means reading and decoding every state and asking the engine; kept on the game's row,
the sweep reads a few numbers instead.

The services are the only writers of the state and write the record with it (`for_game`,
in record_step, start_game and the rollback), with the game's step count. The sweep trusts
a record only while its `steps` is the game's (games.reminders.who_is_awaited), and
otherwise works it out from the state (`of_state`).
"""

from __future__ import annotations

from . import rulesets
from .presenters import round_of


def of_state(ruleset: str, state: dict | None) -> dict | None:
    """{"living": [...], "awaiting": [...], "round": r}: the engine's living seats, the seats
    it awaits among them (sorted), and `round_of` the phase; None for a game with no state
    (not started)."""
    if not state:
        return None
    engine = rulesets.engine(ruleset)
    living = set(engine.living_seats(state))
    return {"living": sorted(living),
            "awaiting": sorted(set(engine.phase(state).awaiting) & living),
            "round": round_of(ruleset, state.get("public"))}


def for_game(game) -> dict | None:
    """`of_state` of the game's state, with the game's step count (what a service writes)."""
    record = of_state(game.ruleset, game.state)
    if record is not None:
        record["steps"] = game.steps
    return record
