from django.conf import settings
from django.http import JsonResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from . import timezones
from .middleware import TIMEZONE_COOKIE
from .models import Profile


def set_language(request):
    """The header's language menu: Django's own set_language (the cookie, the redirect back),
    and for a signed-in user the profile's language too, since the profile's language is the
    one each request activates (accounts.middleware).

    A reader who is not signed in asks by a GET (`?language=&next=`): only the cookie is
    written, the one thing a link from elsewhere could change, so their pages carry no CSRF
    token and are kept whole (messaging.blocks). A signed-in user's GET changes nothing."""
    from django.views.i18n import set_language as django_set_language

    if request.method == "GET":
        return _language_by_link(request)
    response = django_set_language(request)
    code = request.POST.get("language", "")
    if request.method == "POST" and request.user.is_authenticated \
            and code in dict(settings.LANGUAGES):
        Profile.objects.filter(user=request.user).update(language=code)
    return response


def _language_by_link(request):
    """Back to `next` (this site only, else the home page), with the language cookie set
    for a reader who is not signed in and asked for a language the site has."""
    from django.utils.http import url_has_allowed_host_and_scheme

    back = request.GET.get("next", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure()):
        back = "/"
    response = redirect(back)
    code = request.GET.get("language", "")
    if not request.user.is_authenticated and code in dict(settings.LANGUAGES):
        response.set_cookie(settings.LANGUAGE_COOKIE_NAME, code,
                            max_age=settings.LANGUAGE_COOKIE_AGE,
                            path=settings.LANGUAGE_COOKIE_PATH,
                            domain=settings.LANGUAGE_COOKIE_DOMAIN,
                            secure=settings.LANGUAGE_COOKIE_SECURE,
                            httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
                            samesite=settings.LANGUAGE_COOKIE_SAMESITE)
    return response


@require_POST
def set_timezone(request):
    """The zone the reader's browser reports (static/js/timezone.js, once, on a first
    visit): kept on the profile of a signed-in user who has not chosen one (their own choice
    on the profile page is never overwritten), in a cookie for a reader who is not signed
    in. Answers {"timezone": the zone now in force, "changed": whether it moved}; a name
    the tz database does not know is a 400 with a sentence, and changes nothing. A POST
    with the CSRF token, like every form."""
    name = request.POST.get("timezone", "")[:64]
    if not timezones.is_known(name):
        return JsonResponse({"error": _("Unknown timezone.")}, status=400)
    before = timezone.get_current_timezone_name()
    if request.user.is_authenticated:
        # Only a zone nobody set yet: two tabs opened at once write it once.
        Profile.objects.filter(user=request.user, timezone_origin="").update(
            timezone=name, timezone_origin="browser")
        now = Profile.objects.filter(user=request.user).values_list(
            "timezone", flat=True).first() or before
        response = JsonResponse({"timezone": now, "changed": now != before})
    else:
        response = JsonResponse({"timezone": name, "changed": name != before})
        response.set_cookie(TIMEZONE_COOKIE, name, max_age=365 * 86_400,
                            secure=settings.SESSION_COOKIE_SECURE, httponly=False,
                            samesite="Lax")
    return response
