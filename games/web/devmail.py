"""The development outbox: the emails the site sent, readable in the browser. Only with
DEBUG on (a development server) and only for staff; a 404 otherwise.

Even there a staff member reads only what is theirs to read (`selectors.recent_outbox`):
their own emails, and the notifications of the players of the games they run as GM or
co-GM. Sign-in, verification and password-reset emails reach their addressee only, and a
staff member seated in a game reads nothing the game sends to the others (superusers
included).
"""

from __future__ import annotations

from django.conf import settings
from django.http import Http404
from django.shortcuts import render

from .. import mail, selectors


def dev_outbox(request):
    user = request.user
    if not settings.DEBUG or not user.is_authenticated or not user.is_staff:
        raise Http404
    emails = selectors.recent_outbox(user)
    for row in emails:
        if row.template:  # not sent yet: shown as it will be written (not saved)
            mail.write_deferred(row)
    return render(request, "games/dev_outbox.html", {"emails": emails})
