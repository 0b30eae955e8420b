from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    # Not "账户": that is the section of allauth's e-mail addresses ("account").
    verbose_name = _("Profiles")
