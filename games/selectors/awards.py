"""Post-game awards (§11.2): the candidates of an award with their votes."""

from __future__ import annotations

import datetime as dt

from accounts.models import display_name

from ..models import Award


def tally(award: Award) -> list[dict]:
    """The candidates of `award` with their votes, winner first.

    Order: most votes; on a tie, the one whose last vote came first (who reached the count
    first); candidates without votes last, in the order they were added.
    """
    rows = []
    for nomination in award.nominations.select_related("nominee__profile").order_by(
            "created", "id"):
        times = sorted(v.created for v in nomination.votes.all())
        rows.append({"nomination": nomination, "name": display_name(nomination.nominee),
                     "votes": len(times), "reached": times[-1] if times else None})
    far = dt.datetime.max.replace(tzinfo=dt.UTC)
    rows.sort(key=lambda r: (-r["votes"], r["reached"] or far))
    return rows
