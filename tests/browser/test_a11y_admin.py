"""Every page a 天神 uses in the admin, and the players' pages with lists of links, at 390 px
in Chromium: axe-core finds no serious or critical violation in the light and the dark theme
(the target-size rule on), and every link, button, field and checkbox row is at least
24 x 24 px (tests/browser/a11y.py: the site's own target, stricter than axe's, which lets a
small target pass when it has room around it). Nothing is wider than the phone.

The 天神 is a plain host (staff, not a superuser, a co-GM of the game) of a running 猫有n条命
game on its first day with everything the console lists: a player's message waiting for an
answer, a reported post, an outsider's request to watch, a warning. Pages: the admin's
index, the games list, the add form, a running game's settings, its console, the end-phase
page, the undo page, the guide, the records' lists (seats, phases, steps, votes, events,
announcements, reminders) and one record, the players' conversations and one of them, the
reported posts; a draft game's console (the sign-ups to open), and the console and the
settings of a game taking sign-ups. The players' pages: the home page (with the reader's
game first and 神的使者's threads of each game in one row, the folded ones opened by a
tap), the game's home, its board, the games list, the archive (its date boxes).

Only a browser can tell these (sizes and colours as laid out, in both themes); the admin
test reads 22 pages, about 40 s. Screenshots (SCREENSHOTS=1, tests/browser/shots.py) under
var/artifacts/a11y/, the whole page and each phone screen of it.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from games import services
from games.models import Game, Seat
from messaging import keeping
from messaging import services as forum
from messaging.models import Conversation, Thread
from tests.browser.a11y import COLOUR_RULES, axe_findings, blocking, small_targets
from tests.browser.shots import screenshot, wanted
from tests.factories.ninelives import act
from tests.factories.toy import night_kill

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"width": 390, "height": 844}
SCREEN = PHONE["height"]


@pytest.fixture
def phone(browser, live_server):
    """phone(user) -> a 390 px Chromium page signed in as `user`, able to run axe (the
    page's content security policy bypassed for the test's own script only)."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    def make(user):
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        context = browser.new_context(locale="zh-CN", bypass_csp=True, viewport=PHONE,
                                      timezone_id="Asia/Shanghai")
        context.add_cookies([{"name": settings.SESSION_COOKIE_NAME,
                              "value": store.session_key, "url": live_server.url}])
        page = context.new_page()
        page.set_default_timeout(20_000)
        return page

    return make


@pytest.fixture
def out(artifacts_dir):
    path = artifacts_dir / "a11y"
    path.mkdir(parents=True, exist_ok=True)
    return path


def findings(page, base: str, path: str, name: str, out) -> dict:
    """Open `path` and read it: the status, the width, the small targets, axe's blocking
    violations in both themes."""
    response = page.goto(base + path)
    screenshot(page, out / f"{name}.png", full_page=True)
    if wanted():  # and a phone's screen at a time, to be read at full size
        height = page.evaluate("document.scrollingElement.scrollHeight")
        for part, top in enumerate(range(0, min(height, 4 * SCREEN), SCREEN), start=1):
            screenshot(page, out / f"{name}-{part}.png", full_page=True, clip={
                "x": 0, "y": top, "width": PHONE["width"], "height": min(SCREEN, height - top)})
    found = {"status": response.status,
             "width": page.evaluate("document.scrollingElement.scrollWidth"),
             "small": small_targets(page), "axe": []}
    # The whole of axe in the light scheme; in the dark one, what the colours decide.
    for scheme, only in (("light", ()), ("dark", COLOUR_RULES)):
        found["axe"] += [dict(v, scheme=scheme) for v in blocking(
            axe_findings(page, scheme, only=only))]
    page.emulate_media(color_scheme="light")
    return found


def failures(pages: dict[str, dict]) -> dict[str, dict]:
    """What fails on each page: not 200, wider than the phone, small targets, axe."""
    bad = {}
    for name, f in pages.items():
        problems = {k: v for k, v in (("status", f["status"] != 200 and f["status"]),
                                      ("width", f["width"] > PHONE["width"] and f["width"]),
                                      ("small", f["small"]), ("axe", f["axe"])) if v}
        if problems:
            bad[name] = problems
    return bad


