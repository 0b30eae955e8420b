"""A stopped game clock is shown to people (games/web/clock.py).

The clock has stopped when the beat sweeper has not completed a sweep for three intervals, or
never did (config/health.py reads its heartbeat, as /readyz does). Then:
- the game's GM and co-GMs read, on the game's page and in the 天神 console, how long ago the
  clock last checked the deadlines, that deadlines will not end their phases, and what to do;
- players and other visitors of a running game read only that the deadline has passed and is
  being processed, once it has passed;
- nobody reads anything while the clock runs.
Chinese by default, English for a reader who chose it.
"""

from __future__ import annotations

import datetime as dt
import time

import pytest
from django.core.cache import caches
from django.db import connection
from django.db.models import F
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import Profile
from config import health
from games import selectors
from games.models import Game, Substitution

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "chinese")]

GM_ZH = "时钟停了：它最后一次检查截止时间是 12 分钟前，截止时间到了也不会结束阶段。"
GM_NO_RECORD_ZH = "时钟停了：没有它检查过截止时间的记录（它还没运行过，或者连不上保存记录的 Redis）"
WHAT_TO_DO_ZH = "请检查 Celery worker 和 beat 是否在运行"
GM_EN = ("The game clock has stopped: it last checked the deadlines 12 min ago, so a deadline "
         "that passes will not end its phase.")
WHAT_TO_DO_EN = "Check that the Celery worker and beat are running"
DUE_ZH = "截止时间已到，正在结算…"
DUE_EN = "The deadline has passed; the phase is being processed…"
ANY_NOTICE = 'id="clock-notice"'


def stopped(minutes: float = 12) -> None:
    """The last sweep completed `minutes` ago (the limit is 3 × 20 s)."""
    health.record_sweep_completed(time.time() - minutes * 60)


def running() -> None:
    health.record_sweep_completed()


def never() -> None:
    caches["default"].delete(health.SWEEP_KEY)


def deadline_passed(game, passed: bool = True) -> None:
    moment = timezone.now() + dt.timedelta(minutes=-5 if passed else 30)
    # No service moves a deadline into the past (the sweeper would have ended the phase):
    # written here as a service writes a deadline, with the page version moved.
    Game.objects.filter(pk=game.pk).update(deadline=moment, page_version=F("page_version") + 1)


def signed_in(user, language: str | None = None) -> Client:
    if language:
        Profile.objects.filter(user=user).update(language=language)
    client = Client()
    client.force_login(user)
    return client


def home(client, game) -> str:
    response = client.get(reverse("game-home", args=[game.pk]))
    assert response.status_code == 200
    return response.content.decode()


def console(client, game) -> str:
    response = client.get(reverse("admin:games_game_console", args=[game.pk]))
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def player(game):
    return game.seats.order_by("number").first().user


# --- the GM ---------------------------------------------------------------------------------

def test_the_gm_reads_how_long_ago_the_clock_stopped_and_what_to_do(game, gm):
    stopped(12)
    client = signed_in(gm)
    for html in (home(client, game), console(client, game)):
        assert GM_ZH in html and WHAT_TO_DO_ZH in html
        assert "现在结束本阶段…" in html  # what the GM can do meanwhile
        assert DUE_ZH not in html


def test_the_gm_is_warned_before_the_deadline_has_passed(game, gm):
    stopped(12)
    deadline_passed(game, passed=False)
    assert GM_ZH in home(signed_in(gm), game)


def test_the_gm_reads_it_in_english_when_they_chose_english(game, gm):
    stopped(12)
    client = signed_in(gm, "en")
    for html in (home(client, game), console(client, game)):
        assert GM_EN in html and WHAT_TO_DO_EN in html
        assert "时钟" not in html


def test_a_co_gm_is_warned_too(game, make_user):
    co_gm = make_user("副天神", staff=True, superuser=False)
    game.co_gms.add(co_gm)
    stopped(12)
    client = signed_in(co_gm)
    assert GM_ZH in home(client, game)
    assert GM_ZH in console(client, game)


