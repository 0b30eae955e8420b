"""The GM's review of manifestos (猫有n条命 §3.5.2): approve one, or reject it with a reason.

Seed 002 §3.5.2 lets the GM refuse a killer's, wolf's or sniper's manifesto (or story) and
ask for a new one. The console lists the night's manifestos (`selectors.manifestos_for_review`)
and each is approved or rejected here:
- approve: recorded (`ManifestoApproval`, by a digest of what was approved) and the author is
  told by 神的使者; the manifesto is published at dawn with the night's results, as before;
- reject: the rules' own step (`reject_manifesto`, in the replay log): 神的使者 sends the
  author the reason, the author owes an attack again and may send a new manifesto until the
  change cut-off; without one the attack does not happen.
Review is open while the night runs, until `Game.manifesto_review_minutes` before its
deadline (0: until the night ends). A manifesto nobody reviewed by then is published at
dawn as written, so an absent GM never stalls the game. Each request names the digest of
the manifesto the console showed: one its author changed meanwhile is refused (look again).
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.utils import translation
from django.utils.translation import gettext as _

from messaging import services as forum

from ..engine.base import GM, action
from ..mail import user_locale
from ..models import Game, ManifestoApproval
from ..selectors import manifestos_for_review, phase_title, seat_names
from . import kernel
from .kernel import GameError, changed, deliver_private, log_gm, require_gm
from .record import apply_step

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User

REASON_MAX = 2_000


def review_open(game: Game, now: dt.datetime) -> bool:
    """Whether the GM may still review the night's manifestos at `now`: while the phase
    runs, until `manifesto_review_minutes` before its deadline."""
    minutes = game.manifesto_review_minutes or 0
    if not minutes or game.deadline is None:
        return True
    return now < game.deadline - dt.timedelta(minutes=minutes)


def _pending(game: Game, seat: object, digest: object, now: dt.datetime) -> dict:
    """The manifesto of `seat` the console showed (by its digest), if it may be reviewed.

    Precondition: the caller holds the game lock."""
    if game.status != Game.Status.RUNNING:
        raise GameError(_("This game is not running."))
    entry = next((m for m in manifestos_for_review(game) if m["seat"] == seat), None)
    if entry is None or not isinstance(digest, str) or entry["digest"] != digest:
        raise GameError(
            _(
                "That manifesto is no longer waiting for review (its author changed "
                "or withdrew it, or it was rejected); look again."
            ),
            code="stale",
        )
    if not review_open(game, now):
        raise GameError(
            _("Review closed %(n)d minutes before dawn: the manifesto is published as written.")
            % {"n": game.manifesto_review_minutes},
            code="closed",
        )
    return entry


def approve_manifesto(
    *, game_id: int, gm: User | None, seat: int, digest: str, now: dt.datetime | None = None
) -> None:
    """The GM approves seat `seat`'s manifesto as shown (`digest`); its author is told."""
    now = kernel.now(now)
    with transaction.atomic():
        game = require_gm(game_id, gm)
        entry = _pending(game, seat, digest, now)
        if entry["approved"]:
            return
        try:
            with transaction.atomic():
                ManifestoApproval.objects.create(
                    game=game, night=game.phase_number, seat=seat, digest=digest, approved_by=gm
                )
        except IntegrityError:  # approved twice at once: once is enough
            return
        log_gm(game, gm, "approve_manifesto", {"seat": seat})
        author = game.seats.select_related("conversation", "user__profile").get(number=seat)
        if author.conversation is not None:
            with translation.override(user_locale(author.user).language):
                body = _(
                    "The GM approved your manifesto of %(phase)s; it will be published "
                    "with the night's results."
                ) % {"phase": phase_title(game, game.current_phase)}
            forum.send_as_messenger(conversation=author.conversation, body=body)


def reject_manifesto(
    *,
    game_id: int,
    gm: User | None,
    seat: int,
    digest: str,
    reason: str,
    now: dt.datetime | None = None,
) -> None:
    """The GM rejects seat `seat`'s manifesto as shown, with a reason 神的使者 sends its
    author (the rules' `reject_manifesto` step: the attack is owed again)."""
    now = kernel.now(now)
    reason = (reason or "").strip()
    if not reason:
        raise GameError(
            _("Say why the manifesto is rejected: its author reads the reason."), code="reason"
        )
    if len(reason) > REASON_MAX:
        raise GameError(
            _("The reason is too long (at most %(n)d characters).") % {"n": REASON_MAX},
            code="reason",
        )
    with transaction.atomic():
        game = require_gm(game_id, gm)
        _pending(game, seat, digest, now)
        t = apply_step(
            game, action(GM, "reject_manifesto", seat=seat, reason=reason), user=gm, seat=None
        )
        # An earlier approval of the same text no longer holds: sent again, it is pending.
        ManifestoApproval.objects.filter(game=game, digest=digest).delete()
        deliver_private(game, t.events, seat_names(game))
        log_gm(game, gm, "reject_manifesto", {"seat": seat, "reason": reason})
        game.save()
        changed(game)