@pytest.fixture
def hosted(start_ninelives, nl_gm, make_user):
    """A running 猫有n条命 game on its first night with all the console lists, its plain
    host (a co-GM), a draft game of the host's and one taking sign-ups (one so far)."""
    game = start_ninelives()
    host = make_user("主持人", staff=True, superuser=False)
    services.add_co_gm(game_id=game.pk, gm=nl_gm, user=host)
    game = services.update_settings(game_id=game.pk,
                                    changes={"outsiders": Game.Outsiders.REQUEST})
    services.watch(game_id=game.pk, user=make_user("看客甲"))
    act(game, 1, "pass")
    forum.write_to_messenger(author=game.seats.get(number=3).user, body="夜里能换牌吗？",
                             board=game.board)
    thread = forum.start_thread(board=game.board, author=game.seats.get(number=1).user,
                                kind=Thread.Kind.ANALYSIS, title="第一天分析",
                                body="我认为三号可疑，[理由见此](https://example.com/)。",
                                enforce_rate_limit=False)
    keeping.report_post(reporter=game.seats.get(number=2).user, post=thread.posts.get(),
                        reason="泄露了私密结果。")
    draft = services.create_game(name="下周的局", ruleset="ninelives", gm=host, seat_count=5)
    signing = services.create_game(name="报名中的局", ruleset="ninelives", gm=host, seat_count=5)
    services.open_signups(game_id=signing.pk, gm=host)
    services.sign_up(game_id=signing.pk, user=make_user("报名甲"))
    return game, host, draft, signing


@pytest.mark.slow(seconds=40)
def test_every_admin_page_a_gm_uses_passes_at_390(phone, live_server, hosted, out):
    game, host, draft, signing = hosted
    conversation = Conversation.objects.get(pk=Seat.objects.get(game=game, number=3)
                                            .conversation_id)
    event = game.events.order_by("pk").first()
    pages = {
        "index": reverse("admin:index"),
        "games": reverse("admin:games_game_changelist"),
        "add": reverse("admin:games_game_add"),
        "settings": reverse("admin:games_game_change", args=[game.pk]),
        "console": reverse("admin:games_game_console", args=[game.pk]),
        "end-phase": reverse("admin:games_game_end_phase", args=[game.pk]),
        "undo": reverse("admin:games_game_rollback", args=[game.pk]),
        "guide": reverse("admin:games_game_guide"),
        "seats": reverse("admin:games_seat_changelist"),
        "phases": reverse("admin:games_phase_changelist"),
        "steps": reverse("admin:games_action_changelist"),
        "votes": reverse("admin:games_vote_changelist"),
        "events": reverse("admin:games_event_changelist"),
        "event": reverse("admin:games_event_change", args=[event.pk]),
        "announcements": reverse("admin:games_announcement_changelist"),
        "reminders": reverse("admin:games_remindersent_changelist"),
        "conversations": reverse("admin:messaging_conversation_changelist"),
        "conversation": reverse("admin:messaging_conversation_change", args=[conversation.pk]),
        "reports": reverse("admin:messaging_report_changelist"),
        "draft-console": reverse("admin:games_game_console", args=[draft.pk]),
        "signup-console": reverse("admin:games_game_console", args=[signing.pk]),
        "signup-settings": reverse("admin:games_game_change", args=[signing.pk]),
    }
    page = phone(host)
    found = {name: findings(page, live_server.url, path, f"admin-{name}", out)
             for name, path in pages.items()}
    assert failures(found) == {}


def test_the_players_lists_pass_at_390(phone, live_server, hosted, make_user, toy_ruleset,
                                      out):
    game, host, _draft, _signing = hosted
    # another game, of other people, its first night over; a discussion on the lobby
    others = [make_user(f"别人{i}") for i in range(6)]
    other = services.start_game(game_id=services.create_game(
        name="别的局", ruleset="toy", gm=host, seat_count=5,
        durations={"night": 60, "day": 60}).pk, users=others[:5], seed="fixed-seed")
    night_kill(other)
    forum.start_thread(board=forum.lobby_board(), author=others[5], kind=Thread.Kind.DISCUSSION,
                       title="新人报到", body="大家好", enforce_rate_limit=False)
    player = game.seats.get(number=0).user
    pages = {
        "home": "/",
        "game-home": game.get_absolute_url(),
        "board": game.board.get_absolute_url(),
        "games": reverse("game-list"),
        "archive": reverse("game-archive"),
    }
    page = phone(player)
    found = {name: findings(page, live_server.url, path, f"site-{name}", out)
             for name, path in pages.items()}
    assert failures(found) == {}

    # the home page: the player's game first, one row for 神的使者's threads of each game,
    # the other game's threads folded under its newest until tapped
    page.goto(live_server.url + "/")
    mine = page.locator(f"#latest-mine .official-group[data-board='{game.board.pk}']")
    rest = page.locator(f"#latest-rest .official-group[data-board='{other.board.pk}']")
    assert mine.count() == 1 and rest.count() == 1
    assert page.locator("#latest-rest .thread-row .title", has_text="新人报到").count() == 1
    folded = rest.locator(".official-more li a")
    assert folded.count() >= 1 and not folded.first.is_visible()
    rest.locator(".official-more summary").click()
    assert folded.first.is_visible()
    screenshot(page, out / "site-home-opened.png", full_page=True)
