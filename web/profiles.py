"""A player's profile pages, which compose the apps: the profile form (a rename asks the
games first and tells them after, by name), and the public profile with each app's section
(the forum's numbers, the games' archive), called in order rather than registered."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.forms import ProfileForm
from accounts.models import Profile
from games import services
from games.selectors import rename_refusal
from games.web.archive import profile_section as games_section
from messaging.profile import forum_section

# What each app shows on a public profile, in order: `section(request, user)` returns None
# (nothing to show) or (template name, context). Precondition for a section: its query
# count does not depend on how much the user has done (the page has a query budget).
SECTIONS = (forum_section, games_section)


def render_sections(request, user) -> list[str]:
    """The HTML of every section that has something to show for `user`."""
    rendered = []
    for section in SECTIONS:
        found = section(request, user)
        if found is not None:
            template_name, context = found
            rendered.append(render_to_string(template_name, context, request=request))
    return rendered


@login_required
def profile(request):
    instance, _created = Profile.objects.get_or_create(
        user=request.user, defaults={"display_name": f"user{request.user.pk}"})
    form = ProfileForm(request.POST or None, instance=instance)
    if request.method == "POST" and form.is_valid() and "display_name" in form.changed_data:
        # The name shows on everything the account wrote, where the living read: whoever
        # reads a running game's secrets keeps it until that game ends (games.selectors
        # .secrets). Nothing of the form is saved then.
        refusal = rename_refusal(request.user)
        if refusal:
            form.add_error("display_name", refusal)
            instance = Profile.objects.get(pk=instance.pk)
    if request.method == "POST" and form.is_valid():
        form.save()
        # The games show the name and time the reminders: they are told, not left to a
        # signal (games.services.profile_saved).
        services.profile_saved(user_id=request.user.pk,
                               renamed="display_name" in form.changed_data,
                               new_hours="reminder_hours" in form.changed_data)
        translation.activate(form.instance.language)
        messages.success(request, _("Your profile was saved."))
        response = redirect("profile")
        # The language cookie as Django's own set_language writes it (Secure in production).
        response.set_cookie(settings.LANGUAGE_COOKIE_NAME, form.instance.language,
                            max_age=settings.LANGUAGE_COOKIE_AGE,
                            secure=settings.LANGUAGE_COOKIE_SECURE,
                            httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
                            samesite=settings.LANGUAGE_COOKIE_SAMESITE)
        return response
    return render(request, "accounts/profile.html", {
        "form": form, "profile": instance,
        "sections": render_sections(request, request.user)})


def public_profile(request, pk: int):
    """A player's public page: display name, member since, and what each app adds
    (`SECTIONS`). The 神的使者 account has none (a 404)."""
    person = get_object_or_404(get_user_model().objects.select_related("profile"), pk=pk)
    if person.get_username() == settings.MESSENGER_USERNAME:
        raise Http404
    return render(request, "accounts/public_profile.html", {
        "person": person, "profile": getattr(person, "profile", None),
        "sections": render_sections(request, person)})


