"""Named players and boards for the forum and conversation tests."""

from __future__ import annotations

import pytest
from django.utils import timezone

from messaging import services
from messaging.models import Board, Post, Thread
from messaging.rendering import render_markdown


def _english(user):
    """Pages in English for these users, so assertions read the English source strings
    whatever translations are compiled."""
    from accounts.models import Profile

    Profile.objects.filter(user=user).update(language="en")
    user.refresh_from_db()
    return user


@pytest.fixture
def alice(make_user):
    return _english(make_user("阿丽"))


@pytest.fixture
def bob(make_user):
    return _english(make_user("阿博"))


@pytest.fixture
def gm(make_user):
    return _english(make_user("天神甲", staff=True))


@pytest.fixture
def client(client):
    """The test client, asking for English when nobody is signed in."""
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    return client


@pytest.fixture
def messenger(db):
    from accounts.models import messenger_user

    return messenger_user()


@pytest.fixture
def lobby(db):
    return services.lobby_board()


@pytest.fixture
def game_board(db):
    return services.create_board(slug="game-1", title="第一局", kind=Board.Kind.GAME)


@pytest.fixture
def gm_board(db):
    return services.create_board(slug="gm-room", title="天神专用", kind=Board.Kind.GM)


@pytest.fixture
def discussion(lobby, alice):
    return services.start_thread(board=lobby, author=alice, kind=Thread.Kind.DISCUSSION,
                                 title="大家好", body="第一帖")


@pytest.fixture
def make_thread_with_posts(db):
    """make_thread_with_posts(board, author, n) -> a thread holding n posts, written in bulk
    (the services' per-post work is not what these tests measure)."""

    def make(board: Board, author, n: int, *, quote_every: int = 0) -> Thread:
        thread = services.start_thread(board=board, author=author, kind=Thread.Kind.DISCUSSION,
                                       title=f"{n} posts", body="post 1",
                                       enforce_rate_limit=False)
        first = thread.posts.get()
        html = render_markdown("**more**")
        Post.objects.bulk_create(
            Post(thread=thread, number=i, author=author, body="**more**", html=html,
                 quote=first if quote_every and i % quote_every == 0 else None)
            for i in range(2, n + 1))
        last = thread.posts.order_by("-number").first()
        Thread.objects.filter(pk=thread.pk).update(
            last_number=n, post_count=n, last_post=last, last_post_at=timezone.now())
        thread.refresh_from_db()
        return thread

    return make



@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """`with committed(): services.reply(...)`: the block's writes as they stand once their
    transaction has committed. A test runs inside a transaction that never commits, so the
    work the services leave to the commit (a post's search row, messaging.search) runs at
    the end of the block instead, as it runs after a request's commit."""
    return lambda: django_capture_on_commit_callbacks(execute=True)
