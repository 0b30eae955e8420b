"""What a user's account is kept for: other apps name the records that need the user's row, so
the admin never deletes a person a game or a conversation still points at (deactivate instead).

A keeper is a callable `keeper(user) -> list[str]` returning short, translated reasons (empty:
nothing of that app needs the row); games and messaging register theirs from their
AppConfig.ready(), so accounts imports neither:

    from accounts.records import register_record_keeper
    register_record_keeper(game_records)
"""

from __future__ import annotations

from collections.abc import Callable

RecordKeeper = Callable[..., "list[str]"]
_keepers: list[RecordKeeper] = []


def register_record_keeper(keeper: RecordKeeper) -> RecordKeeper:
    """Ask `keeper` before any user is deleted (a decorator too; twice is a no-op)."""
    if keeper not in _keepers:
        _keepers.append(keeper)
    return keeper


def records_of(user) -> list[str]:
    """Why `user` must be kept (every registered keeper's reasons, in order); [] if none."""
    reasons: list[str] = []
    for keeper in list(_keepers):
        reasons.extend(keeper(user))
    return reasons
