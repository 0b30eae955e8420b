"""The per-game GM inbox on the console: the players' messages waiting
for an answer, in arrival order, with links; automatic messages and page views never clear
it; answering or marking handled does; another game's conversation is a 404."""

import datetime as dt

import pytest
from django.urls import reverse

from messaging import services as forum
from messaging.models import Conversation, Message

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "chinese")]


def console(client, game):
    html = client.get(reverse("admin:games_game_console", args=[game.pk])).content.decode()
    return html.split('id="inbox"', 1)[1].split("</fieldset>", 1)[0]


def command(client, game, name, **data):
    return client.post(reverse("admin:games_game_command", args=[game.pk, name]), data,
                       follow=True)


@pytest.fixture
def host(make_user):
    return make_user("主持人丙", staff=True, superuser=False)


@pytest.fixture
def hosted(host, players):
    from games import services

    g = services.create_game(name="有人提问", ruleset="toy", gm=host, seat_count=5,
                             durations={"night": 60, "day": 60})
    return services.start_game(game_id=g.pk, users=players, seed="fixed-seed")


def write(game, player, body, when):
    message = forum.write_to_messenger(author=player, body=body, board=game.board)
    Message.objects.filter(pk=message.pk).update(created_at=when)
    return message


def test_waiting_messages_in_arrival_order_and_automatic_messages_leave_them(
        client, hosted, host, players):
    t0 = dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.UTC)
    write(hosted, players[2], "我想请假两天", t0)
    write(hosted, players[0], "夜里能换牌吗？", t0 + dt.timedelta(minutes=5))
    write(hosted, players[2], "还有一个问题", t0 + dt.timedelta(minutes=9))
    forum.send_as_messenger(conversation=Conversation.objects.get(owner=players[2]),
                            body="你的夜间结果：平安。")  # automatic: no written_by
    client.force_login(host)
    inbox = console(client, hosted)
    order = [inbox.index(t) for t in ("我想请假两天", "夜里能换牌吗？", "还有一个问题")]
    assert order == sorted(order)
    assert "3. 小白" in inbox and "1. 阿猫" in inbox
    assert "你的夜间结果" not in inbox
    conversation = Conversation.objects.get(owner=players[2])
    link = reverse("admin:messaging_conversation_change", args=[conversation.pk])
    assert link in inbox
    assert client.get(link).status_code == 200  # a plain host opens it
    console(client, hosted)  # page views clear nothing
    conversation.refresh_from_db()
    assert conversation.staff_unread == 2


def test_mark_handled_and_answer_clear_their_conversation_only(client, hosted, host, players):
    t0 = dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.UTC)
    write(hosted, players[2], "我想请假两天", t0)
    write(hosted, players[0], "夜里能换牌吗？", t0 + dt.timedelta(minutes=5))
    client.force_login(host)
    leave = Conversation.objects.get(owner=players[2])
    question = Conversation.objects.get(owner=players[0])
    command(client, hosted, "mark_handled", conversation=leave.pk)
    inbox = console(client, hosted)
    assert "我想请假两天" not in inbox and "夜里能换牌吗？" in inbox
    command(client, hosted, "answer", conversation=question.pk, body="不能，夜里一张牌。")
    assert "没有等待回复的消息" in console(client, hosted)
    answer = question.messages.get(written_by__isnull=False)
    assert answer.written_by == host and "一张牌" in answer.body


def test_an_empty_answer_is_a_message_and_stores_nothing(client, hosted, host, players):
    write(hosted, players[0], "在吗", dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.UTC))
    client.force_login(host)
    conversation = Conversation.objects.get(owner=players[0])
    response = command(client, hosted, "answer", conversation=conversation.pk, body="  ")
    assert response.status_code == 200
    assert not conversation.messages.filter(written_by__isnull=False).exists()
    conversation.refresh_from_db()
    assert conversation.staff_unread == 1


def test_another_games_conversation_is_a_404_and_changes_nothing(client, hosted, host, gm,
                                                                 crowd):
    from games import services

    game = services.create_game(name="别人的局", ruleset="toy", gm=gm, seat_count=5,
                                durations={"night": 60, "day": 60})
    game = services.start_game(game_id=game.pk, users=crowd[:5], seed="other")
    other_player = game.seats.get(number=1).user
    forum.write_to_messenger(author=other_player, body="别人的问题", board=game.board)
    theirs = Conversation.objects.get(owner=other_player, board=game.board)
    client.force_login(host)
    for name, data in [("mark_handled", {}), ("answer", {"body": "乱答"})]:
        response = client.post(reverse("admin:games_game_command", args=[hosted.pk, name]),
                               {"conversation": theirs.pk, **data})
        assert response.status_code == 404
        response = client.post(reverse("admin:games_game_command", args=[game.pk, name]),
                               {"conversation": theirs.pk, **data})
        assert response.status_code == 404
    theirs.refresh_from_db()
    assert theirs.staff_unread == 1
    assert not theirs.messages.filter(written_by__isnull=False).exists()
    link = reverse("admin:messaging_conversation_change", args=[theirs.pk])
    assert client.get(link).status_code in (302, 404)
    assert "别人的问题" not in client.get(link, follow=True).content.decode()
