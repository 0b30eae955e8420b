"""The development outbox: the emails the site sent, readable in the browser (issue 14 item
10). Only with DEBUG on (a development server) and only for staff; a 404 otherwise, since a
sign-in or password-reset email is for its addressee alone in production."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404
from django.shortcuts import render

from .. import mail, selectors


def dev_outbox(request):
    user = request.user
    if not settings.DEBUG or not user.is_authenticated or not user.is_staff:
        raise Http404
    emails = selectors.recent_outbox()
    for row in emails:
        if row.template:  # not sent yet: shown as it will be written (not saved)
            mail.write_deferred(row)
    return render(request, "games/dev_outbox.html", {"emails": emails})
