"""One limiter (config/ratelimit.py) on posts and messages; a refused
request is a 429 with a message and a Retry-After, and creates nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.http import HttpResponse
from django.test import RequestFactory
from django.urls import reverse

from config.ratelimit import RateLimited, consume, limit_writes
from messaging import services
from messaging.models import Conversation, Message, Post, Thread

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("one_rate_window")]
HOME = reverse("messaging-conversation-home")


def test_a_rate_limited_first_message_creates_no_conversation(client, settings, alice,
                                                              messenger):
    settings.POSTS_PER_MINUTE = 1
    services.check_rate_limit(alice, scope="messages")  # the minute's one message is spent
    client.force_login(alice)
    response = client.post(HOME, {"body": "第二条"})
    assert response.status_code == 429
    assert int(response["Retry-After"]) >= 1
    assert "at most 1 time a minute" in response.content.decode()
    assert Conversation.objects.count() == 0 and Message.objects.count() == 0


def test_the_rate_limit_message_is_in_chinese_by_default(client, settings, make_user,
                                                         messenger):
    settings.POSTS_PER_MINUTE = 1
    user = make_user("小明")
    services.check_rate_limit(user, scope="messages")
    client.force_login(user)
    response = client.post(HOME, {"body": "你好"})
    assert response.status_code == 429
    assert "每分钟最多" in response.content.decode()


def test_a_rate_limited_reply_stores_nothing(client, settings, discussion, bob):
    settings.POSTS_PER_MINUTE = 1
    client.force_login(bob)
    url = reverse("messaging-reply", args=[discussion.pk])
    assert client.post(url, {"body": "一"}).status_code == 302
    response = client.post(url, {"body": "二"})
    assert response.status_code == 429 and "Retry-After" in response
    assert Post.objects.filter(thread=discussion).count() == 2


def test_a_rate_limited_new_thread_stores_nothing(client, settings, lobby, bob):
    settings.POSTS_PER_MINUTE = 1
    client.force_login(bob)
    url = reverse("messaging-thread-new", args=[lobby.slug])
    data = {"kind": Thread.Kind.DISCUSSION, "title": "一", "body": "内容"}
    assert client.post(url, data).status_code == 302
    response = client.post(url, dict(data, title="二"))
    assert response.status_code == 429
    assert Thread.objects.count() == 1 and Post.objects.count() == 1


def test_posts_and_messages_have_their_own_budgets(settings, discussion, bob, messenger):
    settings.POSTS_PER_MINUTE = 1
    services.reply(thread=discussion, author=bob, body="帖")
    message = services.write_to_messenger(author=bob, body="信")
    assert message.conversation.owner == bob


def test_consume_counts_per_scope_and_key(settings):
    for _ in range(2):
        consume(scope="test.scope", who="user:1", rate="2/m")
    with pytest.raises(RateLimited) as refused:
        consume(scope="test.scope", who="user:1", rate="2/m")
    assert refused.value.retry_after >= 1
    consume(scope="test.scope", who="user:2", rate="2/m")
    consume(scope="test.other", who="user:1", rate="2/m")


def test_rate_limits_off_turns_the_limiter_off(settings):
    settings.RATELIMIT_ENABLE = False
    for _ in range(5):
        consume(scope="test.off", who="user:1", rate="1/m")


def test_limit_writes_refuses_before_the_view_runs(db, alice):
    calls = []

    @limit_writes("test.view", "2/m")
    def view(request):
        calls.append(request.method)
        return HttpResponse("ok")

    factory = RequestFactory()

    def send(method, user):
        request = getattr(factory, method)("/x/")
        request.user = user
        request.LANGUAGE_CODE = "en"
        return view(request)

    assert [send("post", alice).status_code for _ in range(3)] == [200, 200, 429]
    assert send("get", alice).status_code == 200  # reading is never limited
    assert send("post", AnonymousUser()).status_code == 200  # by address, its own budget
    assert calls == ["POST", "POST", "GET", "POST"]


def test_a_rate_limit_a_view_lets_escape_is_a_429_page(db):
    from config.middleware import RefusalMiddleware

    request = RequestFactory().post("/x/")
    request.user = AnonymousUser()
    response = RefusalMiddleware(lambda r: HttpResponse()).process_exception(
        request, RateLimited("慢一点", retry_after=7))
    assert response.status_code == 429 and response["Retry-After"] == "7"
    assert "慢一点" in response.content.decode()
