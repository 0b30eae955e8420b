from django.contrib import admin

from .models import Profile


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["display_name", "user", "timezone", "language", "reminder_hours", "created"]
    list_filter = ["language", "timezone"]
    search_fields = ["display_name", "user__email", "user__username"]
    readonly_fields = ["display_key", "name_skeleton", "created"]
    raw_id_fields = ["user"]
