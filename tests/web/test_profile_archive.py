"""The games section of a public profile and the archive of finished games:
what a finished game shows (seat, camp, result, won or lost, substitutes, fouls, awards,
totals by camp), what a running game never shows, the archive's filters and refusals, and
query budgets that do not grow with games or users."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Action, Award, Event, Game, Substitution
from tests.factories.toy import finish, seat_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english")]


@pytest.fixture(autouse=True)
def english_pages(client, settings):
    """Pages in English (the Chinese of the new strings is checked by tests/proof)."""
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"


def new_game(users, gm, name="测试局", seed="fixed-seed"):
    g = services.create_game(name=name, ruleset="toy", gm=gm, seat_count=len(users),
                             durations={"night": 60, "day": 60})
    return services.start_game(game_id=g.pk, users=users, seed=seed)


def profile(client, user) -> str:
    response = client.get(reverse("profile-public", args=[user.pk]))
    assert response.status_code == 200
    return response.content.decode()


def section(html: str) -> str:
    start = html.index('id="profile-games"')
    return html[start:html.index("</section>", start)]


def row_of(html: str, game) -> str:
    part = section(html)
    start = part.index(f'data-game="{game.pk}"')
    return part[start:part.index("</tr>", start)]


# --- a finished game ---------------------------------------------------------------------------

def test_a_finished_game_shows_seat_camp_result_and_win(client, game, players, gm):
    game = finish(game)
    wolf = seat_user(game, "wolf")
    for user in players:
        number = game.seats.get(user=user).number
        row = row_of(profile(client, user), game)
        assert f'<td data-label="Seat">{number + 1}</td>' in row
        if user == wolf:
            assert '<td class="camp" data-label="Camp">wolf</td>' in row
            assert '<td class="won" data-label="Won or lost">lost</td>' in row
        else:
            assert '<td class="camp" data-label="Camp">villager</td>' in row
            assert '<td class="won" data-label="Won or lost">won</td>' in row
        assert "The wolf is dead." in row and "Toy" in row
    assert "Hosted 1 finished game as GM" in section(profile(client, gm))


def test_totals_by_camp_give_the_win_rate(client, players, gm, make_user):
    extra = make_user("路人")
    villager_games = 0
    for i, seed in enumerate(["s-a", "s-b", "s-c", "s-d"]):
        g = finish(new_game(players, gm, name=f"局{i}", seed=seed))
        villager_games += seat_user(g, "wolf") != players[0]
    html = section(profile(client, players[0]))
    camps = html[html.index('id="games-camps"'):]
    if villager_games:  # the village always wins a finished toy game (factories.finish)
        assert f"<td>villager</td><td>{villager_games}</td><td>{villager_games}</td>" \
               "<td>100%</td>" in camps
    wolf_games = 4 - villager_games
    if wolf_games:
        assert f"<td>wolf</td><td>{wolf_games}</td><td>0</td><td>0%</td>" in camps
    assert "No finished game yet." in section(profile(client, extra))


def test_substitutes_fouls_and_awards_are_listed(client, game, players, gm, make_user):
    sub_user = make_user("替补甲")
    seat = game.seats.get(user=players[1])
    now = timezone.now()
    Substitution.objects.create(game=game, seat=seat, outgoing=players[1], incoming=sub_user,
                                status=Substitution.Status.ACCEPTED, ends_at=now, closed_at=now)
    seat.user = sub_user
    seat.save()
    # The GM's foul-out step and the engine's event for it (what the profile counts).
    Action.objects.create(game=game, seq=9_999, actor="gm", kind="foul_out",
                          params={"seat": seat.number, "reason": "两天没发言"})
    Event.objects.create(game=game, kind="foul_out", public=True,
                         data={"seat": seat.number, "reason": "两天没发言"})
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, finished_at=now,
                                           outcome={"result": "village", "winners": [],
                                                    "reason": {"code": "wolf_dead", "args": {}}})
    Award.objects.create(game=game, kind=Award.Kind.FAIR_PLAY, winner=sub_user, closed_at=now)
    came_in = row_of(profile(client, sub_user), game)
    went_out = row_of(profile(client, players[1]), game)
    assert "came in as a substitute" in came_in and "Fair Play" in came_in
    assert '<td data-label="Fouls">1</td><td data-label="Awards">Fair Play</td>' in came_in
    assert "handed the seat over" in went_out and "Fair Play" not in went_out
    assert f'<td data-label="Seat">{seat.number + 1}</td>' in went_out


# --- a running game: nothing but the fact ------------------------------------------------------

def test_a_running_game_shows_no_camp_or_hand_to_anyone(client, players, gm, make_user,
                                                         settings):
    staff_player = make_user("管理员玩家", staff=True)
    users = players[:4] + [staff_player]
    new_game(users, gm, name="进行中")
    viewers = [*users, gm, None]
    for viewer in viewers:
        client.logout()
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
        if viewer is not None:
            client.force_login(viewer)
        for person in users:
            part = section(profile(client, person))
            assert "进行中" in part  # the fact that they play
            for secret in ("wolf", "villager", "camp", 'id="games-played"'):
                assert secret not in part, (viewer, person, secret)


def test_the_running_games_state_is_never_read_for_the_profile(client, game, players,
                                                               monkeypatch):
    from games import rulesets

    engine = rulesets.engine("toy")

    def no_view(*args, **kwargs):
        raise AssertionError("a running game's state was read for a profile")

    monkeypatch.setattr(type(engine), "view", no_view)
    assert "测试局" in section(profile(client, players[0]))


# --- query budgets -----------------------------------------------------------------------------

def queries(client, url) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_the_profile_costs_the_same_for_one_game_or_three(client, players, gm, make_user):
    finish(new_game(players, gm, name="一"))
    one = queries(client, reverse("profile-public", args=[players[0].pk]))
    for name in ("二", "三"):
        finish(new_game(players, gm, name=name, seed=name))
    new_game(players, gm, name="四")  # and one running
    for i in range(5):
        make_user(f"路人{i}")
    assert queries(client, reverse("profile-public", args=[players[0].pk])) == one


def test_the_archive_costs_the_same_for_one_game_or_four(client, players, gm, make_user):
    finish(new_game(players, gm, name="一"))
    url = reverse("game-archive") + f"?player={players[0].pk}&ruleset=toy"
    one = queries(client, url)
    for name in ("二", "三", "四"):
        finish(new_game(players, gm, name=name, seed=name))
    for i in range(5):
        make_user(f"路人{i}")
    assert queries(client, url) == one


# --- the archive -------------------------------------------------------------------------------

@pytest.fixture
def two_finished(players, gm, make_user):
    first = finish(new_game(players, gm, name="老局"))
    Game.objects.filter(pk=first.pk).update(finished_at=timezone.now() - dt.timedelta(days=30))
    others = [make_user(f"新人{i}") for i in range(5)]
    second = finish(new_game(others, gm, name="新局", seed="other"))
    return first, second, others


def names_listed(client, query="") -> list[str]:
    response = client.get(reverse("game-archive") + query)
    assert response.status_code == 200
    html = response.content.decode()
    table = html[html.index('id="archive"'):html.index("</table>", html.index('id="archive"'))]
    return [n for n in ("老局", "新局", "进行中") if n in table]


def test_the_archive_lists_finished_games_only_newest_first(client, two_finished, players, gm):
    new_game(players, gm, name="进行中")
    assert names_listed(client) == ["老局", "新局"]  # presence; order below
    html = client.get(reverse("game-archive")).content.decode()
    assert html.index("新局") < html.index("老局")


def test_the_archive_filters_by_player_rule_set_outcome_and_date(client, two_finished, players):
    first, second, others = two_finished
    assert names_listed(client, f"?player={players[0].pk}") == ["老局"]
    assert names_listed(client, f"?player={others[0].pk}") == ["新局"]
    assert names_listed(client, "?ruleset=toy") == ["老局", "新局"]
    assert names_listed(client, "?ruleset=classic") == []
    assert names_listed(client, "?outcome=village") == ["老局", "新局"]
    today = timezone.localdate()
    assert names_listed(client, f"?from={today - dt.timedelta(days=1):%Y-%m-%d}") == ["新局"]
    assert names_listed(client, f"?to={today - dt.timedelta(days=10):%Y-%m-%d}") == ["老局"]


def test_an_unknown_player_is_an_empty_list_with_a_message(client, two_finished):
    response = client.get(reverse("game-archive") + "?player=987654")
    html = response.content.decode()
    assert response.status_code == 200 and "There is no such player." in html
    assert names_listed(client, "?player=987654") == []


@pytest.mark.parametrize("query", [
    "?player=abc", "?player=１２", "?player=-3", "?ruleset=nosuch", "?outcome=%25%27--",
    "?from=2026-13-45", "?to=yesterday", "?player=" + "9" * 40])
def test_a_bad_filter_is_a_400_with_a_reason_never_a_500(client, two_finished, query):
    response = client.get(reverse("game-archive") + query)
    assert response.status_code == 400
    assert len(response.content.decode().strip()) > 0


def test_an_unreadable_page_number_shows_page_one(client, two_finished):
    assert names_listed(client, "?page=zz") == ["老局", "新局"]
