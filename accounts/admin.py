from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected
from django.contrib.admin.utils import unquote
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from config.inputs import DateRangeAdmin

from .models import Profile, display_name
from .records import records_of


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["display_name", "user", "timezone", "language", "reminder_hours", "created"]
    list_filter = ["language", "timezone"]
    search_fields = ["display_name", "user__email", "user__username"]
    readonly_fields = ["display_key", "name_skeleton", "created"]
    raw_id_fields = ["user"]


User = get_user_model()


def refusal(user) -> str:
    """The admin's message for a user who must be kept (see accounts.records)."""
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
class UserAdmin(DateRangeAdmin, DjangoUserAdmin):
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

    def delete_model(self, request, obj):
        if records_of(obj):  # never reached from the pages above; a last guard
            raise PermissionError(refusal(obj))
        super().delete_model(request, obj)

    def delete_queryset(self, request, queryset):
        kept = [user.pk for user in queryset if records_of(user)]
        super().delete_queryset(request, queryset.exclude(pk__in=kept))
