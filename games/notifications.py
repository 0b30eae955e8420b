"""Email notifications, per the user's settings (accounts.Profile email_* fields).

Called by services inside their transaction; emails go out on commit through Celery.
"""

from __future__ import annotations


def notify_private_result(game, seat, body: str) -> None:
    """A seat received private results from 神的使者 (to be implemented: email if wanted)."""


def notify_announcement(game, announcement) -> None:
    """An announcement was published in a game (to be implemented: email the seats that want it)."""
