"""A board page's rows, read once per change of the board and kept (issue 17 item 1).

The board page (`views.board_detail`) lists 30 threads a page. What a row shows is the same
for every reader of the same kind, except the reader's unread count, so the page asks this
module for the page's threads as plain values instead of reading 30 threads with their last
posts, writers and profiles and counting the readable threads on every view:

- `thread_count` and `page_rows` keep, in the "pages" cache (and this process's memory in
  front of it), how many threads the reader may see and each page's row values, under
  1. the board's id, creation time and `version`. The database bumps `version` whenever one
     of the board's threads is created, changed, moved in or out or deleted (triggers,
     migration messaging 0009), and a thread's row changes with every post written, edited,
     withdrawn or deleted and every rename of a person who wrote in it (its own `version`,
     migrations 0007 and 0008): so a new thread, a reply, an edit, a title, a pin or a lock,
     a deletion and a renamed last writer each make a new key at once. The creation time
     keeps a board of a recreated database from meeting the rows of an older one;
  2. whether the reader is the board's GM (`rules.is_gm`): only a GM (or 神的使者) sees the
     GM-only threads, so their rows are kept apart; who may read the board at all is
     decided before, on every view;
  3. the page number.
  Nothing kept depends on the language or the timezone: the rows are values, and the kind's
  label, a deleted account's name and the times are put in per view.
- `unread_counts` reads the signed-in reader's marks for the page's threads (one query):
  for each thread they opened, the number of its posts after their mark; for the others,
  every post (kept with the rows: `total`), as `unread.with_read_marks` counts them.
- `render_rows` makes each row's markup through the rows kept by `messaging_tags`
  (one render per distinct row per process).
The cache is Redis (shared by every worker); an entry is kept `SECONDS` and never needs
deleting, because a changed board is read under a new key.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.cache import caches
from django.db import connection
from django.db.models import Count, IntegerField, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone, translation
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from config.memory import Recent

from .models import Board, Post, Thread, ThreadReadState
from .templatetags.messaging_tags import render_thread_row

CACHE = "pages"
SECONDS = 3600
RECENT = 200  # entries kept in each process's memory too (a page of rows: about 5 kB)
# What a row shows (messaging/_thread_row.html), and the thread's posts for the unread count.
ROW_VALUES = ("pk", "kind", "is_pinned", "is_locked", "title", "post_count", "last_post_id",
              "last_post__number", "last_post__author_id", "last_post__author__username",
              "last_post__author__profile__display_name", "last_post_at", "total")

JOINED = 1000  # pages of rows as one reader sees them, per process (about 15 kB each)

_recent = Recent(RECENT)
_joined = Recent(JOINED)


@dataclass(frozen=True)
class Row:
    """One thread as its row shows it (`name` None: the last writer's account is deleted;
    `total`: every post of the thread, the unread count of a reader who never opened it)."""

    pk: int
    kind: str
    is_pinned: bool
    is_locked: bool
    title: str
    post_count: int
    last_number: int
    name: str | None
    last_post_at: object
    total: int


def _key(board: Board, gm: bool, *rest) -> str:
    return ":".join(str(part) for part in (
        "board", board.pk, board.created_at.timestamp(), board.version, int(gm), *rest))


def _kept(key: str, make):
    entry = _recent.through(caches[CACHE], key)
    if entry is None:
        entry = make()
        _recent.keep(caches[CACHE], key, entry, SECONDS)
    return entry


def thread_count(board: Board, *, gm: bool, threads) -> int:
    """How many of `board`'s threads the reader sees. `threads()` makes that queryset,
    called only when the count is not kept. Precondition: `gm` is `rules.is_gm(reader,
    board)` and `threads()` is `rules.readable_threads(reader, board.threads.all())`."""
    return _kept(_key(board, gm, "count"), lambda: threads().count())


def rows_query(threads: QuerySet) -> QuerySet:
    """`threads` as the values of their rows, in the board's order."""
    total = (Post.objects.filter(thread=OuterRef("pk"), number__gt=0).order_by()
             .values("thread").annotate(n=Count("pk")).values("n"))
    return threads.annotate(
        total=Coalesce(Subquery(total, output_field=IntegerField()), 0)).values_list(*ROW_VALUES)


def page_rows(board: Board, *, gm: bool, threads, number: int, span: range) -> tuple[Row, ...]:
    """The rows of page `number`, the threads at positions `span` of `threads()` (read
    only when the page is not kept; same preconditions as `thread_count`)."""

    def read() -> tuple[Row, ...]:
        rows = []
        for (pk, kind, pinned, locked, title, post_count, last_id, last_number, author_id,
             username, display, last_at, total) in rows_query(threads())[span.start:span.stop]:
            name = "" if last_id is None else (
                None if author_id is None else display if display is not None else username)
            rows.append(Row(pk, kind, pinned, locked, title, post_count,
                            last_number if last_id is not None else 0, name, last_at, total))
        return tuple(rows)

    return _kept(_key(board, gm, "page", number), read)


def unread_counts(user, rows: tuple[Row, ...]) -> dict[int, int]:
    """thread id -> how many of its posts `user` has not read (one query; none for nobody
    signed in, or an empty page): after their mark where they have one, else all of them."""
    if not rows or user is None or not user.is_authenticated:
        return {}
    ids = [r.pk for r in rows]
    marks, posts = ThreadReadState._meta.db_table, Post._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT m.thread_id, (SELECT COUNT(*) FROM {posts} p WHERE p.thread_id = "
            f"m.thread_id AND p.number > m.last_read_number) FROM {marks} m "
            f"WHERE m.user_id = %s AND m.thread_id IN ({', '.join(['%s'] * len(ids))})",
            [user.pk, *ids])
        marked = dict(cursor.fetchall())
    return {r.pk: marked.get(r.pk, r.total) for r in rows}


def rows_html(board: Board, rows: tuple[Row, ...], unread: dict[int, int], *, gm: bool,
              number: int, signed_in: bool) -> SafeString:
    """The page's rows (`page_rows(board, gm=gm, number=number)`), each as
    `{% thread_row thread %}` renders it on the board page and followed by a line break,
    for a reader with these unread counts: made once per process for each such list.
    Rows kept under one key never change, so the key names them in the lookup."""
    language, zone = translation.get_language(), timezone.get_current_timezone_name()
    key = (_key(board, gm, "page", number), tuple(unread.get(r.pk, 0) for r in rows),
           signed_in, language, zone)
    html = _joined.get(key)
    if html is None:
        labels = dict(Thread.Kind.choices)
        deleted = _("(deleted account)")
        html = SafeString("".join(render_thread_row((
            r.pk, r.kind, str(labels.get(r.kind, r.kind)), r.is_pinned, r.is_locked, r.title,
            n, r.post_count, r.last_number, deleted if r.name is None else r.name,
            r.last_post_at, signed_in, "", "", language, zone)) + "\n"
            for r, n in zip(rows, key[1], strict=True)))
        _joined.put(key, html)
    return html


def forget_recent() -> None:
    """Empty this process's own entries (tests: each starts with a fresh database)."""
    _recent.clear()
    _joined.clear()
