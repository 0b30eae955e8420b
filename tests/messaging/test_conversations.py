"""Private conversations with 神的使者: only the owner reads them, staff answer in its name."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from messaging import services
from messaging.context_processors import unread
from messaging.models import MAX_BODY_LENGTH, Conversation, Message
from messaging.services import PostingRefused

pytestmark = pytest.mark.django_db
HOME = reverse("messaging-conversation-home")
GENERAL = reverse("messaging-conversation-general")  # where the general conversation lives


def _detail(conversation):
    return reverse("messaging-conversation", args=[conversation.pk])


@pytest.fixture
def alices(alice, messenger):
    """Alice's general conversation, with one message each way."""
    conversation = services.conversation_for(owner=alice)
    services.send_to_messenger(conversation=conversation, author=alice, body="我用狙击手打3号")
    services.send_as_messenger(conversation=conversation, body="收到")
    return conversation


def test_player_sends_a_message_from_the_page(client, alice, messenger):
    client.force_login(alice)
    assert client.get(HOME).status_code == 200
    assert not Conversation.objects.exists()  # reading does not create anything
    response = client.post(HOME, {"body": "今晚我验5号"})
    assert response.status_code == 302 and response["Location"] == GENERAL
    conversation = Conversation.objects.get()
    assert conversation.owner == alice and conversation.board is None
    assert conversation.staff_unread == 1
    assert "今晚我验5号" in client.get(HOME).content.decode()


@pytest.mark.parametrize("method", ["get", "post"])
def test_another_users_conversation_is_a_404(client, alices, bob, method):
    client.force_login(bob)
    response = getattr(client, method)(_detail(alices), {"body": "偷看"})
    assert response.status_code == 404
    assert alices.messages.count() == 2


def test_guessing_ids_finds_only_your_own_conversation(client, alices, bob, game_board):
    own = services.conversation_for(owner=bob, board=game_board)
    client.force_login(bob)
    found = [pk for pk in range(1, own.pk + 5)
             if client.get(reverse("messaging-conversation", args=[pk])).status_code == 200]
    assert found == [own.pk]


def test_staff_cannot_read_players_conversations_on_the_site(client, alices, gm):
    client.force_login(gm)
    assert client.get(_detail(alices)).status_code == 404


def test_anonymous_visitor_is_sent_to_sign_in(client, alices):
    for url in (HOME, _detail(alices), reverse("messaging-conversation-list")):
        response = client.get(url)
        assert response.status_code == 302 and reverse("account_login") in response["Location"]


def test_general_page_shows_only_your_own_messages(client, alices, bob):
    bobs = services.conversation_for(owner=bob)
    services.send_to_messenger(conversation=bobs, author=bob, body="鲍勃的秘密")
    client.force_login(alice := alices.owner)
    html = client.get(HOME).content.decode()
    assert "我用狙击手打3号" in html and "鲍勃的秘密" not in html
    client.force_login(bob)
    html = client.get(HOME).content.decode()
    assert "鲍勃的秘密" in html and "我用狙击手打3号" not in html
    assert alice != bob


def test_conversation_list_shows_only_your_own(client, alices, bob, game_board):
    services.conversation_for(owner=bob, board=game_board)
    client.force_login(alices.owner)
    html = client.get(reverse("messaging-conversation-list")).content.decode()
    assert game_board.title not in html
    client.force_login(bob)
    html = client.get(reverse("messaging-conversation-list")).content.decode()
    assert game_board.title in html


def test_service_refuses_a_message_from_someone_else(alices, bob):
    with pytest.raises(PostingRefused) as refused:
        services.send_to_messenger(conversation=alices, author=bob, body="冒充")
    assert refused.value.code == "not_found"
    assert alices.messages.count() == 2


@pytest.mark.parametrize("body", ["", "   ", "长" * (MAX_BODY_LENGTH + 1)])
def test_empty_or_overlong_message_gets_400_and_nothing_is_stored(client, alice, body):
    client.force_login(alice)
    response = client.post(HOME, {"body": body})
    assert response.status_code == 400
    assert 'role="alert"' in response.content.decode()
    assert not Message.objects.exists() and not Conversation.objects.exists()


