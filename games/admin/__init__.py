"""The games app in the Django admin:

    console  GameAdmin, the 天神 console (every GM power as a page or a button)
    records  the model admins of a game's records (seats, phases, steps, votes, events...)
    rollback the 天神's undo: the choices, the confirm page, the POST (games_game_rollback)
"""

from . import console, records

__all__ = ["console", "records"]
