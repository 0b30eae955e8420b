"""Unread tracking: how far each user has read each thread (`ThreadReadState`).

A thread is marked read only when its page is opened as a page (the view checks that the
request is a top-level navigation), never by an embedded request such as an <img> pointing
at the thread's URL: otherwise any post could mark threads read for whoever views it.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import Count, IntegerField, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from . import notifications, rules
from .models import Board, Post, Thread, ThreadReadState


def mark_read(*, user, thread: Thread, up_to: int) -> None:
    """Record that `user` has read `thread` up to post number `up_to` (never backwards).

    Steps:
    1. Read the current mark (one query).
    2. None yet: create it; a concurrent first visit may win the unique constraint, and
       then this one falls through to step 3 like any later visit.
    3. Move the mark forward with a conditional UPDATE, so two pages read at once keep the
       higher number whatever order they commit in.
    The notices about the posts read (replies, quotes, mentions) are read too.
    """
    if user is None or not user.is_authenticated or up_to <= 0:
        return
    notifications.read_up_to(user=user, thread=thread, number=up_to)
    current = (ThreadReadState.objects.filter(user=user, thread=thread)
               .values_list("last_read_number", flat=True).first())
    if current is None:
        try:
            with transaction.atomic():
                ThreadReadState.objects.create(user=user, thread=thread, last_read_number=up_to)
            return
        except IntegrityError:
            current = 0
    if current < up_to:
        ThreadReadState.objects.filter(user=user, thread=thread,
                                       last_read_number__lt=up_to).update(last_read_number=up_to)


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
