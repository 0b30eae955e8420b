"""The Celery app and the beat schedule. Tasks stay thin: they call services."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("killing_games")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
