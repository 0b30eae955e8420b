"""The awards page of a finished game (§11.2): candidates, the voting deadline, the forms to
nominate (GM), add a candidate and vote (players of the game), and the results once closed.

Thin: every write goes through games.services (awards); a refusal comes back as a readable
message.
Running tallies are not shown while an award is open, so early votes do not sway later
ones; the counts appear with the results.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.models import display_name
from config.inputs import InputError, parse_datetime, parse_int
from config.ratelimit import consume

from .. import selectors, services
from ..models import Award, AwardVote, Game
from ..services import GameError

AWARD_RATE = "20/10m"  # nominations, added candidates and votes per person


def _finished(pk) -> Game:
    game = get_object_or_404(Game, pk=pk)
    if not game.is_over:
        raise Http404
    return game


def awards_page(request, pk):
    game = _finished(pk)
    now = timezone.now()
    players = selectors.player_ids(game)
    me = request.user
    is_player = me.is_authenticated and me.pk in players
    people = sorted(get_user_model().objects.filter(pk__in=players).select_related("profile"),
                    key=display_name)
    opened = {a.kind: a for a in game.awards.all()}
    mine = {}
    if me.is_authenticated:
        mine = dict(AwardVote.objects.filter(award__game=game, voter=me)
                    .values_list("award__kind", "nomination__nominee_id"))
    rows = []
    for kind, label in Award.Kind.choices:
        award = opened.get(kind)
        is_open = bool(award and award.closed_at is None
                       and (award.vote_until is None or now < award.vote_until))
        candidates = selectors.tally(award) if award else []
        listed = {c["nomination"].nominee_id for c in candidates}
        rows.append({
            "kind": kind, "label": label, "award": award, "open": is_open,
            "candidates": candidates, "my_vote": mine.get(kind),
            "can_vote": is_player and is_open and kind not in mine,
            "can_add": is_player and is_open,
            "addable": [(u.pk, display_name(u)) for u in people
                        if u.pk not in listed and u.pk != me.pk],
        })
    return render(request, "games/awards.html", {
        "game": game, "rows": rows, "is_player": is_player,
        "is_gm": selectors.is_gm(me, game),
        "people": [(u.pk, display_name(u)) for u in people],
        # Awards not counted yet (open, or past the deadline before the sweeper came by).
        "pending": any(r["award"] and r["award"].closed_at is None for r in rows),
    })


def _user(raw: str | None):
    pk = parse_int(raw, field="nominee", minimum=1, default=None)
    return get_user_model().objects.filter(pk=pk).first() if pk is not None else None


def _deadline(raw: str | None):
    """A datetime-local field (in the reader's timezone), or None when left empty."""
    return parse_datetime(raw, field=_("the voting deadline"), default=None)


@require_POST
@login_required
def award_post(request, pk):
    """One form of the awards page: `do` is nominate, add, vote or close."""
    game = _finished(pk)
    do = request.POST.get("do", "")
    kind = request.POST.get("kind", "")
    try:
        nominee = _user(request.POST.get("nominee"))
        vote_until = _deadline(request.POST.get("vote_until")) if do == "nominate" else None
    except InputError as refused:  # a form error: back to the page with the sentence
        messages.error(request, refused.message)
        return redirect("game-awards", pk=game.pk)
    if do in ("nominate", "add", "vote"):
        consume(scope=f"games.awards:{game.pk}", who=f"user:{request.user.pk}",
                rate=AWARD_RATE, message=_("Too many award requests. Please wait a moment."))
    try:
        if do == "nominate":
            services.nominate(game_id=game.pk, gm=request.user, kind=kind, nominee=nominee,
                            vote_until=vote_until)
            done = _("The nomination was recorded.")
        elif do == "add":
            services.add_candidate(game_id=game.pk, user=request.user, kind=kind, nominee=nominee)
            done = _("The candidate was added.")
        elif do == "vote":
            services.cast_vote(game_id=game.pk, user=request.user, kind=kind, nominee=nominee)
            done = _("Your vote was counted.")
        elif do == "close":
            closed = services.close_awards(game_id=game.pk, gm=request.user)
            done = _("Results posted.") if closed else _("No award was open.")
        else:
            raise GameError(_("Unknown request."))
    except GameError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, done)
    return redirect("game-awards", pk=game.pk)
