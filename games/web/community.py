"""The community buttons of a game's page: sign up, withdraw, check in, take over a seat,
ask for leave."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from config.ratelimit import RateLimited, consume, too_many_requests

from .. import services
from .pages import game_or_404

# Community writes per person, by button: a leave request is a message to
# the GM, so it is the scarcest; sign-ups and handovers are one-off by nature.
RATES = {"signup": "6/h", "withdraw": "6/h", "checkin": "5/h", "substitute": "6/h",
         "leave": "3/h"}


@require_POST
@login_required
def community_action(request, pk, what):
    """Sign up / withdraw / check in / accept a substitution / ask for leave, from the game
    page. Refusals come back as a readable message; nothing is stored."""
    game = game_or_404(pk)
    user = request.user
    if what not in RATES:
        raise Http404
    try:
        consume(scope=f"games.{what}:{game.pk}", who=f"user:{user.pk}", rate=RATES[what],
                message=_("Too many requests of this kind. Please wait a while and try "
                          "again."))
    except RateLimited as refused:
        return too_many_requests(request, refused)
    try:
        if what == "signup":
            services.sign_up(game_id=game.pk, user=user,
                              role=request.POST.get("role", "player"))
            done = _("You are signed up.")
        elif what == "withdraw":
            services.withdraw_signup(game_id=game.pk, user=user)
            done = _("Your sign-up was withdrawn.")
        elif what == "checkin":
            services.check_in(game_id=game.pk, user=user)
            done = _("You have checked in.")
        elif what == "substitute":
            services.accept_substitution(game_id=game.pk, user=user)
            done = _("You have taken over the seat. Read your conversation with 神的使者.")
        elif what == "leave":
            services.request_leave(game_id=game.pk, user=user,
                                    message=request.POST.get("message", ""))
            done = _("Your leave request was sent to the GM.")
        else:
            raise Http404
    except services.GameError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, done)
    return redirect("game-home", pk=game.pk)
