"""From sign-up to start by clicking: the announcement links the game page; the start
refusal names the missing step."""

import re

import pytest
from django.urls import reverse

from games import services
from games.models import Game, Seat

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english", "response_context")]


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


def test_the_lobby_links_each_open_games_page(client, signup_game, gm, crowd):
    from games.models import Game

    draft = services.create_game(name="草稿局", ruleset="toy", gm=gm, seat_count=5)
    html = client.get(reverse("lobby")).content.decode()
    assert f'href="{reverse("game-home", args=[signup_game.pk])}"' in html
    assert "在这里报名" in html  # sign-ups open: the page is where players sign up
    assert f'href="{reverse("game-home", args=[draft.pk])}"' not in html
    assert Game.objects.get(pk=draft.pk).status == Game.Status.DRAFT


def test_the_seat_pickers_list_display_names_sorted(client, gm, make_user):
    for name in ["Cat", "Ann", "Dan", "Bob"]:  # created out of order
        make_user(name)
    g = services.create_game(name="挑人局", ruleset="toy", gm=gm, seat_count=5)
    client.force_login(gm)
    html = client.get(reverse("admin:games_game_console", args=[g.pk])).content.decode()
    picker = html.split('name="seat_0"', 1)[1].split("</select>", 1)[0]
    labels = re.findall(r'<option value="\d+">([^<]+)</option>', picker)
    assert [label for label in labels if label in {"Ann", "Bob", "Cat", "Dan"}] == [
        "Ann", "Bob", "Cat", "Dan"]
    assert "天神甲" not in labels  # the game's GM is not offered a seat of it
    assert not any(label.startswith("u") and label[1:].isdigit() for label in labels)


def test_the_sign_up_announcement_links_the_rules_page_of_its_rule_set(client, nl_gm, chinese):
    from tests.engine.ninelives.deals import FIVE

    g = services.create_game(name="九命报名局", ruleset="ninelives", gm=nl_gm, seat_count=5,
                             config={"players": 5, "deal": FIVE})
    g = services.open_signups(game_id=g.pk, gm=nl_gm)
    post = g.signup_thread.posts.order_by("pk").first()
    rules = reverse("rules-detail", args=["ninelives"])
    assert f'href="{rules}"' in post.html and "猫有n条命的规则" in post.body
    assert client.get(rules).status_code == 200
