"""A board page's rows, kept in Django's cache under the board's version (docs/architecture.md,
"The forum's read path").

A board page (`views.board_detail`) lists a page of the board's threads. A row shows the same
to every reader who may see it, but for two things, put in on every view:
- the reader's unread count and mark (signed in: the thread's posts after their read mark,
  as `unread.with_read_marks` counts them; nobody else has any), so no reader's unread state
  is ever kept for another;
- the last writer's name, which no version covers (a rename moves none).
Both come from one query of the page's threads as they are now (`_now`). The rest of each row
(kind, flags, title and its link, number of posts, time of the last post) is rendered once
per key, cut where those two go in (`SLOT`), and kept with the number of threads its readers
see (the page's pagination), under:
1. the board's id, creation time and `version`: every service that changes what the board's
   list shows moves it in its transaction (a thread created, changed, moved in or out or
   deleted, a post written or deleted: messaging.services), so a change is read under a new
   key at once;
2. whether the reader is the board's GM (`rules.is_gm`): of a board a reader may read, the
   GM-only threads are the only ones some of its readers may not (`rules.can_read_thread`),
   and only its GMs (and 神的使者) see them. Who may read the board at all is decided before,
   on every view (`rules.can_read_board`): a hidden board's rows (a draft game's board, a
   graveyard: `rules.hidden_boards_q`) reach only the readers it is shown to;
3. whether the reader is signed in (a signed-in reader's title links to their first unread
   post), the page, the language, the timezone and `config.build.BUILD`.
Nothing is deleted: an entry falls out after `SECONDS`. With Redis away every read is a
miss (config.cache.DegradingRedisCache): the rows are rendered from the database.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.cache import cache
from django.core.paginator import Page, Paginator
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from config.build import BUILD
from config.inputs import parse_page

from . import rules, unread
from .models import Board, Thread
from .templatetags.messaging_tags import new_mark

SECONDS = 3600
THREADS_PER_PAGE = 30
TEMPLATE = "messaging/_board_rows.html"
# Where a kept row takes the reader's unread class and mark and the last writer's name:
# markup no text of a row can hold (every text in it is escaped, so no "<").
SLOT = mark_safe("<!--slot-->")  # noqa: S308 (a constant)
ROW_END = "<!--row-->"


@dataclass(frozen=True)
class Row:
    """A thread's row as kept: its id and its markup, cut at its slots (the unread class,
    the unread mark, and for a thread with posts the last writer's name)."""

    pk: int
    parts: tuple[str, ...]


@dataclass(frozen=True)
class Kept:
    """What a page keeps: how many threads its readers see, and its rows in order."""

    count: int
    rows: tuple[Row, ...]


def _key(board: Board, *, gm: bool, signed_in: bool, number: int) -> str:
    return ":".join(str(part) for part in (
        "board-rows", board.pk, board.created_at.timestamp(), board.version, int(gm),
        int(signed_in), number, translation.get_language(),
        timezone.get_current_timezone_name(), BUILD))


def board_page(*, board: Board, user, asked: str | None) -> tuple[Page, SafeString]:
    """Page `asked` (`?page=`: a number, "last", anything else the first) of `board`'s
    threads as `user` sees them, and its rows' markup with `user`'s unread counts and the
    last writers' names as they are now (one query; a page not kept adds the count of the
    threads and their page's rows). Precondition: `user` may read `board`
    (`rules.can_read_board`)."""
    gm = rules.is_gm(user, board)
    signed_in = user.is_authenticated
    number = parse_page(asked)
    guess = number if isinstance(number, int) else 1
    kept = cache.get(_key(board, gm=gm, signed_in=signed_in, number=guess))
    threads = None if kept else rules.readable_threads(user, board.threads.all())
    paginator = Paginator(range(kept.count if kept else threads.count()), THREADS_PER_PAGE)
    page = (paginator.page(paginator.num_pages) if number == "last"
            else paginator.get_page(number))
    key = _key(board, gm=gm, signed_in=signed_in, number=page.number)
    if page.number != guess:
        kept = cache.get(key)
    if kept is None:
        span = page.object_list
        if threads is None:
            threads = rules.readable_threads(user, board.threads.all())
        kept = Kept(paginator.count, _render(threads[span.start:span.stop], signed_in))
        cache.set(key, kept, SECONDS)
    return page, _filled(kept.rows, _now(user, [row.pk for row in kept.rows]))


def _render(threads, signed_in: bool) -> tuple[Row, ...]:
    """The rows of `threads` (a page of a board's), cut at their slots (one query)."""
    threads = list(threads.select_related("last_post"))
    html = render_to_string(TEMPLATE, {"threads": threads, "slot": SLOT, "end": ROW_END,
                                       "signed_in": signed_in})
    cut = html.split(ROW_END)[:len(threads)]
    return tuple(Row(thread.pk, tuple(text.split(SLOT)))
                 for thread, text in zip(threads, cut, strict=True))


def _now(user, ids: list[int]) -> dict[int, tuple[int, str]]:
    """{thread id: (`user`'s unread count, its last writer's name)} for the threads `ids`,
    as they are now (one query; none for an empty page)."""
    if not ids:
        return {}
    deleted = _("(deleted account)")
    rows = unread.with_read_marks(Thread.objects.filter(pk__in=ids).order_by(), user).values_list(
        "pk", "unread_count", "last_post__author_id", "last_post__author__username",
        "last_post__author__profile__display_name")
    return {pk: (count, deleted if author is None else display if display is not None
                 else username)
            for pk, count, author, username, display in rows}


def _filled(rows: tuple[Row, ...], now: dict[int, tuple[int, str]]) -> SafeString:
    """The rows' markup with each one's slots filled from `now` (`_now`)."""
    out = []
    for row in rows:
        count, name = now.get(row.pk, (0, ""))
        fills = (" has-unread" if count else "", new_mark(count) if count else "",
                 escape(name))
        text = [row.parts[0]]
        for fill, part in zip(fills, row.parts[1:], strict=False):
            text += (fill, part)
        out.append("".join(text))
    return mark_safe("\n".join(out))  # noqa: S308 (kept markup, escaped fills)
