"""The watch page (观战) from every seat: a watcher sees every hand, private action and its
result up to the end of the phase `watch_delay` phases before the current one, and nothing
later; the living, the GM and visitors get a refusal, never a line of it; the dead and
outsiders are told what watching costs them before they start."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games import services
from games.models import Game, Watcher
from tests.factories.toy import open_to_outsiders, seat_user, wolf_seat

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english")]


@pytest.fixture
def slow_game(gm, players):
    """A running toy game whose phases end only at their deadline or by the GM (so a step
    of the current phase stays in it), open to outsiders who watch."""
    g = services.create_game(name="观战局", ruleset="toy", gm=gm, seat_count=5,
                             durations={"night": 60, "day": 60}, early_end=False)
    return open_to_outsiders(services.start_game(game_id=g.pk, users=players,
                                                 seed="fixed-seed"))


def page(client, game, user):
    client.force_login(user)
    return client.get(reverse("game-watch", args=[game.pk]))


def start_watching(client, game, user) -> str:
    client.force_login(user)
    response = client.post(reverse("game-watch", args=[game.pk]))
    assert response.status_code == 302
    return page(client, game, user).content.decode()


def victim_of(game) -> int:
    return next(n for n in range(game.seat_count) if n != wolf_seat(game))


def plan_kill(game, target: int):
    services.submit_action(game_id=game.pk, user=seat_user(game, "wolf"), kind="kill",
                           params={"target": target})
    return Game.objects.get(pk=game.pk)


def end_phase(game, gm):
    services.end_phase_now(game_id=game.pk, gm=gm)
    return Game.objects.get(pk=game.pk)


def kills_shown(html: str) -> int:
    return len(re.findall(r'<li class="event"[^>]*data-kind="kill_planned"', html))


def test_a_watcher_sees_the_last_ended_phase_and_nothing_of_the_current_one(
        client, slow_game, gm, make_user):
    outsider = make_user("看客")
    game = plan_kill(slow_game, victim_of(slow_game))
    html = start_watching(client, game, outsider)
    assert 'id="nothing-yet"' in html and kills_shown(html) == 0
    assert "wolf" not in html  # no hand before the first phase has ended
    game = end_phase(game, gm)  # night 1 ends: its kill is what the watcher sees
    html = page(client, game, outsider).content.decode()
    assert 'id="watched-phase"' in html and kills_shown(html) == 1
    wolf_row = re.search(rf'<tr data-seat="{wolf_seat(game)}">(.*?)</tr>', html, re.S).group(1)
    assert "wolf" in wolf_row
    assert f'data-live-game="{game.pk}"' in html
    game = end_phase(game, gm)  # day 1 ends without an execution
    game = plan_kill(game, victim_of(game) + 1 if victim_of(game) + 1 != wolf_seat(game)
                     else victim_of(game) + 2)
    html = page(client, game, outsider).content.decode()
    assert kills_shown(html) == 1  # night 2's plan is not shown while night 2 runs
    assert 'data-seq="' in html and "secret" not in html


def test_the_living_the_gm_and_visitors_never_see_it(client, slow_game, gm):
    game = end_phase(plan_kill(slow_game, victim_of(slow_game)), gm)
    for seat in game.seats.filter(alive=True):
        response = page(client, game, seat.user)
        html = response.content.decode()
        assert response.status_code == 403 and 'id="watch-refusal"' in html
        assert kills_shown(html) == 0 and 'id="seats"' not in html
    response = page(client, game, gm)
    assert response.status_code == 403 and "天神控制台已向你显示一切" in \
        response.content.decode()
    client.logout()
    response = client.get(reverse("game-watch", args=[game.pk]))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert not Watcher.objects.exists()


def test_a_forged_post_of_a_living_player_changes_nothing(client, slow_game):
    living = slow_game.seats.first().user
    client.force_login(living)
    response = client.post(reverse("game-watch", args=[slow_game.pk]), follow=True)
    assert "玩家出局后才能观战" in response.content.decode()
    assert not Watcher.objects.exists()


def test_the_dead_are_told_they_give_up_their_replies_first(client, slow_game, gm):
    game = end_phase(plan_kill(slow_game, victim_of(slow_game)), gm)
    dead = game.seats.get(alive=False).user
    html = page(client, game, dead).content.decode()
    assert 'id="watch-confirm"' in html and 'id="gives-up-dead-talk"' in html
    assert 'id="no-signup"' not in html and kills_shown(html) == 0
    html = start_watching(client, game, dead)
    assert kills_shown(html) == 1
    assert Watcher.objects.get(user=dead).seat.number == victim_of(game)


def test_an_outsider_is_told_they_will_not_sign_up(client, slow_game, make_user):
    html = page(client, slow_game, make_user("看客")).content.decode()
    assert 'id="no-signup"' in html and 'id="gives-up-dead-talk"' not in html
    assert 'id="start-watching"' in html


def test_two_phases_behind(client, gm, players, make_user):
    draft = services.create_game(name="慢两拍", ruleset="toy", gm=gm, seat_count=5,
                                 durations={"night": 60, "day": 60}, early_end=False,
                                 watch_delay=Game.WatchDelay.TWO)
    game = open_to_outsiders(services.start_game(game_id=draft.pk, users=players,
                                                 seed="fixed-seed"))
    outsider = make_user("看客")
    game = end_phase(plan_kill(game, victim_of(game)), gm)  # day 1
    assert 'id="nothing-yet"' in start_watching(client, game, outsider)
    game = end_phase(game, gm)  # night 2: night 1 is two phases behind
    assert kills_shown(page(client, game, outsider).content.decode()) == 1


def test_the_game_home_offers_it_to_the_dead_and_to_outsiders(client, slow_game, gm,
                                                             make_user):
    game = end_phase(plan_kill(slow_game, victim_of(slow_game)), gm)
    home = reverse("game-home", args=[game.pk])

    def offered(user) -> bool:
        client.force_login(user)
        return 'id="watch-link"' in client.get(home).content.decode()

    assert offered(make_user("看客"))
    assert offered(game.seats.get(alive=False).user)
    assert not any(offered(s.user) for s in game.seats.filter(alive=True))
    assert not offered(gm)


def test_what_is_shown_is_the_audience_view_at_the_end_of_the_phase_before(slow_game, gm):
    from games import selectors

    game = end_phase(plan_kill(slow_game, victim_of(slow_game)), gm)
    shown = selectors.watched(game)
    assert shown.phase.seq == game.current_phase.seq - 1
    assert "secret" not in shown.view
    assert shown.view["log"] and all(e["visibility"]["public"] or e["visibility"]["seats"]
                                     for e in shown.view["log"])
    assert [a.seq for a in shown.steps] == list(
        game.actions.filter(phase__seq__lte=shown.phase.seq).order_by("seq")
        .values_list("seq", flat=True))
    assert shown.view["private"][wolf_seat(game)]["role"] == "wolf"  # every seat's hand


def test_a_watcher_is_told_on_the_lobby_why_they_write_nothing_and_a_forged_post_stores_nothing(
        client, slow_game, make_user):
    from messaging import services as forum
    from messaging.models import Post, Thread

    outsider = make_user("看客")
    lobby = forum.lobby_board()
    client.force_login(outsider)
    html = client.get(reverse("messaging-board", args=[lobby.slug])).content.decode()
    assert 'id="new-thread"' in html and 'id="start-refusal"' not in html
    start_watching(client, slow_game, outsider)
    html = client.get(reverse("messaging-board", args=[lobby.slug])).content.decode()
    assert 'id="new-thread"' not in html
    assert "你在本站任何地方都不能写下其存活玩家能读到的内容" in html
    threads, posts = Thread.objects.count(), Post.objects.count()
    response = client.post(reverse("messaging-thread-new", args=[lobby.slug]), {
        "kind": "discussion", "title": "身份表", "body": "匪是 2 6 10"})
    assert response.status_code in (200, 403)
    assert "你在本站任何地方都不能写下其存活玩家能读到的内容" in response.content.decode()
    assert (Thread.objects.count(), Post.objects.count()) == (threads, posts)