def test_the_gm_is_told_when_no_sweep_was_ever_recorded(game, gm):
    never()
    client = signed_in(gm)
    for html in (home(client, game), console(client, game)):
        assert GM_NO_RECORD_ZH in html and "请检查 Redis、Celery worker 和 beat 是否在运行" in html
    assert "there is no record of it checking the deadlines" in home(signed_in(gm, "en"), game)


def test_with_the_health_cache_unreachable_the_pages_still_tell_the_clock_stopped(
        game, gm, player, settings):
    """Redis gone from under the heartbeat (its alias pointed at a port nothing listens on):
    the pages answer, the GM reads that there is no record and to check Redis too, a
    player past the deadline the neutral notice."""
    stopped(0)  # a sweep a moment ago, in the Redis that is about to be out of reach
    deadline_passed(game)
    settings.CACHES = {**settings.CACHES,
                       "default": {**settings.CACHES["default"],
                                   "LOCATION": "redis://127.0.0.1:1/0"}}
    assert GM_NO_RECORD_ZH in home(signed_in(gm), game)
    assert GM_NO_RECORD_ZH in console(signed_in(gm), game)
    html = home(signed_in(player), game)
    assert DUE_ZH in html and "Redis" not in html


def test_a_health_cache_that_raises_does_not_break_the_page(game, gm, monkeypatch):
    get = caches["default"].get

    def broken(key, *args, **kwargs):
        if key == health.SWEEP_KEY:  # the heartbeat alone: the page's own parts read on
            raise ValueError("a value that cannot be unpickled")
        return get(key, *args, **kwargs)

    monkeypatch.setattr(caches["default"], "get", broken)
    assert GM_NO_RECORD_ZH in home(signed_in(gm), game)


# --- players and other visitors ---------------------------------------------------------------

def test_a_seated_player_reads_only_the_neutral_notice_and_only_past_the_deadline(game, player):
    stopped(12)
    client = signed_in(player)
    deadline_passed(game, passed=False)
    assert ANY_NOTICE not in home(client, game)
    deadline_passed(game)
    html = home(client, game)
    assert DUE_ZH in html
    assert "时钟" not in html and "Celery" not in html and "beat" not in html


def test_a_seated_player_reads_it_in_english_when_they_chose_english(game, player):
    stopped(12)
    deadline_passed(game)
    html = home(signed_in(player, "en"), game)
    assert DUE_EN in html and "Celery" not in html


def test_staff_who_do_not_run_the_game_read_what_players_read(game, make_user, player):
    """Staff status alone opens nothing of a game: another host, and a staff player named
    co-GM of the game they sit in, read the neutral notice."""
    other_host = make_user("别的天神", staff=True, superuser=False)
    player.is_staff = True
    player.save(update_fields=["is_staff"])
    game.co_gms.add(player)
    stopped(12)
    deadline_passed(game)
    for user in (other_host, player):
        html = home(signed_in(user), game)
        assert DUE_ZH in html and "Celery" not in html


def test_anonymous_readers_kept_page_follows_the_clock(game):
    """The page kept whole for anonymous readers never keeps the notice: it comes and goes
    with the clock while the game's page version stays the same."""
    deadline_passed(game)
    reader = Client()
    stopped(12)
    assert DUE_ZH in home(reader, game)
    running()
    with CaptureQueriesContext(connection) as ctx:
        html = home(reader, game)
    # still the kept page: its key row, and the seats' posts of the last 48 hours, which
    # are counted afresh on every view of a running game
    assert len(ctx) == 2
    assert ANY_NOTICE not in html
    stopped(12)
    assert DUE_ZH in home(reader, game)
    assert DUE_EN in home(Client(HTTP_ACCEPT_LANGUAGE="en"), game)


