"""A post's search row is written once its transaction has committed: no writer keeps the
search index (nor flushes its pending list into it, a few hundred milliseconds every few
hundred posts) while it holds the thread's or the board's lock, so the replies queued behind
that lock never wait for it. A write of the row that fails leaves the post stored and the
page answered; `manage.py index_posts` writes the rows that are missing."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.db import DatabaseError, OperationalError, connection, connections

from messaging import search, services
from messaging.models import Post, PostSearch

pytestmark = pytest.mark.django_db(transaction=True)
SEARCH = "/search/"


def _found(client, query: str) -> list[int]:
    import re

    return [int(pk) for pk in re.findall(r'<a class="title" href="/p/(\d+)/">',
                                         client.get(SEARCH, {"q": query}).content.decode())]


class LocksWhenIndexed:
    """Watches the default connection's statements; at each write of a search row, asks
    from a second connection whether the rows given as (table, column, value) can be
    locked at once."""

    def __init__(self, rows):
        self.rows, self.seen = rows, []
        self.other = connections.create_connection("default")

    def __call__(self, execute, sql, params, many, context):
        if sql.lstrip().upper().startswith('INSERT INTO "MESSAGING_POSTSEARCH"'):
            free = {}
            for table, column, value in self.rows:
                try:
                    with self.other.cursor() as cursor:
                        cursor.execute(f"SELECT 1 FROM {table} WHERE {column} = %s "
                                       "FOR UPDATE NOWAIT", [value])
                    free[table] = True
                except OperationalError:  # "could not obtain lock": a writer holds it
                    free[table] = False
            self.seen.append(free)
        return execute(sql, params, many, context)

    def close(self):
        self.other.close()


def test_a_reply_is_indexed_after_the_thread_and_its_board_are_unlocked(client, lobby, alice):
    thread = services.start_thread(board=lobby, author=alice, kind="discussion", title="讨论",
                                   body="第一帖")
    watch = LocksWhenIndexed([("messaging_thread", "id", thread.pk),
                              ("messaging_board", "id", lobby.pk)])
    client.force_login(alice)
    try:
        with connection.execute_wrapper(watch):
            response = client.post(f"/t/{thread.pk}/reply/", {"body": "我查杀了三号"})
    finally:
        watch.close()
    assert response.status_code == 302
    assert watch.seen == [{"messaging_thread": True, "messaging_board": True}]
    post = thread.posts.get(number=2)
    assert "查杀" in PostSearch.objects.get(post=post).terms.split()
    assert _found(client, "查杀") == [post.pk]


def test_a_new_thread_is_indexed_after_its_board_is_unlocked(lobby, alice):
    watch = LocksWhenIndexed([("messaging_board", "id", lobby.pk),
                              ("messaging_thread", "board_id", lobby.pk)])
    try:
        with connection.execute_wrapper(watch):
            thread = services.start_thread(board=lobby, author=alice, kind="discussion",
                                           title="第一天分析", body="金水")
    finally:
        watch.close()
    assert watch.seen == [{"messaging_board": True, "messaging_thread": True}]
    assert PostSearch.objects.get(post__thread=thread).text == "第一天分析\n金水"


def test_an_edit_is_indexed_after_the_thread_is_unlocked(lobby, alice, gm):
    thread = services.start_thread(board=lobby, author=alice, kind="discussion", title="讨论",
                                   body="我是预言家")
    post = thread.posts.get()
    watch = LocksWhenIndexed([("messaging_thread", "id", thread.pk)])
    try:
        with connection.execute_wrapper(watch):
            services.edit_post(post=post, editor=gm, body="（已删除）")
    finally:
        watch.close()
    assert watch.seen == [{"messaging_thread": True}]
    assert "预言家" not in PostSearch.objects.get(post=post).text


def test_a_failed_index_write_leaves_the_reply_posted_and_index_posts_repairs_it(
        client, lobby, alice, monkeypatch):
    thread = services.start_thread(board=lobby, author=alice, kind="discussion", title="讨论",
                                   body="第一帖")

    def database_gone(post_id):
        raise DatabaseError("server closed the connection unexpectedly")

    monkeypatch.setattr(search, "index_post", database_gone)
    client.force_login(alice)
    response = client.post(f"/t/{thread.pk}/reply/", {"body": "狼毒在我这里"})
    assert response.status_code == 302  # the reply is stored and answered, never a 500
    post = Post.objects.get(thread=thread, number=2)
    assert not PostSearch.objects.filter(post=post).exists()
    assert _found(client, "狼毒") == []
    monkeypatch.undo()
    out = io.StringIO()
    call_command("index_posts", stdout=out)
    assert out.getvalue() == "1 posts indexed\n"
    assert _found(client, "狼毒") == [post.pk]
    assert search.index_missing() == 0  # nothing left to write; running it again is harmless


def test_a_reply_quoting_a_post_does_not_wait_for_that_posts_index_write(lobby, alice, bob,
                                                                         monkeypatch):
    """The index write locks the post's row (two writes of one post keep their order), in
    a mode a new reply's reference to it (its quote) does not wait for: the reply holds the
    thread's lock, so waiting there would queue every reply behind the index again."""
    import threading

    thread = services.start_thread(board=lobby, author=alice, kind="discussion", title="讨论",
                                   body="三号是金水")
    post = thread.posts.get()
    inside, release = threading.Event(), threading.Event()
    row = search._row

    def slow_row(p):  # the index write stopped while it holds the post's row
        inside.set()
        release.wait(10)
        return row(p)

    monkeypatch.setattr(search, "_row", slow_row)
    errors = []

    def index():
        try:
            search.index_post(post.pk)
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    writer = threading.Thread(target=index)
    writer.start()
    try:
        assert inside.wait(10)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '2s'")
        try:
            quoting = services.reply(thread=thread, author=bob, body="同意", quote=post)
        finally:
            with connection.cursor() as cursor:
                cursor.execute("RESET lock_timeout")
    finally:
        release.set()
        writer.join(10)
    assert errors == [] and quoting.quote_id == post.pk


def test_the_change_feeds_events_for_a_reply_leave_before_its_search_row_is_written(
        lobby, alice, monkeypatch):
    """Open pages hear of the reply first; the index write (now and then a flush of its
    pending list) comes after the feed's publishing."""
    from config import feed

    thread = services.start_thread(board=lobby, author=alice, kind="discussion", title="讨论",
                                   body="第一帖")
    order = []
    publish, index_post = feed.publish, search.index_post
    monkeypatch.setattr(feed, "publish", lambda payload: (order.append(payload["t"]),
                                                          publish(payload)))
    monkeypatch.setattr(search, "index_post", lambda pk: (order.append("search"),
                                                          index_post(pk)))
    services.reply(thread=thread, author=alice, body="金水", enforce_rate_limit=False)
    assert order[-1] == "search" and {"thread", "board"} <= set(order[:-1])
