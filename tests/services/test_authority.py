"""Per-game authority: a game has its GM and co-GMs; staff status only
means "may host games"; whoever holds or ever held a seat has no GM power or view of it."""

import pytest
from django.urls import reverse

from games import selectors, services
from games.models import Event
from messaging import rules
from messaging import services as forum
from messaging.models import Conversation

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english")]


@pytest.fixture
def other_host(make_user):
    return make_user("天神乙", staff=True)


def console(client, game):
    return client.get(reverse("admin:games_game_console", args=[game.pk]))


def test_only_the_games_gm_and_co_gms_run_it(game, gm, other_host, make_user):
    co = make_user("副天神", staff=True)
    game.co_gms.add(co)
    assert selectors.is_gm(gm, game) and selectors.is_gm(co, game)
    assert not selectors.is_gm(other_host, game)  # a superuser who hosts another game
    with pytest.raises(services.GameError) as refused:
        services.pause_game(game_id=game.pk, gm=other_host)
    assert refused.value.code == "forbidden"
    game.refresh_from_db()
    assert game.status == "running"


def test_a_staff_user_seated_in_the_game_has_no_gm_power(make_user, toy_ruleset, players):
    host = make_user("主持人", staff=True)
    g = services.create_game(name="自己玩", ruleset="toy", gm=host, seat_count=5)
    g = services.start_game(game_id=g.pk, users=[host, *players[:4]], seed="s")
    assert not selectors.is_gm(host, g)
    with pytest.raises(services.GameError):
        services.end_phase_now(game_id=g.pk, gm=host)
    assert selectors.events_visible_to(g, host).count() < Event.objects.filter(game=g).count()


def test_a_replaced_player_stays_without_gm_power(game, players, gm):
    game.co_gms.add(players[0])
    players[0].is_staff = True
    players[0].save()
    assert not selectors.is_gm(players[0], game)  # holds a seat
    seat = game.seats.get(user=players[0])
    from games.models import Substitution
    Substitution.objects.create(game=game, seat=seat, outgoing=players[0], incoming=gm,
                                status=Substitution.Status.ACCEPTED, ends_at=game.deadline)
    seat.user = None
    seat.save()
    assert not selectors.is_gm(players[0], game)  # held one: still nothing
    assert not selectors.is_gm(gm, game)  # now holds one


def test_another_hosts_console_post_is_a_404_and_changes_nothing(client, game, other_host):
    client.force_login(other_host)
    assert console(client, game).status_code == 404
    version = game.version
    response = client.post(reverse("admin:games_game_command", args=[game.pk, "end_phase"]))
    assert response.status_code == 404
    game.refresh_from_db()
    assert game.version == version


def test_the_gm_board_and_conversations_reach_the_games_gm_only(game, gm, other_host, players):
    board = services.gm_board(game)
    assert rules.can_read_board(gm, board) and not rules.can_read_board(other_host, board)
    conv = game.seats.get(number=0).conversation
    forum.send_to_messenger(conversation=conv, author=players[0], body="我想请假")
    before = conv.messages.count()
    with pytest.raises(forum.PostingRefused):
        forum.answer_as_messenger(conversation=conv, staff=other_host, body="好的")
    assert conv.messages.count() == before
    assert forum.unread_for(other_host) == 0 and forum.unread_for(gm) == 1
    assert conv in rules.gm_conversations(gm)
    assert not rules.gm_conversations(other_host).filter(pk=conv.pk).exists()
    assert Conversation.objects.filter(pk=conv.pk).exists()


def test_the_review_before_the_end_is_for_the_games_gm_only(client, game, gm, other_host):
    url = reverse("game-events-json", args=[game.pk])
    client.force_login(other_host)
    assert client.get(url).json()["complete"] is False
    client.force_login(gm)
    assert client.get(url).json()["setup"]["seed"] == "fixed-seed"


def test_automatic_messenger_messages_leave_the_players_message_waiting(game, gm, players):
    """A private result does not answer a player's question; the GM does."""
    conv = game.seats.get(number=0).conversation
    forum.send_to_messenger(conversation=conv, author=players[0], body="我可以请假吗？")
    forum.send_as_messenger(conversation=conv, body="你的夜晚结果")
    assert forum.unread_for(gm) == 1
    forum.answer_as_messenger(conversation=conv, staff=gm, body="可以")
    assert forum.unread_for(gm) == 0
