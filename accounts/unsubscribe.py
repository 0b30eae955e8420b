"""One-click unsubscribe (RFC 8058) for the notification emails.

Every notification email carries `List-Unsubscribe: <signed URL>` and
`List-Unsubscribe-Post: List-Unsubscribe=One-Click`. The URL names one user and one kind of
email, signed with the site's secret (django.core.signing, salted), so it needs no session
and no CSRF token: a mail client POSTs to it without cookies. A GET only shows a page with
the button (GET requests read; a link scanner must not unsubscribe anyone).
"""

from __future__ import annotations

from django.core import signing
from django.http import Http404
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from config.site import site_url

from .models import Profile

SALT = "accounts.unsubscribe"

# kind of email -> (Profile field, value that turns it off)
KINDS = {
    "results": ("email_results", False),
    "announcements": ("email_announcements", False),
    "replies": ("email_replies", False),
    "reminders": ("reminder_hours", ""),
}


def unsubscribe_url(user, kind: str) -> str:
    """The absolute one-click URL that turns `kind` off for `user` (KeyError for a kind
    that cannot be turned off)."""
    KINDS[kind]  # noqa: B018 - refuse an unknown kind at once
    token = signing.dumps({"u": user.pk, "k": kind}, salt=SALT, compress=True)
    return site_url() + reverse("unsubscribe", args=[token])


def settings_url() -> str:
    """The notification settings (the profile page), absolute, for every email's footer."""
    return site_url() + reverse("profile")


def _read(token: str) -> tuple[Profile, str]:
    try:
        data = signing.loads(token, salt=SALT)
        kind = data["k"]
        field, _off = KINDS[kind]
        profile = Profile.objects.get(user_id=int(data["u"]))
    except (signing.BadSignature, KeyError, TypeError, ValueError, Profile.DoesNotExist):
        raise Http404("no such unsubscribe link") from None
    return profile, kind


@csrf_exempt  # signed instead: a mail client's one-click POST carries no cookie or token
@require_http_methods(["GET", "POST"])
def unsubscribe(request, token: str):
    profile, kind = _read(token)
    done = False
    if request.method == "POST":
        field, off = KINDS[kind]
        Profile.objects.filter(pk=profile.pk).update(**{field: off})
        done = True
    return render(request, "accounts/unsubscribe.html",
                  {"kind": kind, "done": done, "settings_url": reverse("profile")})
