"""The games app in the Django admin:

    console  GameAdmin, the 天神 console (every GM power as a page or a button)
    records  the model admins of a game's records (seats, phases, steps, votes, events...)
"""

from . import console, records

__all__ = ["console", "records"]
