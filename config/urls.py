from allauth.account.decorators import secure_admin_login
from django.conf import settings
from django.conf.urls.static import static
from django.contrib import admin
from django.urls import include, path

from . import converters  # noqa: F401  registers <id:...> before any pattern uses it
from .health import healthz, readyz
from .live_view import live_stream
from .views import favicon

# The admin's own login form goes through allauth's login, and so through its rate limits.
admin.site.login = secure_admin_login(admin.site.login)
admin.site.site_header = "天神控制台"
admin.site.site_title = "天神控制台"

handler500 = "config.views.server_error"
# allauth's rate-limit refusals (sign-in, sign-up, password reset): 429, or 503 saying the
# cache does not answer (config/ratelimit.py).
handler429 = "config.ratelimit.allauth_refused"

urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("live/", live_stream, name="live"),
    path("admin/", admin.site.urls),
    path("accounts/", include("allauth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("web.urls")),
    path("", include("accounts.urls")),
    path("", include("games.urls")),
    path("", include("messaging.urls")),
]
if settings.DEBUG:
    urlpatterns += static(settings.STATIC_URL, document_root=settings.STATIC_ROOT)
