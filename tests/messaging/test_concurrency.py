"""Replies written at the same moment still get distinct, gapless numbers."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from messaging import services
from messaging.models import Thread


@pytest.mark.django_db(transaction=True)
def test_concurrent_replies_get_distinct_consecutive_numbers(make_user, settings):
    settings.POSTS_PER_MINUTE = 1000
    writers = [make_user(f"写手{i}") for i in range(4)]
    thread = services.start_thread(board=services.lobby_board(), author=writers[0],
                                   kind=Thread.Kind.DISCUSSION, title="抢楼", body="1")
    per_writer = 5
    errors: list[BaseException] = []
    start = threading.Barrier(len(writers))

    def write(user):
        try:
            start.wait()
            for i in range(per_writer):
                services.reply(thread=thread, author=user, body=f"{user.pk}-{i}")
        except BaseException as exc:  # reported below; a thread cannot fail the test itself
            errors.append(exc)
        finally:
            connection.close()

    workers = [threading.Thread(target=write, args=(user,)) for user in writers]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert errors == []
    thread.refresh_from_db()
    total = 1 + per_writer * len(writers)
    assert sorted(thread.posts.values_list("number", flat=True)) == list(range(1, total + 1))
    assert thread.post_count == total == thread.last_number
    assert thread.last_post.number == total
