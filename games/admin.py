from django.contrib import admin

from .models import Game


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ["name", "ruleset", "status", "gm", "created"]
    list_filter = ["ruleset", "status"]
    search_fields = ["name"]
    raw_id_fields = ["board", "gm"]
