"""Read marks under concurrency, on real PostgreSQL: first visits racing for the unique
(user, thread) row, and pages read in any order never moving a mark backwards."""

from __future__ import annotations

import threading

import pytest
from django.db import close_old_connections, connection

from messaging import unread
from messaging.models import ThreadReadState

pytestmark = pytest.mark.django_db(transaction=True)


def _together(fns):
    barrier = threading.Barrier(len(fns))
    errors = []

    def run(fn):
        try:
            barrier.wait()
            fn()
        except Exception as exc:  # surfaced below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(fn,)) for fn in fns]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    close_old_connections()
    return errors


def test_racing_first_visits_leave_one_mark_at_the_highest_floor(
        lobby, alice, bob, make_thread_with_posts):
    thread = make_thread_with_posts(lobby, alice, 120)
    floors = [50, 120, 80, 100, 10, 120, 60, 90]
    errors = _together([lambda n=n: unread.mark_read(user=bob, thread=thread, up_to=n)
                        for n in floors])
    assert errors == []
    assert list(ThreadReadState.objects.filter(user=bob, thread=thread)
                .values_list("last_read_number", flat=True)) == [120]
