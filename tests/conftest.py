"""Shared fixtures: the test databases (cloned from one migrated template), named players,
the games of each rule set, the browser. The plain helpers these build on are in tests/factories/ (one module per rule set);
a folder's own conftest.py holds only what is truly local to it (Classic's eleven players,
the forum's English-speaking users, the browser's signed-in page).

Named players:  toy `players` 阿猫 阿狗 小白 老黑 花花, `gm` 天神甲 (staff), `crowd` 玩家0..7;
                猫有n条命 `nl_players` 阿猫 … 大黄, `nl_gm` 天神丙; gold `gold_players`
                金子 银子 铜子, `gold_gm` 金主.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time

import pytest
from django.conf import settings
from hypothesis import settings as hypothesis_settings

from tests.factories import build_chinese_catalog
from tests.factories import gold as gold_factory
from tests.factories import ninelives as nl_factory
from tests.factories.toy import TOY_REGISTRATION

# The suite's budget: worker-seconds per directory, printed at the end (tests/budget.py).
pytest_plugins = ("tests.budget",)

# CI (.ci/run sets CI=true): hypothesis draws the same examples on every run, so a red run
# is reproducible and a green one is not luck; budgets are each test's own. Elsewhere it
# keeps exploring new examples.
hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI") == "true":
    hypothesis_settings.load_profile("ci")
PASSWORD = "correct-horse-battery-9"


def _need(condition: bool, why: str):
    """Skip (or, in CI, which installs what the test needs, fail) when `condition` is false."""
    if condition:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run this test, but: {why}")
    pytest.skip(why)


# --- a test run never touches `make run`'s data ----------------------------------------------

def redis_db(url: str) -> int:
    """The Redis db a Redis address names: `?db=N` (a Unix socket; kombu's `virtual_host=N`)
    or the path of redis://host:port/N; db 0 when it names none."""
    from urllib.parse import parse_qs, urlsplit

    parts = urlsplit(url)
    query = parse_qs(parts.query)
    for name in ("db", "virtual_host"):
        if query.get(name, [""])[0].isdigit():
            return int(query[name][0])
    path = parts.path.strip("/")
    if parts.scheme in ("redis", "rediss") and path.isdigit():
        return int(path)
    return 0


def development_data_in_reach(redis_urls, test_database: str, database: str) -> list[str]:
    """Why a run with these settings would touch `make run`'s data, if it would: a Redis
    address on db 0 (`make run`'s cache and queue, config/devstack.py; the tests flush
    their db and delete its queues), or a test database named as the development one
    (pytest-django drops and creates the test database)."""
    from config import devstack

    found = [f"Redis {url} is db 0, which `make run` uses for its cache and queue"
             for url in dict.fromkeys(redis_urls) if redis_db(url) == 0]
    for name in dict.fromkeys((database, devstack.DATABASE_NAME)):
        if test_database == name:
            found.append(f"the test database {test_database!r} is the development database")
    return found


CHECKED: dict = {}  # what pytest_configure found this run's settings to reach


def pytest_configure(config):
    """Refuse to start, whatever the environment, when the run would touch `make run`'s
    data; before anything connects (the test databases, the first cache clear)."""
    from config import devstack

    db = settings.DATABASES["default"]
    test_name = (db.get("TEST") or {}).get("NAME") or "test_" + db["NAME"]
    redis_urls = [settings.REDIS_URL] + [  # Celery's own addresses, when set apart
        url for url in (settings.CELERY_BROKER_URL, settings.CELERY_RESULT_BACKEND)
        if url != devstack.broker_url(settings.REDIS_URL)]
    CHECKED.update(redis_urls=redis_urls, test_database=test_name, database=db["NAME"])
    found = development_data_in_reach(**CHECKED)
    if found:
        raise pytest.UsageError(
            "The tests would touch the development site's data: " + "; ".join(found) + ".\n"
            "Run them as `make test` does, which gives them Redis db "
            f"{devstack.TEST_REDIS_DB} and the database test_<name> (one file: "
            "`make test PYTEST_ARGS=tests/… PYTEST_WORKERS=0`), or set REDIS_URL to a db "
            f"other than 0 (e.g. {devstack.redis_url(devstack.TEST_REDIS_DB)}) and "
            "TEST_DATABASE_NAME, if set, to a name of its own.")


# --- the test databases: one migrated template, cloned for each xdist worker ----------------

MIGRATION_SOURCES = ("accounts/migrations", "games/migrations", "messaging/migrations")


def _template_name(test_name: str) -> str:
    """The template's name: the test database's, and a digest of everything that shapes the
    schema (the project's migrations, Django's and allauth's versions), so a changed
    migration makes a new template and an unchanged one is reused across runs."""
    from importlib.metadata import version

    digest = hashlib.sha1()
    for folder in MIGRATION_SOURCES:
        for path in sorted((settings.BASE_DIR / folder).glob("*.py")):
            digest.update(path.name.encode() + path.read_bytes())
    digest.update(f"{version('django')} {version('django-allauth')}".encode())
    base = test_name.split("_gw")[0][:40]
    return f"{base}_tpl_{digest.hexdigest()[:12]}"


def _ensure_template(db: dict, name: str) -> None:
    """Make database `name` by migrating an empty one, unless it exists. Under an advisory
    lock, so the first xdist worker builds it and the others wait for it; built under a
    temporary name and renamed, so an interrupted build leaves no half-migrated template.
    Older templates of the same test database are dropped."""
    import subprocess
    import sys
    from urllib.parse import quote

    import psycopg

    params = {"host": db["HOST"] or None, "port": db["PORT"] or None, "user": db["USER"],
              "password": db["PASSWORD"] or None, "dbname": "postgres", "autocommit": True}
    prefix = name.rsplit("_tpl_", 1)[0] + "_tpl_"
    with psycopg.connect(**params) as conn:
        conn.execute("SELECT pg_advisory_lock(hashtext(%s))", [prefix])
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            building = f"{name}_building"
            conn.execute(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{building}"')
            url = (f"postgres://{quote(db['USER'] or '', safe='')}"
                   f"{':' + quote(db['PASSWORD'], safe='') if db['PASSWORD'] else ''}"
                   f"@{quote(db['HOST'] or '', safe='')}"
                   f"{':' + str(db['PORT']) if db['PORT'] else ''}/{building}")
            env = dict(os.environ, DATABASE_URL=url)
            env.pop("TEST_DATABASE_NAME", None)
            subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
                           cwd=settings.BASE_DIR, env=env, check=True)
            conn.execute(f'ALTER DATABASE "{building}" RENAME TO "{name}"')
        for (old,) in conn.execute(
                "SELECT datname FROM pg_database WHERE starts_with(datname, %s) "
                "AND datname <> %s AND NOT datname LIKE '%%_building'", [prefix, name]):
            conn.execute(f'DROP DATABASE IF EXISTS "{old}" WITH (FORCE)')
        conn.execute("SELECT pg_advisory_unlock(hashtext(%s))", [prefix])


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """Each test database (test_…_gw0, test_…_gw1 …) is a copy of one migrated template:
    the migrations run once per change of schema, not once per xdist worker and run.
    Django then finds every migration applied and only checks the content types."""
    from django.db import connections

    db = connections["default"].settings_dict
    test = db.setdefault("TEST", {})
    name = _template_name(test.get("NAME") or "test_" + db["NAME"])
    _ensure_template(db, name)
    test["TEMPLATE"] = name


def _redis_keys_of_this_worker() -> list[str]:
    """The Redis keys this test process owns under pytest-xdist (config/settings.py gives
    each worker its own cache prefix and Celery queues): its cache entries and its Celery
    queues, the default, the clock's and the slow one (kombu keeps priorities 3, 6, 9 under
    suffixed names)."""
    global _redis
    if _redis is None:
        import redis

        _redis = redis.Redis.from_url(settings.REDIS_URL)
    prefix = settings.CACHES["default"]["KEY_PREFIX"]
    keys = []
    for queue in (settings.CELERY_TASK_DEFAULT_QUEUE, settings.CLOCK_QUEUE, settings.SLOW_QUEUE):
        keys += [queue, *(f"{queue}\x06\x16{p}" for p in (3, 6, 9))]
    keys.extend(k.decode() for k in _redis.scan_iter(match=f"{prefix}:*", count=1000))
    return keys


_redis = None


def clear_cache() -> None:
    """What one test leaves in the cache (rate-limit counters above all) must not reach the
    next. Alone on its Redis db (no xdist), a test process flushes it; an xdist worker shares
    the db with the others, so it deletes only its own keys (a flush would wipe another
    worker's counters and Celery queue mid-test)."""
    from django.core.cache import cache

    if settings.TEST_WORKER:
        keys = _redis_keys_of_this_worker()
        if keys:
            _redis.delete(*keys)
    else:
        cache.clear()  # the whole Redis db: every cache alias of this process


@pytest.fixture(autouse=True)
def _fast_and_isolated(settings):
    from django.utils import translation

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    clear_cache()
    # A request activates its reader's language in the thread and leaves it active: each
    # test starts in the site's default, whatever the test before it read.
    translation.deactivate()
    yield


# --- parallel runs (pytest-xdist; docs/operations.md "Tests") ---------------------------------

def _transactional(item) -> bool:
    marker = item.get_closest_marker("django_db")
    return bool(marker and (marker.kwargs.get("transaction") or (marker.args and marker.args[0]))) \
        or any(f in item.fixturenames for f in ("transactional_db", "live_server"))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """The tests marked slow (minutes of crawling, random play or a browser's walk) start
    first, the longest first (`@pytest.mark.slow(seconds=...)`, as measured), so under xdist
    they run beside the many short ones instead of alone at the end. pytest-django's order
    of kinds stays (tests in a transaction, then transactional ones, then those without a
    database), but for the slow tests in a transaction, which all go first: the slow
    transactional ones lead their own kind."""
    def order(item):
        slow = item.get_closest_marker("slow")
        seconds = -slow.kwargs.get("seconds", 0) if slow else 0
        if _transactional(item):
            return (2 if slow else 3, seconds)
        if slow:
            return (0, seconds)
        uses_db = item.get_closest_marker("django_db") or "db" in item.fixturenames
        return (1 if uses_db else 4, 0)

    items.sort(key=order)


@pytest.fixture(autouse=True)
def _feed_listeners_hear_at_once(request, monkeypatch):
    """A test inside one transaction never commits, so the change feed's in-process
    listeners (config.feed.listen: a kept anonymous thread page is forgotten) would never
    hear its writes. There they hear each change at once, as if it had committed; a test
    that asks for django_capture_on_commit_callbacks checks when they hear it, and
    transactional tests commit for real."""
    if request.node.get_closest_marker("django_db") is None or _transactional(request.node) \
            or "django_capture_on_commit_callbacks" in request.fixturenames:
        return
    from config import feed

    real = feed.changed

    def changed(kind, pk, version, what=""):
        real(kind, pk, version, what)
        for listener in feed._listeners.get(kind, ()):
            listener(pk, version)

    monkeypatch.setattr(feed, "changed", changed)


@pytest.fixture(autouse=True)
def _rate_limit_minute_stands_still(monkeypatch):
    """django-ratelimit counts in windows that end at a whole second (one per key per minute);
    a test's two requests straddling that second would both be "first". Within one test the
    limiter's clock stays at the second the test began, so a limit test cannot flake."""
    import types

    import django_ratelimit.core

    began = time.time()
    monkeypatch.setattr(django_ratelimit.core, "time", types.SimpleNamespace(time=lambda: began))


def chromium_path() -> str | None:
    path = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which(
        "chromium-browser")
    return path if path and os.path.exists(path) else None


@pytest.fixture
def make_user(db):
    """make_user("阿猫") -> a verified user with that display name (email <name>@example.com);
    staff=True makes a superuser unless superuser=False (a plain host)."""
    from allauth.account.models import EmailAddress
    from django.contrib.auth import get_user_model

    from accounts.models import Profile

    def make(display_name: str, *, staff: bool = False, email: str | None = None,
             timezone: str = "Asia/Shanghai", superuser: bool | None = None):
        User = get_user_model()
        n = User.objects.count() + 1
        email = email or f"user{n}@example.com"
        user = User.objects.create_user(username=f"u{n}", email=email, password=PASSWORD,
                                        is_staff=staff,
                                        is_superuser=staff if superuser is None else superuser)
        EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
        Profile.objects.create(user=user, display_name=display_name, timezone=timezone)
        return user

    return make


def new_user(display_name: str, *, staff: bool = False):
    """A verified user with that display name, as `make_user` makes one, but with no password
    (so it may be made before a test's fixtures switch to the fast hasher): for `module_db`."""
    from allauth.account.models import EmailAddress
    from django.contrib.auth import get_user_model

    from accounts.models import Profile

    User = get_user_model()
    n = User.objects.count() + 1
    email = f"user{n}@example.com"
    user = User.objects.create_user(username=f"u{n}", email=email, password=None,
                                    is_staff=staff, is_superuser=staff)
    EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
    Profile.objects.create(user=user, display_name=display_name, timezone="Asia/Shanghai")
    return user


@pytest.fixture(scope="module")
def module_db(django_db_setup, django_db_blocker):
    """Rows a module's tests share, built once: everything written while this fixture is set
    up stays for each test of the module (each test's own transaction is a savepoint inside
    this one, rolled back after it, as in Django's TestCase.setUpTestData) and is rolled back
    after the module's last test. Only for tests that do not commit (no transactional_db,
    no live server)."""
    from django.db import transaction

    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            yield
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


@pytest.fixture
def one_rate_window():
    """The clock held still for the test: django-ratelimit counts in fixed windows (each
    key's ending at its own second), and a test that counts requests against a budget
    must not see a window end between two of them (the count would start again)."""
    import time_machine

    with time_machine.travel(time.time(), tick=False):
        yield


@pytest.fixture(scope="session")
def chromium():
    """One headless Debian Chromium per test process (per xdist worker), driven by Playwright
    (no downloaded browsers here): launching one costs seconds, a context a few hundredths.
    Tests get it through `browser`, which gives each test contexts of its own."""
    import asyncio

    path = chromium_path()
    _need(path is not None, "needs Chromium (apt-get install chromium); .ci/run installs it")
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        b = playwright.chromium.launch(executable_path=path, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"])
    except BaseException:
        playwright.stop()
        raise
    # Playwright's sync API marks its event loop as running in this thread after each call.
    # Between browser tests it is unmarked (`browser` marks it again), or the other tests of
    # this worker would run "inside an event loop": Django would refuse their ORM calls and
    # asgiref its async_to_sync.
    loop = asyncio._get_running_loop()
    asyncio._set_running_loop(None)
    b.loop = loop
    try:
        yield b
    finally:
        asyncio._set_running_loop(loop)
        try:
            b.close()
        finally:
            playwright.stop()
            asyncio._set_running_loop(None)


@pytest.fixture
def browser(chromium):
    """The worker's Chromium (`chromium`) for one test. Whatever contexts the test opens
    (`browser.new_context()`, `browser.new_page()`, `page_for`) are its own: fresh cookies,
    storage and cache, all closed when it ends, so no test sees another's."""
    import asyncio

    from django.db import connections

    assert not chromium.contexts, "a context of an earlier test is still open"
    # Playwright's event loop runs in this thread, so Django would see the test's own ORM calls
    # as "async"; allowed for the test only, and removed afterwards.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    asyncio._set_running_loop(chromium.loop)
    try:
        yield chromium
    finally:
        try:
            for context in list(chromium.contexts):
                context.close()
        finally:
            # The test's own ORM calls ran while Playwright's loop was marked running, so
            # their connection lives in that context: closed here, or it would hold the
            # test database open at the end of the run (PostgreSQL then cannot drop it).
            connections.close_all()
            asyncio._set_running_loop(None)
            if previous is None:
                os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


@pytest.fixture
def artifacts_dir():
    path = settings.VAR_DIR / "artifacts"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _celery_worker(tmp_path, *, beat: bool):
    """A real Celery worker process on the configured broker, using the test database (so
    it sees what the test commits); with `beat`, an embedded beat that sweeps every second."""
    import subprocess
    import sys
    from urllib.parse import quote

    from django.db import connection

    db = connection.settings_dict
    url = (f"postgres://{db['USER'] or 'postgres'}@{quote(db['HOST'] or '127.0.0.1', safe='')}"
           f"{':' + str(db['PORT']) if db['PORT'] else ''}/{db['NAME']}")
    env = dict(os.environ, DATABASE_URL=url, SWEEP_INTERVAL_SECONDS="1",
               EXTRA_RULESETS=TOY_REGISTRATION,
               SWEEP_GRACE_SECONDS="1", EMAIL_URL="consolemail://")
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    log = open(tmp_path / "celery.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo",
         "--without-gossip", "--without-mingle", "--loglevel=INFO"]
        + (["--beat", f"--schedule={tmp_path / 'beat-schedule'}"] if beat else []),
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


@pytest.fixture
def celery_worker_and_beat(transactional_db, tmp_path):
    """A real Celery worker with an embedded beat (sweeping every second): for the one test
    of the clock itself (tests/services/test_beat.py)."""
    yield from _celery_worker(tmp_path, beat=True)


@pytest.fixture
def celery_worker(transactional_db, tmp_path):
    """A real Celery worker without a beat: for tests of what the worker does with what it
    is sent."""
    yield from _celery_worker(tmp_path, beat=False)


# --- languages ------------------------------------------------------------------------------

@pytest.fixture
def english():
    """The services' and pages' English sentences (the Chinese is tested elsewhere)."""
    from django.utils import translation

    with translation.override("en"):
        yield


@pytest.fixture(scope="session", autouse=True)
def _catalogue_compiled_afresh(tmp_path_factory):
    """Every test reads django.po as it is now, compiled once for the run (a stale django.mo
    cannot change what a test reads). Once for the session: a change of LOCALE_PATHS makes
    Django load every catalogue again, which cost a test that asked for it a quarter of a
    second, twice."""
    from django.test import override_settings

    with override_settings(LOCALE_PATHS=[build_chinese_catalog(tmp_path_factory.mktemp("po"))]):
        yield


@pytest.fixture
def chinese(settings):
    """Pages and sentences in Chinese: the site's default language (settings.LANGUAGE_CODE),
    said again for the test, from the catalogue compiled for the run."""
    settings.LANGUAGE_CODE = "zh-hans"
    yield


# --- the toy rule set (tests/toy.py; helpers in tests/factories/toy.py) -------------------------

@pytest.fixture
def toy_ruleset():
    """The toy rule set registered as "toy" for the test (games.rulesets.register)."""
    from tests import toy

    toy.register()
    yield
    toy.unregister()


@pytest.fixture
def players(make_user):
    return [make_user(name) for name in ["阿猫", "阿狗", "小白", "老黑", "花花"]]


@pytest.fixture
def gm(make_user):
    return make_user("天神甲", staff=True)


@pytest.fixture
def crowd(make_user):
    return [make_user(f"玩家{i}") for i in range(8)]


@pytest.fixture
def game(toy_ruleset, players, gm):
    """A running toy game of the five `players`, dealt by a fixed seed."""
    from games import services

    g = services.create_game(name="测试局", ruleset="toy", gm=gm, seat_count=5,
                             durations={"night": 60, "day": 60})
    return services.start_game(game_id=g.pk, users=players, seed="fixed-seed")


# --- 猫有n条命 (tests/factories/ninelives.py) ------------------------------------------------

@pytest.fixture
def nl_players(make_user):
    return [make_user(name) for name in nl_factory.NAMES]


@pytest.fixture
def nl_gm(make_user):
    return make_user("天神丙", staff=True)


@pytest.fixture
def start_ninelives(nl_players, nl_gm):
    """start_ninelives(deal=FIVE, now=None) -> a running game dealt `deal` (seat i = NAMES[i]),
    started `now` (default: the real clock, since pages post through it)."""

    def start(**kwargs):
        return nl_factory.start(nl_players, nl_gm, **kwargs)

    return start


# --- 谁偷了我的金币 (tests/factories/gold.py) -------------------------------------------------

@pytest.fixture
def gold_players(make_user):
    return [make_user(name) for name in gold_factory.NAMES]


@pytest.fixture
def gold_gm(make_user):
    return make_user("金主", staff=True)


@pytest.fixture
def start_gold(gold_players, gold_gm):
    """start_gold(seed=..., lead=0, players=3) -> a running gold game (started at T0)."""
    from games import services

    def start(*, seed: str = "gold-web-1", lead: int | None = 0, players: int = 3,
              users=None):
        users = users or gold_players[:players]
        g = services.create_game(name="金币局", ruleset="gold", gm=gold_gm, seat_count=players,
                                 config={"lead": lead}, durations=dict(gold_factory.DURATIONS))
        return services.start_game(game_id=g.pk, users=users, seed=seed, now=gold_factory.T0)

    return start


# --- mail and signals -----------------------------------------------------------------------

@pytest.fixture
def eager_email(settings):
    """Celery runs the email task at once, so queued emails land in mail.outbox."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    from config.celery import app

    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


@pytest.fixture
def reply_signals():
    """The reply notifications registered, as GamesConfig.ready() does: the forum's writer
    calls them with each new post (messaging.hooks.post_added)."""
    from games.notifications import notify_reply
    from messaging.hooks import register_post_hook

    register_post_hook(notify_reply)


@pytest.fixture(autouse=True)
def _forget_outages():
    """config/cache.py and config/broker.py remember a Redis failure for a few seconds (the
    process leaves Redis alone meanwhile): each test starts, and ends, with none remembered,
    so a test that fakes an outage does not turn the next one's cache or nudges off."""
    from config import broker, cache

    cache.reset()
    broker.reset()
    yield
    cache.reset()
    broker.reset()



@pytest.fixture(scope="session", autouse=True)
def _templates_render_plainly():
    """Django's test environment wraps every template's render to send a signal that the
    test client answers by copying the context (every included template too), for
    `response.context`: a tenth of a page's time in the crawls. Off for the run; a test that
    reads `response.context` asks for `response_context`."""
    from django.template import Template
    from django.test.utils import _TestState

    instrumented = Template._render
    Template._render = _TestState.saved_data.template_render
    yield instrumented
    Template._render = instrumented


@pytest.fixture
def response_context(_templates_render_plainly):
    """The test client's `response.context` (and `.templates`) for this test."""
    from django.template import Template

    plain, Template._render = Template._render, _templates_render_plainly
    yield
    Template._render = plain


@pytest.fixture(scope="session", autouse=True)
def _flush_by_delete():
    """A transactional test (a browser's, a drill's) ends with Django's flush, which on
    PostgreSQL truncates every table: about half a second for a test database of a few
    hundred rows. Deleting the rows instead, with the foreign keys checked at the commit
    (Django makes them deferrable), leaves the same empty tables in a fifth of the time.
    A test that asks for its sequences reset gets Django's own flush."""
    from django.db import connection

    ops = type(connection.ops)
    truncate = ops.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences:
            return truncate(self, style, tables, reset_sequences=True,
                            allow_cascade=allow_cascade)
        return ["SET CONSTRAINTS ALL DEFERRED",
                *(f"DELETE FROM {self.quote_name(table)}" for table in tables)]

    ops.sql_flush = sql_flush
    yield
    ops.sql_flush = truncate
