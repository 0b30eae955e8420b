from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MessagingConfig(AppConfig):
    name = "messaging"
    verbose_name = _("Forum and messages")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from config import feed

        from . import blocks

        # A kept anonymous page is forgotten when its thread, board or game changes; what a
        # board page keeps of a reader (messaging.board_rows.start_state), at their events.
        for kind in ("thread", "board", "game", "user"):
            feed.listen(kind, blocks.forget(kind))
