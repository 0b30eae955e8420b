"""Unread tracking: how far each user has read each thread (`ThreadReadState`).

A thread is marked read only when its page is opened as a page (the view checks that the
request is a top-level navigation), never by an embedded request such as an <img> pointing
at the thread's URL: otherwise any post could mark threads read for whoever views it.
"""

from __future__ import annotations

from django.db import connection
from django.db.models import Count, IntegerField, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from . import notifications, rules
from .models import Board, Post, Thread, ThreadReadState


def mark_read(*, user, thread: Thread, up_to: int, unread_notices: bool = True,
              seen_from: int = 1) -> int:
    """Record that `user` has read `thread` up to post number `up_to` (never backwards), and
    read the notices about the posts seen, numbered `seen_from` to `up_to` (the page shown:
    replies, quotes, mentions on other pages stay unread). Returns how many notices that
    read.

    The mark is one statement, `INSERT … SELECT … WHERE no mark as high ON CONFLICT (user,
    thread) DO UPDATE … WHERE the stored number is lower`: a first visit creates it, a later
    one moves it forward, and a page read again neither writes nor locks anything. Two pages read at once keep the higher number whatever
    order they commit in, and racing first visits leave one row (the unique constraint
    decides, in the database). `unread_notices=False` (the header's count says the user has
    none) skips the notices' UPDATE.
    """
    if user is None or not user.is_authenticated or up_to <= 0:
        return 0
    read = 0
    if unread_notices:
        read = notifications.read_seen(user=user, thread=thread, first=seen_from, last=up_to)
    table = ThreadReadState._meta.db_table
    # A page read again (the mark already there) selects no row to insert, so it locks and
    # writes nothing: ON CONFLICT … DO UPDATE would lock the row even when its WHERE is
    # false, and a locked row makes the statement a write to commit (a WAL flush per view).
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (user_id, thread_id, last_read_number, updated_at) "  # noqa: S608
            f"SELECT %s, %s, %s, %s WHERE NOT EXISTS (SELECT 1 FROM {table} WHERE "
            "user_id = %s AND thread_id = %s AND last_read_number >= %s) "
            "ON CONFLICT (user_id, thread_id) DO UPDATE SET "
            f"last_read_number = GREATEST({table}.last_read_number, "
            "excluded.last_read_number), updated_at = excluded.updated_at "
            f"WHERE {table}.last_read_number < excluded.last_read_number",
            [user.pk, thread.pk, up_to, timezone.now(), user.pk, thread.pk, up_to])
    return read


def mark_board_read(*, user, board: Board) -> int:
    """Mark every thread of `board` that `user` may read as read to its last post (全部标为已读).

    One SELECT and one INSERT … ON CONFLICT UPDATE, whatever the number of threads; a thread's
    `last_number` never decreases, so overwriting the mark never moves it backwards.
    Returns the number of threads marked.
    """
    threads = list(rules.readable_threads(user, board.threads.all())
                   .values_list("pk", "last_number"))
    ThreadReadState.objects.bulk_create(
        [ThreadReadState(user=user, thread_id=pk, last_read_number=last)
         for pk, last in threads],
        update_conflicts=True, unique_fields=["user", "thread"],
        update_fields=["last_read_number", "updated_at"])
    return len(threads)


def with_read_marks(threads: QuerySet, user) -> QuerySet:
    """`threads` annotated with `read_up_to` (0: never opened) and `unread_count` for `user`.

    Two correlated subqueries on indexed columns (the unique (user, thread) mark and the
    unique (thread, number) posts), so a page of threads costs no extra query.
    """
    if user is None or not user.is_authenticated:
        return threads.annotate(read_up_to=Value(0, IntegerField()),
                                unread_count=Value(0, IntegerField()))
    mark = (ThreadReadState.objects.filter(user=user, thread=OuterRef("pk"))
            .values("last_read_number")[:1])
    unread = (Post.objects.filter(thread=OuterRef("pk"), number__gt=OuterRef("read_up_to"))
              .order_by().values("thread").annotate(n=Count("pk")).values("n"))
    return threads.annotate(
        read_up_to=Coalesce(Subquery(mark, output_field=IntegerField()), 0),
    ).annotate(unread_count=Coalesce(Subquery(unread, output_field=IntegerField()), 0))


def first_unread_post(*, user, thread: Thread) -> Post | None:
    """The first post of `thread` that `user` has not read, or None if they read them all."""
    read = 0
    if user is not None and user.is_authenticated:
        read = (ThreadReadState.objects.filter(user=user, thread=thread)
                .values_list("last_read_number", flat=True).first()) or 0
    return thread.posts.filter(number__gt=read).order_by("number").first()
