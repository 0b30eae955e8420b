"""From sign-up to start by clicking: the announcement links the game page; the start
refusal names the missing step."""

import pytest
from django.urls import reverse

from games import services
from games.models import Game, Seat

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english")]


@pytest.fixture
def signup_game(gm, crowd):
    g = services.create_game(name="报名局", ruleset="toy", gm=gm, seat_count=5,
                             durations={"night": 60, "day": 60})
    g = services.open_signups(game_id=g.pk, gm=gm)
    for user in crowd[:6]:
        services.sign_up(game_id=g.pk, user=user)
    return g


def test_the_sign_up_announcement_links_the_game_page(client, signup_game, crowd):
    post = signup_game.signup_thread.posts.order_by("pk").first()
    url = reverse("game-home", args=[signup_game.pk])
    assert f'href="{url}"' in post.html
    client.force_login(crowd[7])
    page = client.get(signup_game.signup_thread.get_absolute_url())
    assert f'href="{url}"' in page.content.decode()
    assert client.get(url).status_code == 200


def test_starting_before_the_draw_says_to_draw(signup_game, gm):
    with pytest.raises(services.GameError, match="draw the players") as refused:
        services.start_from_signups(game_id=signup_game.pk, gm=gm)
    assert "5 different players" not in refused.value.message
    signup_game.refresh_from_db()
    assert signup_game.status == Game.Status.SIGNUP and not Seat.objects.exists()


def test_the_console_start_button_names_the_missing_draw(client, signup_game, gm):
    client.force_login(gm)
    response = client.post(reverse("admin:games_game_command",
                                   args=[signup_game.pk, "start_signups"]), follow=True)
    text = " ".join(str(m) for m in response.context["messages"])
    assert "请先抽签决定玩家" in text  # the admin speaks Chinese by default
    services.draw_players(game_id=signup_game.pk, gm=gm, seed="s")
    response = client.post(reverse("admin:games_game_command",
                                   args=[signup_game.pk, "start_signups"]), follow=True)
    signup_game.refresh_from_db()
    assert signup_game.status == Game.Status.RUNNING and Seat.objects.count() == 5
