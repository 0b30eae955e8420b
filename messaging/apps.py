from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MessagingConfig(AppConfig):
    name = "messaging"
    verbose_name = _("Forum and messages")
    default_auto_field = "django.db.models.BigAutoField"
