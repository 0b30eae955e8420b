"""The player's pages on a 390 px phone in Chromium: nothing wider
than the screen (document.scrollingElement.scrollWidth <= 390), and axe-core finds no serious
or critical violation, in the light and the dark theme (prefers-color-scheme). Screenshots
under var/artifacts/pages/.

Pages: the home page, the games list, a running 猫有n条命 game's home, the seat's action page,
today's vote thread, the game's board, the rules page; a finished game's review and a seat's
review page (猫有n条命 and 谁偷了我的金币), all read in Chinese as a seated player.

axe-core is vendored (tests/browser/vendor/axe.min.js) and injected into the test's own
browser context only (with the page's content security policy bypassed for the test: the
site itself allows no inline or foreign script).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse

from messaging.models import Thread
from tests.browser.shots import screenshot
from tests.factories import fresh
from tests.proof.crawl import end_current_phase
from tests.web.test_review_rulesets import random_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
WIDTH = 390
BLOCKING = ("serious", "critical")
SLICE = 1200  # px of a long page per screenshot slice


@pytest.fixture
def phone(browser, live_server):
    """phone(user) -> a 390 px Chromium page signed in as `user`, able to run axe."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    def make(user):
        context = browser.new_context(locale="zh-CN", bypass_csp=True,
                                      timezone_id="Asia/Shanghai",
                                      viewport={"width": WIDTH, "height": 844})
        if user is not None:
            store = SessionStore()
            store[SESSION_KEY] = str(user.pk)
            store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
            store[HASH_SESSION_KEY] = user.get_session_auth_hash()
            store.create()
            context.add_cookies([{"name": settings.SESSION_COOKIE_NAME,
                                  "value": store.session_key, "url": live_server.url}])
        page = context.new_page()
        page.set_default_timeout(20_000)
        return page

    return make


def check(page, base: str, path: str, name: str, out: Path) -> dict:
    """Open `path`, take the screenshot, measure the width and run axe; returns the figures."""
    response = page.goto(base + path)
    assert response.status == 200, (path, response.status)
    screenshot(page, out / f"{name}.png", full_page=True)
    height = page.evaluate("document.scrollingElement.scrollHeight")
    for part, top in enumerate(range(0, min(height, 3 * SLICE), SLICE), start=1):
        # Readable slices of a long page (the whole page is kept too).
        screenshot(page, out / f"{name}-{part}.png", full_page=True, clip={
            "x": 0, "y": top, "width": WIDTH, "height": min(SLICE, height - top)})
    width = page.evaluate("document.scrollingElement.scrollWidth")
    page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    result, blocking = [], []
    # Both themes: the site follows the reader's prefers-color-scheme (static/css/site.css).
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        found = page.evaluate("""async () => {
            const r = await axe.run(document, {resultTypes: ["violations"]});
            return r.violations.map(v => ({id: v.id, impact: v.impact,
                nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ") + " " + n.failureSummary)}));
        }""")
        result += [dict(v, scheme=scheme) for v in found]
        blocking += [dict(v, scheme=scheme) for v in found if v["impact"] in BLOCKING]
    page.emulate_media(color_scheme="light")
    return {"path": path, "width": width, "blocking": blocking, "all": result}


@pytest.fixture
def out(artifacts_dir):
    path = artifacts_dir / "pages"
    path.mkdir(parents=True, exist_ok=True)
    return path


def assert_fits_and_passes(figures: list[dict]):
    wide = [(f["path"], f["width"]) for f in figures if f["width"] > WIDTH]
    assert not wide, f"wider than {WIDTH} px: {wide}"
    failing = {f["path"]: f["blocking"] for f in figures if f["blocking"]}
    assert not failing, f"axe serious/critical: {failing}"


def test_a_running_game_on_a_phone(phone, live_server, start_ninelives, out):
    game = start_ninelives()
    end_current_phase(game)
    game = fresh(game)
    seat = game.seats.get(number=1)
    vote = Thread.objects.get(board=game.board, key=f"vote-{game.current_phase.seq}")
    page = phone(seat.user)
    pages = [("/", "home"), (reverse("game-list"), "games"),
             (game.get_absolute_url(), "game-home"), (reverse("game-act", args=[game.pk]), "act"),
             (vote.get_absolute_url(), "vote-thread"), (game.board.get_absolute_url(), "board"),
             (reverse("rules-detail", args=["ninelives"]), "rules"),
             (seat.conversation.get_absolute_url(), "conversation")]
    figures = [check(page, live_server.url, path, f"ninelives-{name}", out)
               for path, name in pages]
    assert_fits_and_passes(figures)


@pytest.mark.slow(seconds=15)
@pytest.mark.parametrize("ruleset", ["ninelives", "gold"])
def test_a_finished_games_review_on_a_phone(phone, live_server, make_user, out, ruleset):
    users = [make_user(f"玩家{i}") for i in range(6)]
    gm = make_user("天神丁", staff=True)
    game, _accepted, _refused = random_game(ruleset, users, gm, seed=7)
    page = phone(game.seats.get(number=0).user)
    pages = [(reverse("game-review", args=[game.pk]), "review"),
             (reverse("game-review-seat", args=[game.pk, 1]), "review-seat"),
             (game.get_absolute_url(), "game-home-over"), ("/profile/", "profile")]
    figures = [check(page, live_server.url, path, f"{ruleset}-{name}", out)
               for path, name in pages]
    assert_fits_and_passes(figures)


@pytest.mark.parametrize("ruleset", ["classic", "gold"])
def test_the_other_rule_sets_act_pages_on_a_phone(phone, live_server, make_user, out, ruleset):
    from games import services

    seats = {"classic": 11, "gold": 3}[ruleset]
    users = [make_user(f"座客{i}") for i in range(seats)]
    gm = make_user("天神庚", staff=True)
    game = services.create_game(name=f"手机{ruleset}局", ruleset=ruleset, gm=gm,
                                seat_count=seats)
    game = services.start_game(game_id=game.pk, users=users, seed=f"phone-{ruleset}")
    page = phone(users[1])
    pages = [(game.get_absolute_url(), "game-home"),
             (reverse("game-act", args=[game.pk]), "act")]
    figures = [check(page, live_server.url, path, f"{ruleset}-{name}", out)
               for path, name in pages]
    assert_fits_and_passes(figures)


def test_a_flash_message_and_the_language_menu_pass_axe(phone, live_server, start_ninelives,
                                                        out):
    """After sending a message the act page shows the confirmation (role=status); the
    language menu changes the language only with its button."""
    game = start_ninelives()
    page = phone(game.seats.get(number=0).user)
    page.goto(live_server.url + reverse("game-act", args=[game.pk]))
    page.fill("#free_text", "请问天神：丢牌顺序可以改吗？")
    page.click("#free-text-form button[type=submit]")
    page.wait_for_selector(".messages[role=status] li")
    figures = [check(page, live_server.url, page.url[len(live_server.url):], "act-flash", out)]
    assert_fits_and_passes(figures)
    page.select_option("select[name=language]", "en")
    assert "/act/" in page.url  # choosing does not submit
    page.click(".lang button[type=submit]")
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("lang") == "en"
