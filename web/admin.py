from django import forms
from django.apps import apps
from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected
from django.contrib.admin.utils import unquote
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin as DjangoGroupAdmin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.models import Group
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import Profile, display_name
from config.inputs import DateRangeAdmin
from games.selectors import game_records_of
from games.services import profile_saved
from messaging.profile import forum_records_of


def records_of(user) -> list[str]:
    """Why `user`'s row must be kept (the forum's reasons, then the games'); [] if none.
    The admin refuses to delete a user with any (their posts, seats and games would lose
    their person)."""
    return forum_records_of(user) + game_records_of(user)

class ProfileForm(forms.ModelForm):
    """The profile's fields in the reader's language (the model leaves a few unnamed)."""

    class Meta:
        model = Profile
        fields = ["user", "display_name", "timezone", "timezone_origin", "language",
                  "reminder_hours", "email_results", "email_announcements", "email_replies",
                  "calendar_token"]
        labels = {"user": gettext_lazy("user"),
                  "timezone_origin": gettext_lazy("where the timezone came from"),
                  "calendar_token": gettext_lazy("calendar feed secret")}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["timezone_origin"].choices = [
            ("", _("the site's default")), ("browser", _("the reader's browser")),
            ("chosen", _("chosen by the reader"))]


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    form = ProfileForm
    list_display = ["display_name", "account", "timezone", "language", "reminder_hours",
                    "created_at"]
    list_filter = ["language", "timezone"]
    search_fields = ["display_name", "user__email", "user__username"]
    readonly_fields = ["canonical_name", "skeleton", "created_at"]
    raw_id_fields = ["user"]

    @admin.display(description=gettext_lazy("user"), ordering="user__username")
    def account(self, profile: Profile) -> str:
        return profile.user.get_username()

    @admin.display(description=gettext_lazy("canonical name (unique)"))
    def canonical_name(self, profile: Profile) -> str:
        return profile.display_key or "—"

    @admin.display(description=gettext_lazy("look-alike skeleton (unique)"))
    def skeleton(self, profile: Profile) -> str:
        return profile.name_skeleton or "—"

    @admin.display(description=gettext_lazy("created"), ordering="created")
    def created_at(self, profile: Profile):
        return profile.created or "—"

    # As the profile page does: the games and the forum are told of a new name (a profile
    # removed: the username shows instead) and of new reminder hours.
    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        _profile_saved(obj.user_id, renamed="display_name" in form.changed_data,
                       new_hours="reminder_hours" in form.changed_data)

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        _profile_saved(obj.user_id, renamed=True)

    def delete_queryset(self, request, queryset):
        users = list(queryset.values_list("user_id", flat=True))
        super().delete_queryset(request, queryset)
        for user_id in users:
            _profile_saved(user_id, renamed=True)


def _profile_saved(user_id: int, *, renamed: bool, new_hours: bool = False) -> None:
    if renamed or new_hours:
        profile_saved(user_id=user_id, renamed=renamed, new_hours=new_hours)


class PermissionChoiceField(forms.ModelMultipleChoiceField):
    """A permission by its app, its model and what it allows, in the reader's language
    (Django stores its name in English: "Can add game")."""

    def label_from_instance(self, permission) -> str:
        content_type = permission.content_type
        model = content_type.model_class()
        what = model._meta.verbose_name if model is not None else content_type.model
        try:
            section = apps.get_app_config(content_type.app_label).verbose_name
        except LookupError:
            section = content_type.app_label
        verb = {"add": _("may add"), "change": _("may change"), "delete": _("may delete"),
                "view": _("may view")}.get(permission.codename.split("_", 1)[0])
        return f"{section} | {what} | {verb or permission.name}"


class PermissionLabels:
    def formfield_for_manytomany(self, db_field, request, **kwargs):
        if db_field.name in ("user_permissions", "permissions"):
            kwargs["form_class"] = PermissionChoiceField
        return super().formfield_for_manytomany(db_field, request, **kwargs)


admin.site.unregister(Group)


@admin.register(Group)
class GroupAdmin(PermissionLabels, DjangoGroupAdmin):
    """Django's group admin, its permissions named in the reader's language."""


User = get_user_model()


def refusal(user) -> str:
    """The admin's message for a user who must be kept (`records_of`)."""
    return _("%(name)s cannot be deleted: they %(reasons)s, and those records would lose "
             "their person. Deactivate the account instead (untick “active”).") % {
        "name": display_name(user), "reasons": _("; ").join(records_of(user))}


@admin.action(permissions=["delete"], description=gettext_lazy("Delete selected users"))
def delete_users_without_records(modeladmin, request, queryset):
    """Django's "delete selected", for the selected users nobody's records need; the others
    are named in a message and kept."""
    kept = [user for user in queryset if records_of(user)]
    for user in kept:
        modeladmin.message_user(request, refusal(user), messages.ERROR)
    free = queryset.exclude(pk__in=[user.pk for user in kept])
    if not free.exists():
        return None  # back to the list, nothing deleted
    return delete_selected(modeladmin, request, free)


admin.site.unregister(User)


@admin.register(User)
class UserAdmin(PermissionLabels, DateRangeAdmin, DjangoUserAdmin):
    """Django's user admin, except that a user who played, hosted or wrote is never deleted:
    seats (SET_NULL), games' GMs, posts and messages would lose their person, and the
    conversations with 神的使者 (CASCADE) would go. Deactivating keeps every record."""

    actions = [delete_users_without_records]

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # replaced by delete_users_without_records
        return actions

    def has_delete_permission(self, request, obj=None):
        if obj is not None and records_of(obj):
            return False
        return super().has_delete_permission(request, obj)

    def delete_view(self, request, object_id, extra_context=None):
        user = self.get_object(request, unquote(object_id))
        if user is not None and records_of(user):
            self.message_user(request, refusal(user), messages.ERROR)
            return redirect(reverse("admin:auth_user_change", args=[user.pk]))
        return super().delete_view(request, object_id, extra_context)

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if change and "username" in form.changed_data:  # the name of an account with no profile
            _profile_saved(obj.pk, renamed=True)

    def delete_model(self, request, obj):
        if records_of(obj):  # never reached from the pages above; a last guard
            raise PermissionError(refusal(obj))
        super().delete_model(request, obj)

    def delete_queryset(self, request, queryset):
        kept = [user.pk for user in queryset if records_of(user)]
        super().delete_queryset(request, queryset.exclude(pk__in=kept))
