"""Settings, all from the environment (see docs/operations.md for the full list).

One stack in every mode: PostgreSQL (psycopg 3) and Redis (the cache and Celery's broker).
DATABASE_URL and REDIS_URL name them; in development and tests, when they are unset, the
addresses are those of the project's own servers under var/ (config/devstack.py, started by
`make run` and `make test`). Production requires both. EMAIL_URL sets SMTP (console email by
default) and DJANGO_ENV=production the hardened production profile.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

import environ
from django.utils.translation import gettext_lazy
from kombu import Exchange, Queue

from . import devstack
from .env import SettingError, env_admins, env_bool, env_choice, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)
# Parallel tests (pytest-xdist, docs/operations.md "Tests"): each worker process (gw0, gw1 …)
# gets its own cache key prefix and Celery queue, derived here from
# the variable xdist sets before Django starts; pytest-django gives it its own test database.
# Subprocesses a test starts (a Celery worker) inherit the variable, so they match. Empty
# outside xdist: then nothing below changes.
TEST_WORKER = env_str("PYTEST_XDIST_WORKER")
_worker_suffix = f"-{TEST_WORKER}" if TEST_WORKER else ""

DJANGO_ENV = env_choice("DJANGO_ENV", "development", ("development", "production", "test"))
PRODUCTION = DJANGO_ENV == "production"

DEBUG = env_bool("DEBUG", not PRODUCTION)
if PRODUCTION and DEBUG:
    raise SettingError("DEBUG must be off when DJANGO_ENV=production")

SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if PRODUCTION:
        raise SettingError("SECRET_KEY is required when DJANGO_ENV=production")
    SECRET_KEY = "dev-only-insecure-key-" + "x" * 40
elif PRODUCTION and (len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5):
    raise SettingError("SECRET_KEY must be at least 50 characters with at least 5 distinct ones")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [] if PRODUCTION else ["127.0.0.1", "localhost", "[::1]"])
if PRODUCTION and not ALLOWED_HOSTS:
    raise SettingError("ALLOWED_HOSTS is required when DJANGO_ENV=production")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# The address links in emails use (config/site.py `site_url()`), from configuration only,
# never from a request: SITE_URL from the environment, required in production (behind a
# proxy the public address is known nowhere else, and a guess from ALLOWED_HOSTS could name
# the wrong one of several); elsewhere `make run` sets http://HOST:PORT, and without it the
# first ALLOWED_HOSTS name stands in (http://); nothing hard-coded.
SITE_URL_FROM_ENV = env_str("SITE_URL", "").rstrip("/")
if PRODUCTION and not SITE_URL_FROM_ENV:
    raise SettingError("SITE_URL is required when DJANGO_ENV=production: the public address "
                       "links in emails use, e.g. SITE_URL=https://games.example.org")
if SITE_URL_FROM_ENV and (not SITE_URL_FROM_ENV.startswith(("http://", "https://"))
                          or not SITE_URL_FROM_ENV.split("://", 1)[1].split("/", 1)[0]):
    raise SettingError(f"SITE_URL={SITE_URL_FROM_ENV!r} must be an address such as "
                       "https://games.example.org")
_site_host = next((h.lstrip(".") for h in ALLOWED_HOSTS if h not in ("*", "")), "localhost")
SITE_URL = SITE_URL_FROM_ENV or "http://" + _site_host
# The site's name as emails sign and title it (web/adapter.py: the account emails'
# greeting, signature and subject prefix): SITE_NAME from the environment, as written, in
# every language; without it the words of the page header, in each reader's language
# (杀人游戏 / Killing Games).
SITE_NAME = env_str("SITE_NAME", "").strip() or gettext_lazy("Killing Games")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "allauth",
    "allauth.account",
    "accounts",
    "messaging",
    "games",
    "web",  # the composition layer, above the apps
]

MIDDLEWARE = [
    "config.middleware.ReceivedAtMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "config.middleware.SecurityHeadersMiddleware",
    "config.middleware.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.health.ProbeMiddleware",  # /readyz and /healthz, before any session is read
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.UserPreferencesMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "config.middleware.DatabaseUnavailableMiddleware",
    "config.middleware.RefusalMiddleware",
]
CSRF_FAILURE_VIEW = "config.views.csrf_failure"

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "messaging.context_processors.unread",
            ],
        },
    },
]

# --- database: PostgreSQL in every mode ------------------------------------------------------
DATABASE_URL = env_str("DATABASE_URL")
if not DATABASE_URL:
    if PRODUCTION:
        raise SettingError("DATABASE_URL is required when DJANGO_ENV=production")
    DATABASE_URL = devstack.database_url()
try:
    _db = environ.Env.db_url_config(DATABASE_URL)
except Exception as exc:  # environ raises several kinds on nonsense
    raise SettingError(f"DATABASE_URL is not a database URL: {exc}") from None
if _db["ENGINE"] != "django.db.backends.postgresql":
    raise SettingError("DATABASE_URL must be postgres://...")
_db["HOST"] = unquote(_db["HOST"])  # a socket folder, percent-encoded in the URL's host
_db["CONN_HEALTH_CHECKS"] = True
# A database that drops packets fails a connection in seconds (a page answers 503, /readyz
# names the database) instead of hanging a request for the kernel's TCP timeout.
_db["OPTIONS"] = {"connect_timeout": 3}
# Every process borrows its connections from a pool of its own (Django's "pool" option,
# psycopg_pool), sized per process from the environment: at most DB_POOL_MAX connections
# whatever the number of threads or requests, so the sum over every process stays under
# PostgreSQL's max_connections (docs/operations.md "Database connections" has the
# arithmetic). A request that waits DB_POOL_TIMEOUT seconds for a connection gets
# psycopg_pool.PoolTimeout, an OperationalError: the 503 page with Retry-After
# (config/middleware.py), never a hang. Under pytest (PYTEST_VERSION, set by pytest before
# Django starts) the default is off: test transactions and the threads some tests start
# use plain connections as before; tests/proof/test_db_pool.py runs the pool in a process
# of its own. DB_POOL=false turns it off anywhere (then DB_CONN_MAX_AGE keeps one
# connection per thread, 60 s by default).
DB_POOL = env_bool("DB_POOL", not env_str("PYTEST_VERSION"))
DB_POOL_MIN = env_int("DB_POOL_MIN", 1, minimum=0)
DB_POOL_MAX = env_int("DB_POOL_MAX", 4, minimum=1)
DB_POOL_TIMEOUT = env_int("DB_POOL_TIMEOUT", 5, minimum=1)
if DB_POOL_MIN > DB_POOL_MAX:
    raise SettingError(f"DB_POOL_MIN={DB_POOL_MIN} is above DB_POOL_MAX={DB_POOL_MAX}")
if DB_POOL:
    # The pool keeps the connections; Django refuses persistent ones beside it.
    _db["CONN_MAX_AGE"] = env_int("DB_CONN_MAX_AGE", 0, minimum=0)
    if _db["CONN_MAX_AGE"]:
        raise SettingError(f"DB_CONN_MAX_AGE={_db['CONN_MAX_AGE']} must be 0 with the pool "
                           "(DB_POOL=true): the pool keeps the connections")
    _db["OPTIONS"]["pool"] = {"min_size": DB_POOL_MIN, "max_size": DB_POOL_MAX,
                              "timeout": DB_POOL_TIMEOUT, "name": "default"}
else:
    _db["CONN_MAX_AGE"] = env_int("DB_CONN_MAX_AGE", 60, minimum=0)
if env_str("TEST_DATABASE_NAME"):  # lets concurrent test runs use separate databases
    _db["TEST"] = {"NAME": env_str("TEST_DATABASE_NAME")}
DATABASES = {"default": _db}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- cache: Redis in every mode (allauth's and our rate limits rely on a shared one) ----------
REDIS_URL = env_str("REDIS_URL")
if not REDIS_URL:
    if PRODUCTION:
        raise SettingError("REDIS_URL is required when DJANGO_ENV=production")
    REDIS_URL = devstack.redis_url()
if not REDIS_URL.startswith(("redis://", "rediss://", "unix://")):
    raise SettingError("REDIS_URL must start with redis://, rediss:// or unix://")
# Each operation gives up after a second, and the backend (config/cache.py: Django's
# RedisCache) answers an operation Redis cannot as a miss or a no-op, logged once a minute:
# a stopped or hung Redis costs a page its cached parts, never the page.
_REDIS_OPTIONS = {"socket_connect_timeout": 1, "socket_timeout": 1}
_cache_prefix = env_str("CACHE_PREFIX", "kg") + _worker_suffix
# One cache: the rate limits' counters, the pages' cached parts (messaging.blocks, the game
# home's parts: keyed by the versions the services move) and the beat sweeper's heartbeat
# for /readyz (config/health.py).
CACHES = {"default": {"BACKEND": "config.cache.DegradingRedisCache",
                      "LOCATION": REDIS_URL, "KEY_PREFIX": _cache_prefix,
                      "OPTIONS": _REDIS_OPTIONS}}

# --- Celery --------------------------------------------------------------------------------
CELERY_BROKER_URL = devstack.broker_url(env_str("CELERY_BROKER_URL") or REDIS_URL)
# Three queues (docs/operations.md "Celery: the clock and the slow work"):
# - "clock": the beat's sweep, reminders, outbox and community rules, consumed by a worker
#   of its own (`celery -A config worker -Q clock --concurrency 2`), so that nothing slow
#   ever waits in front of a phase's end;
# - "slow": win-rate simulations and the email nudges (a phase's end mails every seat), on
#   another worker with its own concurrency (`-Q slow,celery`);
# - the default queue, for anything not routed (games.ping), with the slow worker.
# A worker started without -Q consumes all three (the tests' workers, the drills).
# One set per test worker (the suffix), so a test's real Celery worker never takes
# another's tasks.
CELERY_TASK_DEFAULT_QUEUE = "celery" + _worker_suffix
CLOCK_QUEUE = "clock" + _worker_suffix
SLOW_QUEUE = "slow" + _worker_suffix
CELERY_TASK_QUEUES = [Queue(name, Exchange(name), routing_key=name)
                      for name in (CELERY_TASK_DEFAULT_QUEUE, CLOCK_QUEUE, SLOW_QUEUE)]
CELERY_TASK_ROUTES = {
    **{task: {"queue": CLOCK_QUEUE, "routing_key": CLOCK_QUEUE} for task in (
        "games.sweep", "games.reminders", "games.outbox", "games.community")},
    **{task: {"queue": SLOW_QUEUE, "routing_key": SLOW_QUEUE} for task in (
        "games.winrates", "games.send_email")},
}
# Publishing must not hang a request when the broker is down or hung: a connection gives
# up after 1 s, a command after 2 s (kombu waits forever by default: a publish to a hung
# Redis never returned), one retry at once; the caller (config.broker.send) logs it and
# the work waits in the database for the beat (the email outbox). The worker's BRPOP
# answers within 1 s, well inside the socket timeout.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600, "socket_connect_timeout": 1,
                                   "socket_timeout": 2}
CELERY_BROKER_CONNECTION_TIMEOUT = 1
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.5,
                                    "interval_max": 0.5}
CELERY_RESULT_BACKEND = devstack.broker_url(env_str("CELERY_RESULT_BACKEND") or REDIS_URL)
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = 1
CELERY_REDIS_SOCKET_TIMEOUT = 5
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_ACKS_LATE = True              # a killed worker's task is redelivered
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A worker's lines in the project's format (LOGGING below: UTC, level, logger, `game=<id>` on
# a line about a game), not Celery's own, which dropped the game's id from every line the
# clock writes ("phase advanced", "not advanced by this sweep").
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_TIMEZONE = "UTC"
CELERY_RESULT_EXPIRES = 3600
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
SWEEP_INTERVAL_SECONDS = env_int("SWEEP_INTERVAL_SECONDS", 20, minimum=1)
SWEEP_GRACE_SECONDS = env_int("SWEEP_GRACE_SECONDS", 3, minimum=0)
# A game whose advance raises waits 1 min, 2, 4 … up to 1 h before the next try.
SWEEP_RETRY_BASE_SECONDS = env_int("SWEEP_RETRY_BASE_SECONDS", 60, minimum=1)
SWEEP_RETRY_MAX_SECONDS = env_int("SWEEP_RETRY_MAX_SECONDS", 3600, minimum=1)
REMINDER_INTERVAL_SECONDS = env_int("REMINDER_INTERVAL_SECONDS", 60, minimum=5)
COMMUNITY_INTERVAL_SECONDS = env_int("COMMUNITY_INTERVAL_SECONDS", 300, minimum=10)

# --- email ---------------------------------------------------------------------------------
EMAIL_URL = env_str("EMAIL_URL", "consolemail://")
try:
    vars().update(environ.Env.email_url_config(EMAIL_URL))
except Exception as exc:
    raise SettingError(f"EMAIL_URL is not an email URL: {exc}") from None
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 20, minimum=1)  # seconds; a hung server is a failure
# The From of every email, at a real domain (receivers junk mail from localhost): by default
# noreply@ the site's host (SITE_URL, else the first ALLOWED_HOSTS); production refuses to
# start without one; elsewhere example.com stands in.


def _real_domain(host: str) -> bool:
    return "." in host and not host.startswith(("localhost", "127.", ".")) and \
        not host.replace(".", "").isdigit()


_hosts = [SITE_URL.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0], *ALLOWED_HOSTS]
_domain = next((h for h in _hosts if _real_domain(h)), "" if PRODUCTION else "example.com")
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL",
                             f"神的使者 <noreply@{_domain}>" if _domain else "")
if not _real_domain(DEFAULT_FROM_EMAIL.rstrip(">").rpartition("@")[2]):
    raise SettingError(f"DEFAULT_FROM_EMAIL={DEFAULT_FROM_EMAIL!r} must be an address at a "
                       "real domain, e.g. '神的使者 <noreply@example.org>'")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# The outbox (games/mail.py): retry after 1 min, 2, 4 … up to 1 h, for 3 days.
OUTBOX_INTERVAL_SECONDS = env_int("OUTBOX_INTERVAL_SECONDS", 30, minimum=1)
OUTBOX_RETRY_BASE_SECONDS = env_int("OUTBOX_RETRY_BASE_SECONDS", 60, minimum=1)
OUTBOX_RETRY_MAX_SECONDS = env_int("OUTBOX_RETRY_MAX_SECONDS", 3600, minimum=1)
OUTBOX_GIVE_UP_HOURS = env_int("OUTBOX_GIVE_UP_HOURS", 72, minimum=1)
ACCOUNT_ADAPTER = "web.adapter.AccountAdapter"  # sign-in mail goes through the outbox

# --- auth and allauth ----------------------------------------------------------------------
# Django's and allauth's, reading the user with their profile in one query (sessions that
# named the originals were rewritten once: accounts migration 0006).
AUTHENTICATION_BACKENDS = [
    "accounts.backends.ModelBackend",
    "accounts.backends.AuthenticationBackend",
]
# Django's own database sessions, not cached_db: a sign-out must hold even when it happens
# while Redis is away (a cached copy it could not delete would sign the session in again
# once Redis is back); reading one is a primary-key query (docs/operations.md, "Sessions").
SESSION_ENGINE = "django.contrib.sessions.backends.db"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_REDIRECT_URL = "/"
LOGIN_URL = "account_login"
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = env_choice("ACCOUNT_EMAIL_VERIFICATION", "mandatory",
                                        ("mandatory", "optional", "none"))
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_SIGNUP_FORM_CLASS = "accounts.forms.SignupForm"
# How allauth names a user to people ("以 阿猫 成功登录。"): the forum name, never the account.
ACCOUNT_USER_DISPLAY = "accounts.models.display_name"
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https" if PRODUCTION else "http"
ACCOUNT_RATE_LIMITS_ENABLED = env_bool("RATE_LIMITS", True)
if not ACCOUNT_RATE_LIMITS_ENABLED:
    ACCOUNT_RATE_LIMITS = False
# The one limiter for writes (config/ratelimit.py: django-ratelimit on the shared cache).
RATELIMIT_ENABLE = ACCOUNT_RATE_LIMITS_ENABLED
RATELIMIT_USE_CACHE = "default"
RATELIMIT_CACHE_PREFIX = "rl:"
POSTS_PER_MINUTE = env_int("POSTS_PER_MINUTE", 10, minimum=1)
# A game's graveyard (the dead and the watchers) counts its posts apart, at this rate.
GRAVEYARD_POSTS_PER_MINUTE = env_int("GRAVEYARD_POSTS_PER_MINUTE", 5, minimum=1)
# Remote images in posts: off, they are shown as links; on, https images
# on other sites are embedded with referrerpolicy=no-referrer. Same-origin images never are.
POST_REMOTE_IMAGES = env_bool("POST_REMOTE_IMAGES", False)

# --- i18n and time -------------------------------------------------------------------------
LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", "简体中文"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# The compiled catalogue is built by `make install` (docs/operations.md "Deploy"), not kept in
# git: a production process without it would write every page and email in English.
if PRODUCTION and not (BASE_DIR / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.mo").exists():
    raise SettingError("locale/zh_Hans/LC_MESSAGES/django.mo is missing: run `make install` "
                       "(docs/operations.md \"Deploy\"); without it every page and email is "
                       "in English")
USE_I18N = True
USE_TZ = True
TIME_ZONE = "Asia/Shanghai"          # the default display zone; everything is stored in UTC
DEFAULT_USER_TIMEZONE = "Asia/Shanghai"

# --- static files --------------------------------------------------------------------------
STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)
WHITENOISE_USE_FINDERS = DEBUG or DJANGO_ENV == "test"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage" if PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# --- security ------------------------------------------------------------------------------
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
# Content security policy (config.middleware.ContentSecurityPolicyMiddleware): scripts only
# from our own origin, never inline, so injected markup cannot run; inline styles stay
# allowed (the admin and two rule-set panels use them; Markdown tables align with style=).
# Images come from our own origin only, unless POST_REMOTE_IMAGES lets posts show https
# images of other sites (see messaging/rendering.py).
CSP_DIRECTIVES = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "https:"] if POST_REMOTE_IMAGES else ["'self'"],
    "font-src": ["'self'"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
# Permissions-Policy (config.middleware.SecurityHeadersMiddleware): every powerful feature
# off for every origin, our own included (no page uses one).
PERMISSIONS_POLICY = {feature: [] for feature in (
    "accelerometer", "autoplay", "camera", "display-capture", "encrypted-media",
    "fullscreen", "geolocation", "gyroscope", "magnetometer", "microphone", "midi",
    "payment", "picture-in-picture", "publickey-credentials-get", "screen-wake-lock",
    "serial", "sync-xhr", "usb", "xr-spatial-tracking", "browsing-topics")}
LANGUAGE_COOKIE_SAMESITE = "Lax"
if PRODUCTION:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    if env_bool("BEHIND_TLS_PROXY", True):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    # Every cookie we set is Secure: the session (and the messages cookie, which follows
    # SESSION_COOKIE_SECURE), CSRF and the language cookie.
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True

# --- operations: logs, error mail, error reporting (docs/operations.md) ---------------------
# Every line: UTC time, level, logger, message, e.g.
# "2026-12-01T08:15:02Z WARNING games.services.lifecycle game=42 advance failed ..." (the
# game field only on lines about a game: config/logs.py).
LOG_LEVEL = env_str("LOG_LEVEL", "INFO").upper()
if LOG_LEVEL not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
    raise SettingError(f"LOG_LEVEL={LOG_LEVEL!r} must be DEBUG, INFO, WARNING, ERROR or CRITICAL")
# Who gets Django's error emails (unhandled exceptions when DEBUG is off), and at most how
# often each distinct error is mailed (the others are counted: config/logs.py).
ADMINS = env_admins("ADMINS")
MANAGERS = ADMINS
ADMINS_MAIL_MINUTES = env_int("ADMINS_MAIL_MINUTES", 15, minimum=1)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # config/logs.py: UTC with its Z, level, logger, game=<id> when there is one, message.
    "formatters": {"line": {"()": "config.logs.UTCFormatter"}},
    "filters": {"require_debug_false": {"()": "django.utils.log.RequireDebugFalse"},
                "skip_outage_answers": {"()": "config.logs.SkipOutageAnswers"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "line"},
                 # Django's error mail, from a thread of its own and rate-limited.
                 "mail_admins": {"class": "config.logs.AdminMailHandler", "level": "ERROR",
                                 "filters": ["require_debug_false"],
                                 "every_seconds": ADMINS_MAIL_MINUTES * 60}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        # Replaces Django's default handlers on "django" (its DEBUG-only console, which
        # doubled the root's lines, and its mail_admins, which mailed from the request).
        "django": {"handlers": ["mail_admins"]},
        # Django's line for each 503 (the answer to a known outage) is dropped: the outage
        # is logged once when it begins and once when it ends (config/middleware.py).
        "django.request": {"filters": ["skip_outage_answers"]},
        "django.db.backends": {"level": "INFO"},
        # uvicorn's own lines (`make run`'s web server, the live pages' workers) in the
        # same format once the application is loaded; gunicorn's: gunicorn.conf.py.
        "uvicorn": {"handlers": ["console"], "propagate": False},
        "uvicorn.access": {"handlers": ["console"], "propagate": False},
    },
}

# Optional error reporting: Sentry (Django and Celery integrations) when SENTRY_DSN is set.
SENTRY_DSN = env_str("SENTRY_DSN")
if SENTRY_DSN:
    if not SENTRY_DSN.startswith(("https://", "http://")) or "@" not in SENTRY_DSN:
        raise SettingError("SENTRY_DSN must look like https://<key>@<host>/<project>")
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    # sentry-sdk 3 (pyproject's range): what a report may carry is `data_collection`. Sentry
    # is a third party, so a report names no account (user_info) and carries no cookie,
    # request body (a private action, a post) or local variable (a hand, a game's state);
    # a user set by any integration is dropped before sending.
    sentry_sdk.init(
        dsn=SENTRY_DSN, environment=env_str("SENTRY_ENVIRONMENT", DJANGO_ENV),
        integrations=[DjangoIntegration(), CeleryIntegration()],
        traces_sample_rate=env_int("SENTRY_TRACES_PERCENT", 0, minimum=0) / 100,
        data_collection={"user_info": False, "cookies": {"mode": "off"}, "http_bodies": [],
                         "url_query_params": {"mode": "off"},
                         "stack_frame_variables": False},
        before_send=lambda event, hint: {k: v for k, v in event.items() if k != "user"})

# --- the service ---------------------------------------------------------------------------
MESSENGER_NAME = "神的使者"
MESSENGER_USERNAME = "messenger"
