from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MessagingConfig(AppConfig):
    name = "messaging"
    verbose_name = _("Forum and messages")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from accounts.profile_sections import register_profile_section
        from accounts.records import register_record_keeper
        from config import feed

        from . import blocks
        from .profile import forum_records_of, forum_section

        register_profile_section(forum_section)
        register_record_keeper(forum_records_of)
        # A kept anonymous thread page is forgotten when its thread, board or game changes.
        for kind in ("thread", "board", "game"):
            feed.listen(kind, blocks.forget(kind))
