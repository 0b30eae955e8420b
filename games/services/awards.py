"""Post-game awards: the only writers of Award,
Nomination and AwardVote.

The flow:
1. After the game the GM nominates (`nominate`): the first nomination for a kind opens that
   award with a voting deadline (`vote_until`, VOTE_HOURS after by default).
2. Players of the game add the candidates they support (`add_candidate`).
3. Everyone who played votes once per award until the deadline (`cast_vote`).
4. At the deadline the sweeper (`close_due_awards`), or the GM at any time (`close_awards`),
   counts the votes and posts the results in the game's announcement thread.

Interpretations where §11.2 is silent (players' expectations, written down here):
- An award the GM never nominates for stays vacant: §11.2 lets the GM leave MVP and Fair
  Play vacant, so nothing is opened by default (Best Story included: whether anyone wrote
  story is the GM's call).
- "One MVP per side": two award kinds, `mvp_civilian` and `mvp_killer`; the service does
  not check which side a nominee played (sides differ per rule set and a seat may change
  camp), the GM does.
- Players may add candidates only after the GM has opened the award ("天神提名之后").
- "The players of the game" are everyone who held a seat, substitutes who took one over and
  players who left it included; they alone add candidates and vote. The GM nominates but
  does not vote.
- Nobody adds or votes for themselves: an award is given by the others.
- A vote is final (one per voter per award, like a day vote).
- The most votes wins. A tie goes to the candidate who reached the winning count first
  (whose last vote came earliest), a rule anyone can check from the published tally. An
  award nobody voted for stays vacant.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.models import display_name

from ..models import Announcement, Award, AwardVote, Game, Nomination
from ..presenters import listing
from ..selectors import player_ids, tally
from . import kernel
from .kernel import GameError, changed, is_gm, post_announcement

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User
    from django.contrib.auth.models import AnonymousUser

log = logging.getLogger(__name__)

VOTE_HOURS = 72
MAX_VOTE_DAYS = 30


def _kind(kind: str) -> str:
    if kind not in Award.Kind.values:
        raise GameError(_("Unknown award."))
    return kind


def _finished_game(game_id: int) -> Game:
    """The game row, locked: award writes of one game are serialized by it (the race this
    prevents: a vote slipping in while the count is being taken)."""
    game = Game.objects.select_for_update().filter(pk=game_id).first()
    if game is None:
        raise GameError(_("This game does not exist."), code="not_found")
    if not game.is_over:
        raise GameError(_("Awards are given after the game is over."))
    return game


def _open_award(game: Game, kind: str, now: dt.datetime) -> Award:
    award = Award.objects.filter(game=game, kind=kind).first()
    if award is None:
        raise GameError(_("The GM has not opened this award."), code="not_found")
    if award.closed_at is not None or (award.vote_until and now >= award.vote_until):
        raise GameError(_("This award is closed."))
    return award


def _player(user: User | AnonymousUser | None, players: set[int], message: str) -> None:
    if user is None or not user.is_authenticated or user.pk not in players:
        raise GameError(message, code="forbidden")


def nominate(*, game_id: int, gm: User | None, kind: str, nominee: User | None,
             vote_until: dt.datetime | None = None,
             now: dt.datetime | None = None) -> Nomination:
    """The GM nominates `nominee` for the award `kind`, opening the award if needed.

    `vote_until` sets (or moves) the voting deadline; a new award defaults to VOTE_HOURS
    from now. A candidate a player added becomes the GM's nominee too.
    """
    now = kernel.now(now)
    kind = _kind(kind)
    if gm is None or not gm.is_staff:
        raise GameError(_("Only a game master may do this."), code="forbidden")
    if vote_until is not None and not now < vote_until <= now + dt.timedelta(
            days=MAX_VOTE_DAYS):
        raise GameError(_("The voting deadline must lie in the next %(n)d days.")
                        % {"n": MAX_VOTE_DAYS})
    with transaction.atomic():
        game = _finished_game(game_id)
        if not is_gm(gm, game):
            raise GameError(_("Only this game's game master may do this."), code="forbidden")
        if nominee is None or nominee.pk not in player_ids(game):
            raise GameError(_("Only a player of this game can be nominated."))
        award, created = Award.objects.get_or_create(
            game=game, kind=kind,
            defaults={"vote_until": vote_until or now + dt.timedelta(hours=VOTE_HOURS)})
        if award.closed_at is not None:
            raise GameError(_("This award is closed."))
        if not created and vote_until is not None:
            award.vote_until = vote_until
            award.save(update_fields=["vote_until"])
        if award.vote_until and now >= award.vote_until:
            raise GameError(_("This award is closed."))
        nomination, new = Nomination.objects.get_or_create(
            award=award, nominee=nominee, defaults={"by": gm, "by_gm": True})
        if not new:
            if nomination.by_gm:
                raise GameError(_("%(name)s is already a candidate.")
                                % {"name": display_name(nominee)})
            nomination.by_gm = True
            nomination.save(update_fields=["by_gm"])
    return nomination


def add_candidate(*, game_id: int, user: User | AnonymousUser | None, kind: str,
                  nominee: User | None,
                  now: dt.datetime | None = None) -> Nomination:
    """A player of the game adds a candidate they support to an award the GM opened."""
    now = kernel.now(now)
    kind = _kind(kind)
    with transaction.atomic():
        game = _finished_game(game_id)
        players = player_ids(game)
        _player(user, players, _("Only the players of this game may add candidates."))
        award = _open_award(game, kind, now)
        if nominee is None or nominee.pk not in players:
            raise GameError(_("Only a player of this game can be nominated."))
        if nominee.pk == user.pk:
            raise GameError(_("You cannot add yourself; the others nominate you."))
        try:
            with transaction.atomic():  # a savepoint: the duplicate is refused, not fatal
                return Nomination.objects.create(award=award, nominee=nominee, by=user)
        except IntegrityError:
            raise GameError(_("%(name)s is already a candidate.")
                            % {"name": display_name(nominee)}) from None


def cast_vote(*, game_id: int, user: User | AnonymousUser | None, kind: str, nominee: User | None,
              now: dt.datetime | None = None) -> AwardVote:
    """A player's one vote for a candidate of an open award (final once cast)."""
    now = kernel.now(now)
    kind = _kind(kind)
    with transaction.atomic():
        game = _finished_game(game_id)
        _player(user, player_ids(game), _("Only the players of this game may vote."))
        award = _open_award(game, kind, now)
        nomination = award.nominations.filter(nominee=nominee).first() if nominee else None
        if nomination is None:
            raise GameError(_("Vote for one of the candidates."))
        if nominee.pk == user.pk:
            raise GameError(_("You cannot vote for yourself."))
        try:
            with transaction.atomic():
                return AwardVote.objects.create(award=award, voter=user, nomination=nomination)
        except IntegrityError:
            raise GameError(_("You have already voted for this award; a vote cannot be "
                              "changed.")) from None


