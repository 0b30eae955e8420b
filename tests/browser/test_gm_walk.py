"""The 天神's first game in Chromium, the GM only clicking: a
plain staff host (no superuser, no model permissions) logs in, creates a 猫有n条命 game with
the turbo preset in the add form, opens sign-ups; five players find the game through the
lobby's link and sign up on its page; the GM draws and starts, rejects a manifesto in
the console's 杀人宣言审核 section, extends the deadline and ends the night through the
consequences page.

Screenshots for the guide go to var/artifacts/gm-guide/<step>-<390|desktop>.png, on every run
(`docs_screenshots`: the guide's pictures stay current).

Near or over 20 s (19 to 25 s measured on the 2-core development machine): the guide's twelve
pictures are each taken at two widths, and five players sign up through pages of their own.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.utils import timezone

from games import services
from games.engine.ninelives.cards import ATTACK_CARDS
from games.models import Game
from tests.browser.shots import screenshot
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = ["阿猫", "阿狗", "小白", "老黑", "花花"]
MANIFESTO = ("夜色如墨，屋顶上的猫数着自己剩下的命。" * 8)[:120]
WIDTHS = {"390": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}


@pytest.fixture
def shots(artifacts_dir):
    folder = artifacts_dir / "gm-guide"
    folder.mkdir(parents=True, exist_ok=True)
    taken = []

    def shot(page, name):
        for label, size in WIDTHS.items():
            page.set_viewport_size(size)
            path = folder / f"{name}-{label}.png"
            screenshot(page, path, full_page=True)
            taken.append(path)
        page.set_viewport_size(WIDTHS["desktop"])

    def part(page, selector, name):
        """One part of the page at 390 px (the small pictures of docs/gm-guide.md)."""
        page.set_viewport_size(WIDTHS["390"])
        path = folder / f"{name}-390.png"
        screenshot(page.locator(selector).first, path)
        taken.append(path)
        page.set_viewport_size(WIDTHS["desktop"])

    shot.taken = taken
    shot.part = part
    return shot


def no_errors(page):
    errors = page.locator(".errornote, .errorlist, .messagelist .error")
    assert errors.count() == 0, errors.first.inner_text()


@pytest.mark.slow(seconds=25)
def test_the_gm_runs_a_first_game_by_clicking(
    browser, page_for, live_server, make_user, shots, settings, docs_screenshots
):
    settings.ACCOUNT_RATE_LIMITS = False
    host = make_user("新天神", staff=True, superuser=False)
    players = [make_user(name) for name in NAMES]
    context = browser.new_context(
        locale="zh-CN", timezone_id="Asia/Shanghai", viewport=WIDTHS["desktop"]
    )
    gm = context.new_page()
    gm.set_default_timeout(20_000)

    # 1. log in and find the guide and the add form from the admin's index
    gm.goto(f"{live_server.url}/admin/")  # -> the site's sign-in page, then back
    gm.fill("input[name=login]", host.email)
    gm.fill("input[name=password]", PASSWORD)
    shots(gm, "01-login")
    gm.click("main form button[type=submit]")
    gm.wait_for_url(re.compile(r".*/admin/$"))  # signed in, back on the admin's index
    assert gm.locator("a#gm-guide-link").count() == 1
    shots(gm, "02-admin-index")
    gm.click("a[href$='/admin/games/game/add/']")
    gm.wait_for_load_state()

    # 2. the add form: 猫有n条命 (prefilled), five seats (prefilled), the turbo preset
    assert gm.input_value("#id_ruleset") == "ninelives"
    assert gm.input_value("#id_seat_count") == "5"
    gm.fill("#id_name", "新手周末局")
    gm.check("input[name=preset_ninelives][value=turbo]")
    shots(gm, "03-add-form")
    shots.part(gm, "fieldset.ruleset-ninelives", "part-presets")
    gm.click("input[name=_continue]")
    gm.wait_for_load_state()
    no_errors(gm)
    game = Game.objects.get(name="新手周末局")
    assert game.gm == host and game.durations == {"night": 10, "day": 10, "runoff": 5}
    assert game.change_cutoff_minutes < 5

    # 3. open sign-ups from the console
    gm.click("text=打开控制台")
    gm.wait_for_load_state()
    gm.click("form[action$='/open_signups/'] input[type=submit]")
    gm.wait_for_load_state()
    no_errors(gm)
    shots(gm, "04-signups-open")

    # 4. the players come through the lobby's link to the game page and sign up
    for i, player in enumerate(players):
        page = page_for(player)
        page.goto(f"{live_server.url}/")
        page.click(f"a.board-link[href$='/games/{game.pk}/']")
        page.wait_for_load_state()
        page.click("#signup-player")
        page.wait_for_load_state()
        if i == 0:
            page.set_viewport_size(WIDTHS["390"])
            screenshot(page, shots.taken[0].parent / "05-player-signed-up-390.png", full_page=True)
        page.context.close()
    assert game.signups.filter(withdrawn_at=None).count() == 5

    # 5. draw and start
    gm.reload()
    gm.click("form[action$='/draw/'] input[type=submit]")
    gm.wait_for_load_state()
    no_errors(gm)
    shots(gm, "06-drawn")
    shots.part(gm, "fieldset:has(form[action$='/draw/'])", "part-draw")
    gm.click("form[action$='/start_signups/'] input[type=submit]")
    gm.wait_for_load_state()
    no_errors(gm)
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING and game.phase_name == "night"
    shots(gm, "07-running")
    shots.part(gm, "fieldset:has(#seats)", "part-seats")

    # 6. a player sends an attack with a manifesto; the GM rejects it with the seat picker
    seat = next(
        s
        for s in game.seats.select_related("user__profile").order_by("number")
        if set(game.state["private"][s.number]["hand"]) & set(ATTACK_CARDS)
    )
    card = next(c for c in game.state["private"][seat.number]["hand"] if c in ATTACK_CARDS)
    target = next(
        n for n, alive in enumerate(game.state["public"]["alive"]) if alive and n != seat.number
    )
    services.submit_action(
        game_id=game.pk,
        user=seat.user,
        kind="use_card",
        params={"card": card, "target": target, "manifesto": MANIFESTO},
    )
    gm.reload()
    # the console's 杀人宣言审核 section lists it under its author's seat and name
    review = gm.locator(f"#manifestos .manifesto[data-seat='{seat.number + 1}']")  # from 1
    assert f"{seat.number + 1}号{seat.user.profile.display_name}" in review.inner_text()
    assert MANIFESTO in review.locator(".manifesto-text").inner_text()
    reject = review.locator("form.reject-manifesto")
    reject.locator("textarea[name=reason]").fill("宣言抄袭了规则书的例子")
    shots(gm, "08-reject-manifesto")
    shots.part(gm, "#manifestos", "part-manifestos")
    shots.part(gm, "#gm-steps", "part-gm-steps")
    reject.locator("input[type=submit]").click()
    gm.wait_for_load_state()
    no_errors(gm)
    game.refresh_from_db()
    assert game.state["private"][seat.number]["action"]["rejected"] is True

    # 7. extend the deadline by the prefilled 60 minutes
    before = game.deadline
    gm.click("#extend-form input[type=submit]")
    gm.wait_for_load_state()
    game.refresh_from_db()
    assert game.deadline - before == dt.timedelta(minutes=60)

    # 8. end the night through the consequences page
    gm.click("#end-phase-link")
    gm.wait_for_load_state()
    assert gm.locator("#missing li").count() >= 1
    shots(gm, "09-end-phase-consequences")
    shots.part(gm, "#end-phase fieldset", "part-still-owed")
    gm.click("#confirm-end-phase")
    gm.wait_for_load_state()
    no_errors(gm)
    game.refresh_from_db()
    assert game.phase_name == "day" and game.phase_number == 1
    shots(gm, "10-day-1")
    ended_once = (game.state, game.steps)

    # 9. roll the night's end back by clicking (the new deadline stays as prefilled)
    gm.click("#undo-link a")
    gm.wait_for_url(re.compile(r".*/rollback/$"))
    gm.click("#rollback-choices a")
    gm.wait_for_load_state()
    assert gm.input_value("input[name=deadline]")  # prefilled: the phase's own length
    shots(gm, "11-rollback-confirm")
    gm.click("#rollback-form input[type=submit]")
    gm.wait_for_url(re.compile(r".*/console/$"))
    no_errors(gm)
    game.refresh_from_db()
    assert (game.phase_name, game.phase_number) == ("night", 1)
    assert game.deadline > timezone.now()

    # 10. end it again through the consequences page: the same game as the first time
    gm.click("#end-phase-link")
    gm.wait_for_load_state()
    gm.click("#confirm-end-phase")
    gm.wait_for_load_state()
    no_errors(gm)
    game.refresh_from_db()
    assert (game.state, game.steps) == ended_once

    # 11. the game reaches its end (the clock decides the rest); the console says so
    for _ in range(60):
        if game.status != Game.Status.RUNNING:
            break
        services.advance_phase(game_id=game.pk, reason="gm", by=host)
        game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.outcome["winners"] is not None
    gm.reload()
    no_errors(gm)
    shots(gm, "12-finished")
    context.close()
