import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from config.live_view import asgi_application  # noqa: E402 - after the settings' name

# Django's ASGI handler, with /live/ served before the middleware (config/live_view.py).
application = asgi_application()