# --- counting ----------------------------------------------------------------------------


def close_awards(*, game_id: int, gm: User | None = None,
                 now: dt.datetime | None = None) -> list[Award]:
    """Count and close the game's awards: the due ones, or (when the GM closes early) every
    open one; post their results in one announcement. Returns the awards closed now.

    Closing twice closes nothing the second time (the game lock and `closed_at`).
    """
    now = kernel.now(now)
    if gm is not None and not gm.is_staff:
        raise GameError(_("Only a game master may do this."), code="forbidden")
    with transaction.atomic():
        game = _finished_game(game_id)
        if gm is not None and not is_gm(gm, game):
            raise GameError(_("Only this game's game master may do this."), code="forbidden")
        awards = Award.objects.filter(game=game, closed_at__isnull=True)
        if gm is None:
            awards = awards.filter(vote_until__lte=now)
        closed = []
        for award in awards.order_by("kind"):
            rows = tally(award)
            award.winner = rows[0]["nomination"].nominee if rows and rows[0]["votes"] else None
            award.closed_at = now
            award.save(update_fields=["winner", "closed_at"])
            closed.append((award, rows))
        if closed:
            _post_results(game, closed)
    return [award for award, _rows in closed]


def close_due_awards(*, now: dt.datetime | None = None) -> int:
    """Close every award whose voting deadline has passed (for the sweeper); returns how
    many were closed. One query when nothing is due."""
    now = kernel.now(now)
    game_ids = set(Award.objects.filter(closed_at__isnull=True, vote_until__lte=now)
                   .values_list("game_id", flat=True))
    closed = 0
    for game_id in sorted(game_ids):
        try:
            closed += len(close_awards(game_id=game_id, now=now))
        except Exception:  # one broken game must not keep the others' awards open
            log.exception("closing the awards of game %s failed", game_id)
    return closed


def _post_results(game: Game, closed: list[tuple[Award, list[dict]]]) -> None:
    """The results as an announcement of the game (published at once; readers who want
    announcements by email get it). Written in the site's language: the thread is shared."""
    with translation.override(settings.LANGUAGE_CODE):
        lines = []
        for award, rows in closed:
            if award.winner is None:
                line = _("**%(award)s**: vacant (no votes).") % {"award": award.get_kind_display()}
            else:
                line = _("**%(award)s**: %(name)s") % {"award": award.get_kind_display(),
                                                       "name": rows[0]["name"]}
            counts = listing(
                _("%(name)s %(votes)d") % {"name": r["name"], "votes": r["votes"]} for r in rows)
            if counts:
                line += " — " + _("votes: %(counts)s") % {"counts": counts}
            if len(rows) > 1 and rows[0]["votes"] and rows[0]["votes"] == rows[1]["votes"]:
                line += " " + _("(a tie: the first to reach the count wins)")
            lines.append(line)
        title = _("Awards")
    ann = Announcement.objects.create(game=game, phase=None, title=title,
                                      body="\n\n".join(lines))
    post_announcement(game, ann)
    changed(game)
