"""A board page's rows, kept in Django's cache under the board's version (docs/architecture.md,
"The forum's read path").

A board page (`views.board_detail`) lists a page of the board's threads. A row shows the same
to every reader who may see it, but for two things, put in on every view:
- the reader's unread count and mark (signed in: the thread's posts after their read mark,
  as `unread.with_read_marks` counts them; nobody else has any), so no reader's unread state
  is ever kept for another;
- the last writer's name, which no version covers (a rename moves none).
Both come from one query of the page's threads as they are now (`_now`: their counters and
last writers, the reader's marks joined). The rest of each row
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

The board itself (its row with its game's, as the view reads it) is kept too (`kept_board`),
under the tokens messaging.blocks keeps for the board page (the board's and its game's,
deleted when a write that moves either's version commits, and the writers' names'), so a
board read again is no query: its version, which keys the rows, is the one as of the last
write that moved it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.cache import cache
from django.core.paginator import Page, Paginator
from django.db.models import Count, FilteredRelation, Q
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from config.build import BUILD
from config.inputs import parse_page

from . import blocks, rules
from .models import Board, Post, Thread
from .templatetags.messaging_tags import new_mark

SECONDS = 3600
# How long whether a reader may start a thread on a board is kept at most (`start_state`).
START_SECONDS = 60
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
    as they are now: one query of the threads' counters and last writers, with `user`'s
    read marks joined (none for an empty page). The unread count is what
    `unread.with_read_marks` counts, the posts after the mark: a thread's posts are
    numbered 1 to `last_number` with none missing while `post_count` is `last_number`, so
    it is the posts past the mark; where posts were deleted (a gap) and the mark falls
    inside, one query more counts them."""
    if not ids:
        return {}
    deleted = _("(deleted account)")
    threads = Thread.objects.filter(pk__in=ids).order_by()
    columns = ["pk", "post_count", "last_number", "last_post__author_id",
               "last_post__author__username", "last_post__author__profile__display_name"]
    signed_in = user.is_authenticated
    if signed_in:
        threads = threads.annotate(mark=FilteredRelation("reads", condition=Q(reads__user=user)))
        columns.append("mark__last_read_number")
    out, gaps = {}, {}
    for pk, count, last, author, username, display, *mark in threads.values_list(*columns):
        name = deleted if author is None else display if display is not None else username
        read = (mark[0] or 0) if signed_in else last
        if read >= last:
            unread = 0
        elif count == last:
            unread = last - read
        else:
            gaps[pk], unread = read, 0
        out[pk] = (unread, name)
    if gaps:
        after = Q()
        for pk, read in gaps.items():
            after |= Q(thread_id=pk, number__gt=read)
        for pk, unread in (Post.objects.filter(after).order_by().values("thread_id")
                           .annotate(n=Count("pk")).values_list("thread_id", "n")):
            out[pk] = (unread, out[pk][1])
    return out


def kept_board(slug: str, read, tokens: dict[str, str] | None = None
               ) -> tuple[Board, dict[str, str] | None]:
    """The board of `slug` (with its game) as `read(slug)` reads it (or what it raises),
    kept under the tokens of the board and its game (messaging.blocks.tokens_of: deleted
    when a write that moves either's version commits; `tokens` if the caller read them
    already, before anything of the board), so a board read again costs two cache reads
    and no query; a miss costs one query more than `read` (the tokens' ids). Returns the
    board and the tokens it is kept under (None when the cache holds none)."""
    key = ":".join(("board-kept", slug, BUILD))
    entry = cache.get(key)
    if entry is not None and blocks.current(entry[0]):
        return entry[1], entry[0]
    tokens = tokens or blocks.tokens_of("board", slug)
    board = read(slug)
    if tokens:
        cache.set(key, (tokens, board), SECONDS)
    return board, tokens


def start_state(user, board: Board, tokens: dict[str, str] | None, ask
                ) -> tuple[bool, str | None]:
    """Whether `user` may start a thread on `board` and, if not, why (`ask(user, board)`:
    the forum's rules and the other apps' checks, the games' among them), kept for
    `START_SECONDS` under the board's and its game's tokens (`kept_board`: any change of
    either), `user`'s token (messaging.blocks.held_tokens: deleted at every event of
    theirs on the change feed, their access among them: a watcher's start or end, a
    revival), their staff and active flags and the language; each a new key when it moves.
    What no key holds (another game of theirs starting or ending, a substitution) reaches
    the button within `START_SECONDS`: the button is a hint, and the new-thread page and
    the service ask again on every request. Not kept when the cache holds no tokens."""
    own = blocks.held_tokens([("user", user.pk)]) if tokens else None
    if not own:
        return ask(user, board)
    key = ":".join(str(part) for part in (
        "board-start", user.pk, int(user.is_staff), int(user.is_active), board.pk,
        *sorted(tokens.values()), *own.values(), translation.get_language(), BUILD))
    found = cache.get(key)
    if found is None:
        found = ask(user, board)
        cache.set(key, found, START_SECONDS)
    return found


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
