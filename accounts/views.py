from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _

from .forms import ProfileForm
from .models import Profile


@login_required
def profile(request):
    instance, _created = Profile.objects.get_or_create(
        user=request.user, defaults={"display_name": f"user{request.user.pk}"})
    form = ProfileForm(request.POST or None, instance=instance)
    if request.method == "POST" and form.is_valid():
        form.save()
        translation.activate(form.instance.language)
        messages.success(request, _("Your profile was saved."))
        response = redirect("profile")
        response.set_cookie("django_language", form.instance.language, samesite="Lax")
        return response
    return render(request, "accounts/profile.html", {"form": form, "profile": instance})
