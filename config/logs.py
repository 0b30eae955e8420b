"""The log line format (settings.LOGGING): time in UTC, level, logger, the game when there
is one, message:

    2026-12-01T08:15:02Z INFO games.services.lifecycle game=42 phase advanced: night 1 -> day 1

A line is about a game when it was logged with `extra={"game_id": ...}` (phase advances, GM
acts, a failing advance: games/services); other lines carry no game field.
"""

from __future__ import annotations

import logging
import time


class UTCFormatter(logging.Formatter):
    """Times in UTC whatever the server's zone, so lines from several machines sort."""

    converter = time.gmtime

    def format(self, record: logging.LogRecord) -> str:
        game_id = getattr(record, "game_id", None)
        record.game = f"game={game_id} " if game_id is not None else ""
        return super().format(record)
