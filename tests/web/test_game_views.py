"""Game pages: what each viewer sees, and forms that refuse bad input without a 500."""

import json
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.models import Action, Vote
from tests.factories.toy import seat_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english")]


def choice(kind, **params):
    return json.dumps({"kind": kind, "params": params}, sort_keys=True)


def test_each_seat_sees_only_its_own_role(client, game):
    wolf_number = game.state["secret"]["wolf"]
    for seat in game.seats.all():
        client.force_login(seat.user)
        html = unescape(client.get(reverse("game-act", args=[game.pk])).content.decode())
        mine = "wolf" if seat.number == wolf_number else "villager"
        assert f'"role": "{mine}"' in html
        other = "villager" if mine == "wolf" else "wolf"
        assert f'"role": "{other}"' not in html
        home = unescape(client.get(reverse("game-home", args=[game.pk])).content.decode())
        assert '"role"' not in home and "wolf" not in home.lower()


def test_an_outsider_and_anonymous_get_404_on_the_action_page(client, game, make_user):
    assert client.get(reverse("game-act", args=[game.pk])).status_code == 302
    client.force_login(make_user("路人"))
    assert client.get(reverse("game-act", args=[game.pk])).status_code == 404
    assert client.post(reverse("game-act", args=[game.pk]),
                       {"choice": choice("kill", target=0)}).status_code == 404


def test_the_wolf_acts_through_the_form_and_gets_a_confirmation(client, game, chinese):
    wolf = seat_user(game, "wolf")
    game.early_end = False
    game.save()
    client.force_login(wolf)
    page = client.get(reverse("game-act", args=[game.pk])).content.decode()
    assert 'id="action-form"' in page
    target = next(s.number for s in game.seats.all() if s.user != wolf)
    response = client.post(reverse("game-act", args=[game.pk]),
                           {"choice": choice("kill", target=target), "phase": "1"}, follow=True)
    assert response.status_code == 200
    assert Action.objects.filter(game=game, kind="kill").count() == 1
    # The player reads Chinese (the default); "已收到：" alone is also in 神的使者's messages.
    assert '<li class="success">已收到。神的使者已在下方确认。</li>' in response.content.decode()


@pytest.mark.parametrize("raw", ["", "not json", '{"kind": 5}', '{"kind": "kill", "params": []}',
                                 choice("kill", target=99), choice("explode"), "[]"])
def test_forged_action_posts_get_a_message_and_change_nothing(client, game, raw):
    wolf = seat_user(game, "wolf")
    client.force_login(wolf)
    before = game.state
    response = client.post(reverse("game-act", args=[game.pk]), {"choice": raw}, follow=True)
    # Unreadable steps are a 400 with the form again; readable ones that
    # the rules refuse come back through the redirect.
    assert response.status_code == (200 if raw.startswith('{"kind": "kill", "params": {')
                                    or "explode" in raw else 400)
    game.refresh_from_db()
    assert game.state == before and not Action.objects.filter(game=game).exists()
    assert b'class="messages"' in response.content


def test_posts_without_csrf_are_refused(game):
    wolf = seat_user(game, "wolf")
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(wolf)
    response = csrf_client.post(reverse("game-act", args=[game.pk]),
                                {"choice": choice("kill", target=0)})
    assert response.status_code == 403
    assert not Action.objects.filter(game=game).exists()


def test_voting_through_the_vote_thread(client, game):
    wolf = seat_user(game, "wolf")
    victim = next(s for s in game.seats.all() if s.user != wolf)
    services.submit_action(game_id=game.pk, user=wolf, kind="kill",
                           params={"target": victim.number})
    game.refresh_from_db()
    voter = next(s for s in game.seats.all() if s.alive and s.user != wolf)
    client.force_login(voter.user)
    from messaging.models import Thread

    thread = Thread.objects.get(board=game.board, key="vote-2")
    page = client.get(reverse("messaging-thread", args=[thread.pk])).content.decode()
    assert 'id="vote-form"' in page
    url = reverse("game-vote", args=[game.pk])
    wolf_seat = game.seats.get(user=wolf).number
    response = client.post(url, {"target": wolf_seat, "thread": thread.pk, "phase": "2"},
                           follow=True)
    assert response.status_code == 200 and b'id="vote-confirm-form"' in response.content
    assert not Vote.objects.filter(voter=voter).exists(), "cast only once confirmed"
    response = client.post(url, {"target": wolf_seat, "thread": thread.pk, "phase": "2",
                                 "confirmed": "1"}, follow=True)
    assert response.status_code == 200
    assert Vote.objects.filter(voter=voter).count() == 1
    response = client.post(url, {"target": voter.number, "thread": thread.pk, "phase": "2",
                                 "confirmed": "1"}, follow=True)
    # The refusal is the toy rule set's own reason (it has no translation), as an error.
    assert '<li class="error">You have already voted today.</li>' in response.content.decode()
    assert Vote.objects.filter(voter=voter).count() == 1
    for bad in ({"target": ""}, {"target": 99}):
        assert client.post(url, dict(bad, thread=thread.pk), follow=True).status_code == 200
    # Unreadable fields are a 400 with the parser's sentence.
    for bad in ({"target": "x"}, {"target": "²"}, {"kind": "kill", "target": 1},
                {"target": 1, "phase": "²"}):
        response = client.post(url, dict(bad, thread=thread.pk))
        assert response.status_code == 400 and "没有做任何更改" in response.content.decode()
    assert client.post(url, {"target": 1, "thread": "²"}).status_code == 400
    assert Vote.objects.filter(voter=voter).count() == 1
    page = client.get(reverse("messaging-thread", args=[thread.pk])).content.decode()
    assert 'id="vote-tally"' in page and voter.user.profile.display_name in page


