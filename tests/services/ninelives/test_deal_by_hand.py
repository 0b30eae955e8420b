"""The GM enters a 猫有n条命 deal by hand: the service validates it and names the broken rule."""

import random

import pytest

from games import services
from games.engine.ninelives.dealing import deal as draw_deal
from games.models import Game

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english")]


def test_a_valid_hand_entered_deal_is_used(gm, players):
    fixed = draw_deal(5, random.Random(7)).to_json()
    g = services.create_game(name="手工发牌", ruleset="ninelives", gm=gm, seat_count=5,
                             config={"players": 5, "deal": fixed})
    game = services.start_game(game_id=g.pk, users=players)
    hands = [sorted(s["cards"]) for s in fixed["seats"]]
    assert [sorted(p["hand"]) for p in game.state["private"]] == hands
    assert "deal" not in game.state["config"]  # moved to the GM-only part


def test_a_broken_hand_entered_deal_is_refused_naming_the_rule(gm, players):
    fixed = draw_deal(5, random.Random(7)).to_json()
    # give one seat both SNIPER and COUNTER_SNIPER (§4.4.1) by swapping cards between seats
    seats = fixed["seats"]
    holder = next(s for s in seats if "SNIPER" in s["cards"])
    other = next(s for s in seats if "COUNTER_SNIPER" in s["cards"])
    if holder is not other:
        give = next(c for c in holder["cards"] if c != "SNIPER")
        holder["cards"][holder["cards"].index(give)] = "COUNTER_SNIPER"
        other["cards"][other["cards"].index("COUNTER_SNIPER")] = give
    # Refused when the game is created (services.check_settings deals it once), so no game
    # with a deal that breaks §4 is ever stored.
    with pytest.raises(services.GameError, match="4.4.1"):
        services.create_game(name="坏牌", ruleset="ninelives", gm=gm, seat_count=5,
                             config={"players": 5, "deal": fixed})
    assert not Game.objects.filter(name="坏牌").exists()


def test_the_console_fouls_out_the_seat_it_names(client, gm, players):
    from django.urls import reverse

    fixed = draw_deal(5, random.Random(7)).to_json()
    g = services.create_game(name="犯规局", ruleset="ninelives", gm=gm, seat_count=5,
                             config={"players": 5, "deal": fixed})
    game = services.start_game(game_id=g.pk, users=players)
    client.force_login(gm)
    url = reverse("admin:games_game_command", args=[game.pk, "foul_out"])
    client.post(url, {"seat": "3", "reason": "§9.1.5"})
    client.post(url, {"seat": "zero"})  # refused readably, nothing changes
    game.refresh_from_db()
    assert game.state["public"]["alive"] == [True, True, False, True, True]