def test_staff_answer_arrives_from_the_messenger_without_naming_the_staff(
        client, alices, gm):
    services.answer_as_messenger(conversation=alices, staff=gm, body="你的行动已记录")
    message = alices.messages.last()
    assert message.from_messenger and message.written_by == gm
    assert message.sender.get_username() == settings.MESSENGER_USERNAME
    client.force_login(alices.owner)
    html = client.get(HOME).content.decode()
    assert "你的行动已记录" in html
    assert settings.MESSENGER_NAME in html
    assert "天神甲" not in html


def test_only_staff_may_answer_as_the_messenger(alices, bob):
    with pytest.raises(PostingRefused):
        services.answer_as_messenger(conversation=alices, staff=bob, body="我是神")
    assert alices.messages.count() == 2


def test_unread_count_in_the_header_until_the_owner_reads(client, alice, gm, messenger):
    conversation = services.conversation_for(owner=alice)
    client.force_login(alice)
    assert 'id="unread-count"' not in client.get(reverse("lobby")).content.decode()
    services.answer_as_messenger(conversation=conversation, staff=gm, body="一")
    services.answer_as_messenger(conversation=conversation, staff=gm, body="二")
    lobby_page = client.get(reverse("lobby")).content.decode()
    assert 'id="unread-count">2<' in lobby_page
    client.get(HOME)  # reading the conversation
    assert 'id="unread-count"' not in client.get(reverse("lobby")).content.decode()


def test_staff_see_unanswered_player_messages_as_unread(client, alice, bob, gm):
    for user in (alice, bob):
        services.send_to_messenger(conversation=services.conversation_for(owner=user),
                                   author=user, body="在吗")
    assert services.unread_for(gm) == 2
    assert services.unread_for(alice) == 0
    services.answer_as_messenger(conversation=services.conversation_for(owner=alice),
                                 staff=gm, body="在")
    assert services.unread_for(gm) == 1
    assert services.unread_for(alice) == 1


def test_unread_counts_sum_over_game_conversations(alice, game_board, messenger):
    services.send_as_messenger(conversation=services.conversation_for(owner=alice), body="a")
    services.send_as_messenger(
        conversation=services.conversation_for(owner=alice, board=game_board), body="b")
    assert services.unread_for(alice) == 2


@pytest.mark.parametrize("staff", [False, True])
def test_unread_context_processor_is_lazy_and_takes_one_query(alice, gm, staff):
    request = RequestFactory().get("/")
    request.user = gm if staff else alice
    with CaptureQueriesContext(connection) as unused:
        context = unread(request)
    assert len(unused) == 0
    with CaptureQueriesContext(connection) as used:
        assert int(str(context["unread_count"])) == 0
        assert int(str(context["notification_count"])) == 0
    # A GM's count also asks which games' conversations they answer (one more query).
    assert len(used) == (2 if staff else 1)


def test_handover_moves_the_conversation_to_the_substitute(client, game_board, alice, bob,
                                                           messenger):
    seat = services.conversation_for(owner=alice, board=game_board)
    services.send_as_messenger(conversation=seat, body="你的牌是狙击手")
    client.force_login(alice)
    assert client.get(_detail(seat)).status_code == 200
    services.hand_over_conversation(conversation=seat, new_owner=bob)
    assert client.get(_detail(seat)).status_code == 404
    assert client.post(_detail(seat), {"body": "我还在"}).status_code == 404
    with pytest.raises(PostingRefused):
        services.send_to_messenger(conversation=seat, author=alice, body="我还在")
    client.force_login(bob)
    assert services.unread_for(bob) == 1
    html = client.get(_detail(seat)).content.decode()
    assert "你的牌是狙击手" in html
    assert services.unread_for(bob) == 0


def test_one_general_conversation_per_user(alice):
    first = services.conversation_for(owner=alice)
    assert services.conversation_for(owner=alice) == first
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        Conversation.objects.create(owner=alice, board=None)


def test_messages_are_rendered_safely(client, alice):
    client.force_login(alice)
    client.post(HOME, {"body": "<script>alert(1)</script>[x](javascript:alert(1))"})
    html = client.get(HOME).content.decode()
    assert "<script>alert(1)" not in html and 'href="javascript:' not in html


def test_message_rate_limit(client, settings, alice):
    settings.POSTS_PER_MINUTE = 1
    client.force_login(alice)
    assert client.post(HOME, {"body": "一"}).status_code == 302
    assert client.post(HOME, {"body": "二"}).status_code == 429
    assert Message.objects.count() == 1
