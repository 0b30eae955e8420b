"""A player's public profile agrees with the game pages: fouls counted from every source (the
engine's own foul-out at the end of a phase, 猫有n条命 §9.1.5, and the GM's foul-out step),
an overall record (games, wins, win rate, fouls) and one per rule set, and every rule set in
the by-camp table, 谁偷了我的金币 (which has no camps) included."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Event, Game, Substitution
from tests.factories import fresh, user_of
from tests.factories import ninelives as nl

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english_pages(client, settings):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"


def games_section(client, user) -> str:
    response = client.get(reverse("profile-public", args=[user.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    start = html.index('id="profile-games"')
    return html[start:html.index("</section>", start)]


def fouls_of(section: str, game) -> str:
    start = section.index(f'data-game="{game.pk}"')
    row = section[start:section.index("</tr>", start)]
    return re.search(r'<td data-label="Fouls">(\d+)</td>', row).group(1)


def figure(section: str, name: str) -> str:
    return re.search(rf'<dd id="overall-{name}">([^<]*)</dd>', section).group(1)


def night_passed(game: Game) -> Game:
    """Night 1: every seat sends its loss order and passes; the night ends early."""
    for seat, order in nl.default_orders(nl.FIVE).items():
        nl.act(game, seat, "loss_order", cards=order)
    for seat in range(5):
        nl.act(game, seat, "pass")
    game = fresh(game)
    assert game.phase_name == "day"
    return game


def test_a_foul_out_by_the_engine_counts_on_the_profile(client, start_ninelives, nl_gm):
    """Nobody votes on day 1; at its end the engine puts out every seat that owed a vote
    (犯规出局：既没有投票，也没有委托投票). The profile said 犯规 0: it counted only the GM's
    foul-out steps."""
    game = night_passed(start_ninelives())
    services.end_phase_now(game_id=game.pk, gm=nl_gm)
    game = fresh(game)
    silent = list(Event.objects.filter(game=game, kind="foul_out").values_list("data", flat=True))
    assert silent and all(d["reason"] == "no vote and no proxy vote" for d in silent)
    if game.status != Game.Status.FINISHED:
        for seat in sorted({s.number for s in game.seats.all()} - {d["seat"] for d in silent}):
            if fresh(game).status == Game.Status.FINISHED:
                break
            services.gm_step(game_id=game.pk, gm=nl_gm, kind="foul_out",
                             params={"seat": seat, "reason": "两天没发言"})
    game = fresh(game)
    assert game.status == Game.Status.FINISHED
    for d in silent:
        section = games_section(client, user_of(game, d["seat"]))
        assert fouls_of(section, game) == "1"
        assert figure(section, "fouls") == "1"


def test_a_foul_out_by_the_gm_counts_on_the_profile(client, start_ninelives, nl_gm):
    game = night_passed(start_ninelives())
    for seat in (0, 1):  # the killer and the wolf: the civilians win at once
        services.gm_step(game_id=game.pk, gm=nl_gm, kind="foul_out",
                         params={"seat": seat, "reason": "两天没发言"})
    game = fresh(game)
    assert game.status == Game.Status.FINISHED
    assert fouls_of(games_section(client, user_of(game, 0)), game) == "1"
    assert fouls_of(games_section(client, user_of(game, 2)), game) == "0"


def test_a_foul_after_a_handover_counts_for_the_seat_holder_then(
        client, start_ninelives, nl_gm, make_user):
    game = night_passed(start_ninelives())
    first = user_of(game, 3)
    substitute = make_user("替补乙")
    seat = game.seats.get(number=3)
    now = timezone.now()
    Substitution.objects.create(game=game, seat=seat, outgoing=first, incoming=substitute,
                                status=Substitution.Status.ACCEPTED, ends_at=now, closed_at=now)
    seat.user = substitute
    seat.save()
    services.gm_step(game_id=game.pk, gm=nl_gm, kind="foul_out",
                     params={"seat": 3, "reason": "替补后没发言"})
    for seat_number in (0, 1):
        services.gm_step(game_id=game.pk, gm=nl_gm, kind="foul_out",
                         params={"seat": seat_number, "reason": "两天没发言"})
    game = fresh(game)
    assert game.status == Game.Status.FINISHED
    assert fouls_of(games_section(client, substitute), game) == "1"
    assert fouls_of(games_section(client, first), game) == "0"


def test_every_rule_set_counts_in_the_overall_record_and_by_camp(
        client, start_ninelives, nl_gm, start_gold, nl_players):
    """A 猫有n条命 game won and a 谁偷了我的金币 game lost: 2 games, 1 win, 50%. Gold has no
    camps; its games were left out of the by-camp table."""
    game = night_passed(start_ninelives())
    for seat in (0, 1):
        services.gm_step(game_id=game.pk, gm=nl_gm, kind="foul_out",
                         params={"seat": seat, "reason": "两天没发言"})
    player = user_of(fresh(game), 2)  # a civilian: the civilians won
    assert 2 in fresh(game).outcome["winners"]
    gold = start_gold(users=[player, nl_players[3], nl_players[4]])
    Game.objects.filter(pk=gold.pk).update(
        status=Game.Status.FINISHED, finished_at=timezone.now(),
        outcome={"result": "win", "winners": [1], "summary": "Seat 2 wins with 9 coins."})
    section = games_section(client, player)
    assert (figure(section, "games"), figure(section, "wins"), figure(section, "rate"),
            figure(section, "fouls")) == ("2", "1", "50%", "0")
    rulesets = section[section.index('id="games-rulesets"'):]
    rulesets = rulesets[:rulesets.index("</table>")]
    from games.presenters import ruleset_name

    assert (f"<td>{ruleset_name('ninelives')}</td><td>1</td><td>1</td><td>100%</td>"
            "<td>0</td>") in rulesets
    assert f"<td>{ruleset_name('gold')}</td><td>1</td><td>0</td><td>0%</td><td>0</td>" \
        in rulesets
    assert rulesets.count("<tr>") == 3  # the heading and the two rule sets
    camps = section[section.index('id="games-camps"'):]
    camps = camps[:camps.index("</table>")]
    assert "<td>no camps</td><td>1</td><td>0</td><td>0%</td>" in camps
    assert camps.count("<tr>") == 3


def test_the_record_reads_in_chinese(client, start_ninelives, nl_gm, settings):
    game = night_passed(start_ninelives())
    services.end_phase_now(game_id=game.pk, gm=nl_gm)
    game = fresh(game)
    for seat in (0, 1):
        if fresh(game).status != Game.Status.FINISHED and fresh(game).seats.get(
                number=seat).alive:
            services.gm_step(game_id=game.pk, gm=nl_gm, kind="foul_out",
                             params={"seat": seat, "reason": "两天没发言"})
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "zh-hans"
    section = games_section(client, user_of(fresh(game), 4))
    assert "战绩" in section and "胜率" in section and "犯规" in section
