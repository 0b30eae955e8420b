"""The GM console: every messaging model is listed, and staff answer as 神的使者 there."""

from __future__ import annotations

import pytest
from django.urls import reverse

from messaging import services
from messaging.models import Board, Conversation, Message, Post, Thread

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("response_context")]


@pytest.fixture
def staff_client(client, gm):
    client.force_login(gm)
    return client


@pytest.fixture
def waiting(alice, bob, messenger, gm):
    """Alice waits for an answer; Bob has been answered by the GM (an automatic message from
    神的使者 would leave him waiting)."""
    alices = services.conversation_for(owner=alice)
    services.send_to_messenger(conversation=alices, author=alice, body="请问规则")
    bobs = services.conversation_for(owner=bob)
    services.send_to_messenger(conversation=bobs, author=bob, body="你好")
    services.send_as_messenger(conversation=bobs, body="你好", written_by=gm)
    return alices, bobs


@pytest.mark.parametrize("model", [Board, Thread, Post, Conversation, Message])
def test_every_model_has_a_searchable_filtered_changelist(staff_client, model, discussion,
                                                          waiting):
    url = reverse(f"admin:messaging_{model._meta.model_name}_changelist")
    response = staff_client.get(url)
    assert response.status_code == 200
    assert staff_client.get(url, {"q": "阿丽"}).status_code == 200
    assert response.context["cl"].has_filters


def test_waiting_filter_shows_only_unanswered_conversations(staff_client, waiting):
    alices, bobs = waiting
    url = reverse("admin:messaging_conversation_changelist")
    shown = list(staff_client.get(url, {"waiting": "yes"}).context["cl"].result_list)
    assert shown == [alices]
    shown = list(staff_client.get(url, {"waiting": "no"}).context["cl"].result_list)
    assert shown == [bobs]


def test_search_finds_a_conversation_by_the_players_name(staff_client, waiting):
    alices, _bobs = waiting
    url = reverse("admin:messaging_conversation_changelist")
    assert list(staff_client.get(url, {"q": "阿丽"}).context["cl"].result_list) == [alices]


def test_staff_answer_from_the_admin_as_the_messenger(staff_client, waiting, gm):
    alices, _bobs = waiting
    url = reverse("admin:messaging_conversation_change", args=[alices.pk])
    page = staff_client.get(url)
    assert page.status_code == 200 and "请问规则" in page.content.decode()
    response = staff_client.post(url, {"answer": "规则见置顶帖", "_continue": "1"})
    assert response.status_code == 302
    answer = alices.messages.last()
    assert answer.body == "规则见置顶帖" and answer.from_messenger and answer.written_by == gm
    alices.refresh_from_db()
    assert alices.owner_unread == 1 and alices.staff_unread == 0
    # The console names the staff member behind the answer; the player's page never does.
    assert "天神甲" in staff_client.get(url).content.decode()


def test_opening_a_conversation_in_the_admin_leaves_it_waiting(staff_client, waiting):
    # No GET of the console clears a waiting flag (an image planted in a
    # post could make the GM's browser send one); tests/messaging/test_embedded_requests.py.
    alices, _bobs = waiting
    staff_client.get(reverse("admin:messaging_conversation_change", args=[alices.pk]))
    alices.refresh_from_db()
    assert alices.staff_unread == 1


def test_saving_without_an_answer_sends_nothing(staff_client, waiting):
    alices, _bobs = waiting
    url = reverse("admin:messaging_conversation_change", args=[alices.pk])
    assert staff_client.post(url, {"answer": "  ", "_continue": "1"}).status_code == 302
    assert alices.messages.count() == 1


def test_overlong_admin_answer_is_refused(staff_client, waiting):
    from messaging.models import MAX_BODY_LENGTH

    alices, _bobs = waiting
    url = reverse("admin:messaging_conversation_change", args=[alices.pk])
    response = staff_client.post(url, {"answer": "长" * (MAX_BODY_LENGTH + 1)})
    assert response.status_code == 200  # the form again, with the error
    assert alices.messages.count() == 1


def test_player_cannot_open_the_admin(client, alice, waiting):
    client.force_login(alice)
    response = client.get(reverse("admin:messaging_conversation_changelist"))
    assert response.status_code == 302


def test_editing_a_post_in_the_admin_renders_it_safely(staff_client, discussion):
    post = discussion.posts.get()
    url = reverse("admin:messaging_post_change", args=[post.pk])
    assert staff_client.get(url).status_code == 200
    staff_client.post(url, {"body": "<script>x</script>**已编辑**", "quote": ""})
    post.refresh_from_db()
    assert "<strong>已编辑</strong>" in post.html and "<script>" not in post.html
    assert post.edited_at is not None


def test_deleting_posts_in_the_admin_keeps_the_thread_counters_right(staff_client, discussion,
                                                                      bob):
    second = services.reply(thread=discussion, author=bob, body="二")
    third = services.reply(thread=discussion, author=bob, body="三")
    staff_client.post(reverse("admin:messaging_post_delete", args=[third.pk]), {"post": "yes"})
    discussion.refresh_from_db()
    assert discussion.post_count == 2 and discussion.last_post == second
    response = staff_client.post(reverse("admin:messaging_post_changelist"), {
        "action": "delete_selected", "_selected_action": [second.pk], "post": "yes"})
    assert response.status_code == 302
    discussion.refresh_from_db()
    assert discussion.post_count == 1 and discussion.last_post.number == 1
    # A new reply still gets a fresh number, never a reused one.
    assert services.reply(thread=discussion, author=bob, body="四").number == 4
