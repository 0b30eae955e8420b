"""A replacement during a night in Chromium: the substitute accepts, sees the inherited hand
and conversation; the outgoing player loses access at once."""

from html import unescape

import pytest

from games import services
from messaging import services as forum
from tests.browser.shots import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("toy_ruleset")]


def test_a_substitute_takes_over_a_seat_during_the_night(page_for, live_server, make_user,
                                                         monkeypatch, artifacts_dir):
    gm = make_user("天神丁", staff=True)
    players = [make_user(n) for n in ["甲", "乙", "丙", "丁", "戊"]]
    sub_user = make_user("替补猫")
    g = services.create_game(name="换人局", ruleset="toy", gm=gm, seat_count=5)
    services.open_signups(game_id=g.pk, gm=gm)
    for p in players:
        services.sign_up(game_id=g.pk, user=p)
    services.sign_up(game_id=g.pk, user=sub_user, role="substitute")
    services.pick_players(game_id=g.pk, gm=gm, users=players)
    game = services.start_from_signups(game_id=g.pk, gm=gm)
    assert game.phase_name == "night"
    seat = game.seats.get(number=2)
    role = game.state["private"][2]["role"]
    forum.send_as_messenger(conversation=seat.conversation, body="给座位3的私密提示 KEEP-7731")

    outgoing = page_for(players[2])
    outgoing.goto(f"{live_server.url}/games/{game.pk}/act/")
    assert "KEEP-7731" in outgoing.content()

    gm_page = page_for(gm)
    gm_page.goto(f"{live_server.url}/admin/games/game/{game.pk}/console/")
    gm_page.select_option("form[action$='/substitute/'] select[name=seat]", "3")
    gm_page.locator("form[action$='/substitute/'] input[type=submit]").last.click()
    gm_page.wait_for_load_state()

    sub = page_for(sub_user)
    sub.goto(f"{live_server.url}/games/{game.pk}/")
    sub.click("#accept-substitution")
    sub.wait_for_load_state()
    sub.goto(f"{live_server.url}/games/{game.pk}/act/")
    html = sub.content()
    assert "KEEP-7731" in html and f'"role": "{role}"' in unescape(html)
    screenshot(sub, artifacts_dir / "substitute-handover.png", full_page=True)

    response = outgoing.goto(f"{live_server.url}/games/{game.pk}/act/")
    assert response.status == 404
    response = outgoing.goto(f"{live_server.url}/messenger/{seat.conversation.pk}/")
    assert response.status == 404