def test_the_kept_parts_never_hold_the_notice(game, player, gm):
    """A seated player's and the GM's pages read with a stopped clock, then with a running
    one: the parts kept under the same version show nothing of the clock."""
    deadline_passed(game)
    stopped(12)
    assert DUE_ZH in home(signed_in(player), game)
    assert GM_ZH in home(signed_in(gm), game)
    running()
    for user in (player, gm):
        assert ANY_NOTICE not in home(signed_in(user), game)


# --- nothing while the clock runs, nor for a game the clock does not move --------------------

def test_nothing_is_shown_while_the_clock_runs(game, gm, player):
    running()
    deadline_passed(game)
    for client in (signed_in(gm), signed_in(player), Client()):
        assert ANY_NOTICE not in home(client, game)
    assert ANY_NOTICE not in console(signed_in(gm), game)
    stopped(0.9)  # 54 s: within three intervals of 20 s
    assert ANY_NOTICE not in home(signed_in(gm), game)


@pytest.mark.parametrize("status", [Game.Status.PAUSED, Game.Status.FINISHED])
def test_nothing_is_shown_for_a_game_that_is_not_running(game, gm, player, status):
    stopped(12)
    deadline_passed(game)
    Game.objects.filter(pk=game.pk).update(status=status)
    for client in (signed_in(gm), signed_in(player), Client()):
        assert ANY_NOTICE not in home(client, game)
    assert ANY_NOTICE not in console(signed_in(gm), game)


# --- what it costs -----------------------------------------------------------------------------

def count(client, game) -> int:
    with CaptureQueriesContext(connection) as ctx:
        home(client, game)
    return len(ctx)


def test_the_notice_costs_no_query(game, gm, player):
    deadline_passed(game)
    clients = {"gm": signed_in(gm), "player": signed_in(player), "anonymous": Client()}
    for client in clients.values():
        home(client, game)  # the parts kept
    running()
    calm = {who: count(client, game) for who, client in clients.items()}
    stopped(12)
    assert {who: count(client, game) for who, client in clients.items()} == calm


def test_the_heartbeat_is_read_once_a_request_at_most(game, gm, player, monkeypatch):
    reads = []
    real = health.clock

    def counted(*args, **kwargs):
        reads.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(health, "clock", counted)
    stopped(12)
    deadline_passed(game, passed=False)
    # Before the deadline only the GM's page asks; the anonymous reader's page twice (a
    # miss, then the kept page).
    for client, expected in ((signed_in(gm), 1), (signed_in(player), 0), (Client(), 0),
                             (Client(), 0)):
        reads.clear()
        home(client, game)
        assert len(reads) == expected
    deadline_passed(game)
    for client in (signed_in(gm), signed_in(player), Client(), Client()):
        reads.clear()
        home(client, game)
        assert len(reads) == 1
    reads.clear()
    console(signed_in(gm), game)
    assert len(reads) == 1


def test_the_key_row_knows_who_runs_the_game_as_is_gm_does(game, gm, make_user, player):
    co_gm = make_user("副天神", staff=True, superuser=False)
    other_host = make_user("别的天神", staff=True, superuser=False)
    left = make_user("离开的天神", staff=True, superuser=False)
    plain = make_user("路人")
    game.co_gms.add(co_gm, left, player)
    player.is_staff = True
    player.save(update_fields=["is_staff"])
    seat = game.seats.order_by("number").last()
    Substitution.objects.create(game=game, seat=seat, outgoing=left, incoming=seat.user,
                                status=Substitution.Status.ACCEPTED, ends_at=timezone.now())
    for user in (gm, co_gm, other_host, left, plain, player):
        user.refresh_from_db()
        with CaptureQueriesContext(connection) as ctx:
            row = selectors.home_row(game.pk, user)
        assert len(ctx) == 1
        assert row.viewer_runs == selectors.is_gm(user, game), user.profile.display_name
    assert [selectors.home_row(game.pk, u).viewer_runs for u in (gm, co_gm, left, player)] == \
        [True, True, False, False]
