"""Shared fixtures: named players, real-service markers, the browser."""

from __future__ import annotations

import os
import shutil

import pytest
from django.conf import settings

REQUIRE_REAL = os.environ.get("REQUIRE_REAL_SERVICES") == "1"
PASSWORD = "correct-horse-battery-9"


def _need(condition: bool, why: str):
    """Skip (or, in CI where the real services must be there, fail) when `condition` is false."""
    if condition:
        return
    if REQUIRE_REAL:
        pytest.fail(f"CI must run this test, but: {why}")
    pytest.skip(why)


@pytest.fixture(autouse=True)
def _fast_and_isolated(request, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    if settings.REDIS_URL or "django_db" in request.keywords or any(
            f in request.fixturenames for f in ("db", "transactional_db", "make_user")):
        from django.core.cache import cache

        cache.clear()  # rate-limit counters must not leak from one test into the next
    yield


@pytest.fixture
def need_postgres():
    _need(settings.USING_POSTGRES,
          "needs PostgreSQL (row locks and real concurrency); set DATABASE_URL=postgres://...")


@pytest.fixture
def need_redis():
    _need(bool(settings.REDIS_URL), "needs Redis; set REDIS_URL=redis://...")


def chromium_path() -> str | None:
    path = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which(
        "chromium-browser")
    return path if path and os.path.exists(path) else None


@pytest.fixture
def make_user(db):
    """make_user("阿猫") -> a verified user with that display name (email <name>@example.com)."""
    from allauth.account.models import EmailAddress
    from django.contrib.auth import get_user_model

    from accounts.models import Profile

    def make(display_name: str, *, staff: bool = False, email: str | None = None,
             timezone: str = "Asia/Shanghai"):
        User = get_user_model()
        n = User.objects.count() + 1
        email = email or f"user{n}@example.com"
        user = User.objects.create_user(username=f"u{n}", email=email, password=PASSWORD,
                                        is_staff=staff, is_superuser=staff)
        EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
        Profile.objects.create(user=user, display_name=display_name, timezone=timezone)
        return user

    return make


@pytest.fixture
def browser():
    """A headless Debian Chromium driven by Playwright (no downloaded browsers here)."""
    path = chromium_path()
    _need(path is not None, "needs Chromium (apt-get install chromium); .ci/run installs it")
    from playwright.sync_api import sync_playwright

    # Playwright's event loop runs in this thread, so Django would see the test's own ORM calls
    # as "async"; allowed for the test process only, and removed afterwards.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        try:
            yield b
        finally:
            b.close()
            if previous is None:
                os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


@pytest.fixture
def artifacts_dir():
    path = settings.VAR_DIR / "artifacts"
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def celery_worker_and_beat(transactional_db, tmp_path):
    """A real Celery worker with an embedded beat, on the configured broker, using the test
    database (so it sees what the live server commits). Beat sweeps every second."""
    import subprocess
    import sys

    from django.db import connection

    db = connection.settings_dict
    if connection.vendor == "sqlite":
        url = f"sqlite:///{db['NAME']}"
    else:
        url = (f"postgres://{db['USER'] or 'postgres'}@{db['HOST'] or '127.0.0.1'}:"
               f"{db['PORT'] or 5432}/{db['NAME']}")
    env = dict(os.environ, DATABASE_URL=url, SWEEP_INTERVAL_SECONDS="1",
               EXTRA_RULESETS="tests.service.toy:register",
               SWEEP_GRACE_SECONDS="1", EMAIL_URL="consolemail://")
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    log = open(tmp_path / "celery.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--beat", "--pool=solo",
         "--without-gossip", "--without-mingle", "--loglevel=INFO",
         f"--schedule={tmp_path / 'beat-schedule'}"],
        cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