def test_only_players_and_the_gm_post_on_a_running_games_board(game, gm, make_user):
    from messaging import services as forum
    from messaging.services import PostingRefused

    outsider = make_user("路人乙")
    with pytest.raises(PostingRefused):
        forum.start_thread(board=game.board, author=outsider, kind="discussion", title="x",
                           body="hello")
    player = game.seats.first().user
    thread = forum.start_thread(board=game.board, author=player, kind="discussion",
                                title="讨论", body="我先说")
    forum.reply(thread=thread, author=gm, body="天神在此")
    assert thread.posts.count() == 2


def test_a_dead_players_thread_goes_to_the_gm_board_and_long_replies_are_refused(game):
    from messaging import services as forum
    from messaging.services import PostingRefused

    wolf = seat_user(game, "wolf")
    victim = next(s for s in game.seats.all() if s.user != wolf)
    living = next(s for s in game.seats.all() if s.user != wolf and s != victim)
    services.submit_action(game_id=game.pk, user=wolf, kind="kill",
                           params={"target": victim.number})
    thread = forum.start_thread(board=game.board, author=victim.user, kind="analysis",
                                title="我的分析", body="……")
    thread.refresh_from_db()
    assert thread.board.kind == "gm"
    open_thread = forum.start_thread(board=game.board, author=living.user, kind="discussion",
                                     title="讨论", body="活人说话")
    forum.reply(thread=open_thread, author=victim.user, body="短评")
    with pytest.raises(PostingRefused, match="7.2"):
        forum.reply(thread=open_thread, author=victim.user, body="长" * 201)
    assert open_thread.posts.count() == 2


def _day_voter(game):
    wolf = seat_user(game, "wolf")
    victim = next(s for s in game.seats.all() if s.user != wolf)
    services.submit_action(game_id=game.pk, user=wolf, kind="kill",
                           params={"target": victim.number})
    game.refresh_from_db()
    return game, next(s for s in game.seats.all() if s.alive and s.user != wolf)


@pytest.mark.parametrize("names_its_phase", [True, False])
def test_a_vote_counts_from_its_arrival_when_it_names_its_phase(client, game, monkeypatch,
                                                               names_its_phase):
    """A vote that reached the application before the deadline counts even
    if the busy server gets to it after the deadline (config.middleware.ReceivedAtMiddleware
    stamps the arrival); one that does not name its phase is timed by the service."""
    import datetime as dt

    from django.utils import timezone

    from config.middleware import ReceivedAtMiddleware
    from games.models import Game

    game, voter = _day_voter(game)
    deadline = timezone.now() - dt.timedelta(milliseconds=500)  # passed while it waited
    Game.objects.filter(pk=game.pk).update(deadline=deadline)

    def arrived_in_time(self, request):
        request.received_at = deadline - dt.timedelta(milliseconds=200)
        return self.get_response(request)

    monkeypatch.setattr(ReceivedAtMiddleware, "__call__", arrived_in_time)
    client.force_login(voter.user)
    fields = {"target": voter.number, "kind": "vote"}
    if names_its_phase:
        fields["phase"] = game.current_phase.seq
    response = client.post(reverse("game-vote", args=[game.pk]), fields,
                           HTTP_ACCEPT="application/json")
    if names_its_phase:
        assert response.status_code == 200 and response.json()["ok"] is True
        action = Action.objects.get(game=game, kind="vote")
        assert action.received_at == deadline - dt.timedelta(milliseconds=200)
    else:
        assert response.status_code == 409
        assert response.json()["message"] == "已过截止时间，本次操作未被记录。"
        assert not Action.objects.filter(game=game, kind="vote").exists()
