from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from config.inputs import InputError, parse_int

from . import timezones
from .models import Profile
from .names import MAX_LENGTH, check_name, name_skeleton


def validate_display_name(name: str, *, user=None) -> str:
    """The cleaned name, or ValidationError: `check_name`'s rules, then no other profile and
    no staff account's username may share its skeleton (one indexed lookup for profiles)."""
    from django.contrib.auth import get_user_model

    name = check_name(name)
    skeleton = name_skeleton(name)
    taken = Profile.objects.filter(name_skeleton=skeleton)
    staff = get_user_model().objects.filter(is_staff=True)
    if user is not None and user.pk:
        taken = taken.exclude(user=user)
        staff = staff.exclude(pk=user.pk)
    if taken.exists():
        raise forms.ValidationError(_("This display name is already taken."))
    if any(name_skeleton(u.get_username()) == skeleton for u in staff.only("username")):
        raise forms.ValidationError(
            _("This name is reserved for the service and its game masters."))
    return name


class SignupForm(forms.Form):
    """Extra fields on allauth's sign-up form (ACCOUNT_SIGNUP_FORM_CLASS)."""

    display_name = forms.CharField(
        label=_("Display name"), max_length=MAX_LENGTH,
        help_text=_("The name other players see and vote for."))

    def clean_display_name(self):
        return validate_display_name(self.cleaned_data["display_name"])

    def signup(self, request, user):
        lang = getattr(request, "LANGUAGE_CODE", None)
        Profile.objects.create(
            user=user, display_name=self.cleaned_data["display_name"],
            language=lang if lang in dict(Profile._meta.get_field("language").choices)
            else Profile._meta.get_field("language").default)


class ProfileForm(forms.ModelForm):
    class Meta:
        model = Profile
        fields = ["display_name", "timezone", "language", "reminder_hours", "email_results",
                  "email_announcements", "email_replies"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Offsets and places in the reader's language ("UTC+08:00 中国（上海）"), the common
        # zones first, the rest by continent (accounts.timezones).
        self.fields["timezone"].widget = forms.Select(
            choices=timezones.choices(self.instance.timezone if self.instance.pk else ""))
        self.fields["timezone"].help_text = _(
            "Every time on the site is shown in this zone. Your browser's zone is used "
            "until you choose one here.")

    def clean_display_name(self):
        name = self.cleaned_data["display_name"]
        if self.instance.pk and name == self.instance.display_name:
            # Unchanged: a name taken before a word was reserved (accounts.names) stays its
            # owner's, who can still save the rest of the profile.
            return name
        return validate_display_name(name, user=self.instance.user)

    def clean_timezone(self):
        tz = self.cleaned_data["timezone"]
        if not timezones.is_known(tz):
            raise forms.ValidationError(_("Unknown timezone."))
        return tz

    def save(self, commit=True):
        # A zone picked here is the reader's own choice: no browser overwrites it.
        if "timezone" in self.changed_data:
            self.instance.timezone_origin = "chosen"
        return super().save(commit)

    def clean_reminder_hours(self):
        raw = self.cleaned_data["reminder_hours"].strip()
        if not raw:
            return ""
        try:
            hours = sorted({parse_int(h, field="hours") for h in raw.split(",") if h.strip()},
                           reverse=True)
        except InputError:
            raise forms.ValidationError(_("Give whole hours separated by commas, e.g. 6,1.")) from None
        if any(h < 1 or h > 48 for h in hours) or len(hours) > 4:
            raise forms.ValidationError(_("Up to four reminders, each 1 to 48 hours before."))
        return ",".join(str(h) for h in hours)
