from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MessagingConfig(AppConfig):
    name = "messaging"
    verbose_name = _("Forum and messages")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from config import feed

        from . import blocks

        # A kept anonymous thread page is forgotten when its thread, board or game changes.
        for kind in ("thread", "board", "game"):
            feed.listen(kind, blocks.forget(kind))
