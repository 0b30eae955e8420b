"""The console's "观战申请": the outsiders who asked to watch a game whose GM approves each
(Game.outsiders "request"), each with the account's history (name, when it was made, games
played to the end, games it plays now), approved or turned down from there through
services.answer_watch_request; the approved watchers listed (a dead seat or an outsider).
A forged post (another game's request, one already answered, a garbled id, someone who does
not run the game) is a readable refusal and changes nothing."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from games import services
from games.models import Game, Watcher
from tests.factories.toy import finish, night_kill, wolf_seat
from tests.web.test_chinese_pages import visible

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "chinese")]


def console(client, game) -> str:
    response = client.get(reverse("admin:games_game_console", args=[game.pk]))
    assert response.status_code == 200
    return response.content.decode()


def command(client, game, name, **data):
    return client.post(reverse("admin:games_game_command", args=[game.pk, name]), data,
                       follow=True)


def said(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def by_request(game) -> Game:
    return services.update_settings(game_id=game.pk,
                                    changes={"outsiders": Game.Outsiders.REQUEST})


def toy_game(gm, users, name: str) -> Game:
    draft = services.create_game(name=name, ruleset="toy", gm=gm, seat_count=5,
                                 durations={"night": 60, "day": 60})
    return services.start_game(game_id=draft.pk, users=users, seed="fixed-seed")


@pytest.fixture
def asker(make_user, crowd, gm):
    """An outsider with a history: made on 2024-03-05, two toy games played to the end, a
    seat (dead) in another running game."""
    user = make_user("看客甲")
    type(user).objects.filter(pk=user.pk).update(
        date_joined=dt.datetime(2024, 3, 5, 12, tzinfo=dt.UTC))
    finish(toy_game(gm, [user, *crowd[:4]], "旧局一"))
    finish(toy_game(gm, [user, *crowd[4:8]], "旧局二"))
    elsewhere = toy_game(gm, [user, *crowd[:4]], "别的局")
    assert wolf_seat(elsewhere) != 0  # the night's kill is seat 0's
    assert not night_kill(elsewhere).seats.get(user=user).alive
    user.refresh_from_db()
    return user


def test_the_console_lists_a_request_with_the_accounts_history(client, game, gm, asker):
    game = by_request(game)
    services.watch(game_id=game.pk, user=asker)
    client.force_login(gm)
    html = console(client, game)
    section = visible(html.split('id="watch-requests"')[1].split("</fieldset>")[0])
    assert "观战申请 (1)" in section
    assert "看客甲" in section and "注册于" in section and "2024-03-05" in section
    assert "已玩完 2 局" in section
    assert "正在参加" in section and "别的局" in section
    buttons = html.split('id="watch-requests"')[1].split("</fieldset>")[0]
    assert 'value="批准"' in buttons and 'value="拒绝"' in buttons
    assert "局外人观战" in section and "局外人申请，由天神逐一批准" in section
    assert "还没有人观战。" in section


def test_approving_lets_them_watch_and_lists_them(client, game, gm, make_user):
    game = by_request(game)
    outsider = make_user("看客乙")
    watcher = services.watch(game_id=game.pk, user=outsider)
    client.force_login(gm)
    response = command(client, game, "approve_watcher", watcher=watcher.pk)
    assert said(response) == ["已完成。"]
    watcher.refresh_from_db()
    assert watcher.approved_at is not None and services.watches(game, outsider)
    section = visible(console(client, game).split('id="watch-requests"')[1]
                      .split("</fieldset>")[0])
    assert "观战申请 (0)" in section and "没有等待处理的观战申请。" in section
    assert "观战者 (1)" in section and "看客乙" in section and "局外人" in section


def test_refusing_deletes_the_request(client, game, gm, make_user):
    game = by_request(game)
    outsider = make_user("看客丙")
    watcher = services.watch(game_id=game.pk, user=outsider)
    client.force_login(gm)
    response = command(client, game, "refuse_watcher", watcher=watcher.pk)
    assert said(response) == ["已完成。"]
    assert not Watcher.objects.filter(pk=watcher.pk).exists()
    assert not services.watches(game, outsider)


def test_a_dead_player_who_watches_is_listed_by_seat(client, game, gm):
    game = night_kill(game)
    seat = game.seats.get(alive=False)
    services.watch(game_id=game.pk, user=seat.user)
    client.force_login(gm)
    section = visible(console(client, game).split('id="watch-requests"')[1]
                      .split("</fieldset>")[0])
    assert f"{seat.number + 1}号{seat.user.profile.display_name}" in section
    assert "出局的玩家" in section


def test_forged_posts_are_refused_and_change_nothing(client, game, gm, players, make_user):
    game = by_request(game)
    other = by_request(toy_game(gm, [make_user(f"别人{i}") for i in range(5)], "另一局"))
    theirs = services.watch(game_id=other.pk, user=make_user("看客丁"))
    ours = services.watch(game_id=game.pk, user=make_user("看客戊"))
    client.force_login(gm)
    # another game's request, through this game's console
    response = command(client, game, "approve_watcher", watcher=theirs.pk)
    assert response.status_code == 200 and said(response) == ["这条观战申请已经处理过了。"]
    # a garbled id, a huge one, none at all
    for bad in ("abc", "99999999999", "-3", ""):
        response = command(client, game, "refuse_watcher", watcher=bad)
        assert response.status_code == 200 and len(said(response)) == 1, bad
        assert said(response) != ["已完成。"], bad
    assert Watcher.objects.filter(approved_at=None).count() == 2
    # answered already: approved, then refused or approved again
    command(client, game, "approve_watcher", watcher=ours.pk)
    for name in ("refuse_watcher", "approve_watcher"):
        response = command(client, game, name, watcher=ours.pk)
        assert said(response) == ["这条观战申请已经处理过了。"]
    ours.refresh_from_db()
    assert ours.approved_at is not None
    # someone who does not run the game: another host (a 404), a player (the login page)
    host = make_user("天神乙", staff=True, superuser=False)
    for user in (host, players[0]):
        client.force_login(user)
        response = client.post(reverse("admin:games_game_command",
                                       args=[other.pk, "approve_watcher"]),
                               {"watcher": theirs.pk})
        assert response.status_code in (302, 404)
        assert response.status_code == 404 or "login" in response["Location"]
    theirs.refresh_from_db()
    assert theirs.approved_at is None
    with pytest.raises(services.GameError):
        services.answer_watch_request(game_id=other.pk, gm=host, watcher_id=theirs.pk,
                                      approve=True)


def test_a_co_gm_answers_requests_too(client, game, gm, make_user):
    game = by_request(game)
    co = make_user("副天神", staff=True, superuser=False)
    services.add_co_gm(game_id=game.pk, gm=gm, user=co)
    watcher = services.watch(game_id=game.pk, user=make_user("看客己"))
    client.force_login(co)
    assert "看客己" in console(client, game)
    command(client, game, "approve_watcher", watcher=watcher.pk)
    watcher.refresh_from_db()
    assert watcher.approved_at is not None
