"""A thread page's posts, rendered once and kept in the "pages" cache (issue 17 item 1).

The markup of a page of posts is the same for every reader who may read the thread and
reads it in the same language and timezone with the same buttons, so the thread page
(`views._render_thread`) asks `posts_block` for it instead of reading 50 posts with their
authors and quotes and rendering them on every view.

What the key holds, and why it is enough:
1. the thread's id, creation time and `version`. The database bumps `version` whenever one
   of the thread's posts is written, edited, withdrawn or deleted, whatever did it (triggers,
   migration messaging 0007), so a new post, an edit by the GM (one that removes a leaked
   secret above all) or a withdrawal makes a new key at once; and whenever a person who
   wrote in the thread changes name (display name or username) or starts or stops being
   active staff (migration 0008), so the names, 神的使者's badge and which authors may have a
   staff badge are part of the block. The creation time keeps a thread of a recreated
   database from meeting the blocks of an older one with its id;
2. the page number (pages are by position: 50 posts each, in number order);
3. the reader's language and timezone (the sentences and the times);
4. the reader's buttons: "Quote" (signed in and allowed to reply) and "Edit" (the GM);
5. `FORMAT`, a digest of the template, and `config.build.BUILD` (the project's code,
   templates and catalogues), so a deploy that changes the markup or a sentence starts
   afresh even in a cache shared by every machine.
What the key does not hold is kept out of the block: whether an active staff author acts
as the GM on this board (a game's GM and co-GMs who never held a seat; that changes with
the game, not with the thread) is asked on every view, one query per staff author of the
page, and filled into their badge slot (`\ue000b12\ue000`). A slot character written by a
player (in a post's HTML) is stored as its entity `&#xe000;`, which looks the same and
fills no slot.

Who may read the thread at all is decided before (`rules.can_read_thread`: GM-only threads,
GM boards, draft games' boards); nothing in a block depends on who reads it beyond the key,
and the "only this author" view and refusal pages (`cache=False`) are rendered the same way
without being kept. The cache is Redis (shared by every worker); a block is kept `SECONDS`
and never needs deleting, because a changed thread is read under a new key.
"""

from __future__ import annotations

import hashlib
import pickle
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.template.loader import get_template
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from config.build import BUILD
from config.memory import Recent

from .models import Thread
from .rendering import author_badge

CACHE = "pages"
SECONDS = 3600
RECENT = 200  # blocks kept in each process's memory too (about 40 kB each)
TEMPLATE = "messaging/_posts.html"
SLOT = "\ue000"
_SLOTS = re.compile(f"{SLOT}b([0-9]+){SLOT}")
_AUTHOR = ("username", "is_staff", "is_active", "profile__display_name")
# What a page shows of a post and its quote: not the Markdown source, nor the authors' whole
# rows (only what their names and badges are made of).
POST_COLUMNS = ("pk", "number", "author_id", "html", "created_at", "edited_at",
                "withdrawn_at", "quote_id", "quote__number", "quote__html", "quote__author_id",
                *(f"author__{f}" for f in _AUTHOR), *(f"quote__author__{f}" for f in _AUTHOR))
FORMAT = hashlib.sha1(
    (Path(settings.BASE_DIR) / "templates" / TEMPLATE).read_bytes()).hexdigest()[:10]


# The blocks this process used last, in front of the shared cache (no round trip, no
# unpickling for a page read again soon).
_recent = Recent(RECENT)


@dataclass(frozen=True)
class Block:
    html: str            # the posts' <li>s, slots filled (unless asked with fill=False)
    last_number: int     # the number of the page's last post (0: no post)
    first_number: int = 0  # the number of the page's first post (0: no post)
    fill: Callable[[], str] | None = None  # fill=False: the filled markup, asked later


def posts_block(*, thread: Thread, posts, page_number: int, can_quote: bool, can_edit: bool,
                page_query: str = "", cache: bool = True, fill: bool = True) -> Block:
    """The markup of one page of `thread`'s posts.

    `posts` is the page's posts as a queryset (not evaluated unless the block must be
    rendered). Steps:
    1. Look the block up under its key (see the module's docstring), unless `cache` is off.
    2. Not there: read the posts (one query, their quotes joined), render them with slots
       for the names and badges, keep the block.
    3. Fill the slots from one query of the page's authors and quoted authors; with
       `fill=False`, `Block.fill` does it when asked (a page kept for anonymous readers
       asks on every answer: config.anonymous_pages's kept holes).
    Precondition: the caller checked that the reader may read `thread`.
    """
    key = None
    entry = None
    if cache:
        key = ":".join(str(part) for part in (
            "posts", thread.pk, thread.created_at.timestamp(), thread.version, page_number,
            translation.get_language(), timezone.get_current_timezone_name(),
            int(can_quote), int(can_edit), FORMAT, BUILD))
        entry = _recent.through(caches[CACHE], key)
    if entry is None:
        entry = _render(thread, posts, page_number=page_number, can_quote=can_quote,
                        can_edit=can_edit, page_query=page_query)
        if key is not None:
            _recent.keep(caches[CACHE], key, entry, SECONDS)
    html, staff, last_number, first_number = entry
    if not fill and staff:  # no staff author: nothing to fill, the block is final
        board_id = thread.board_id
        return Block(html="", last_number=last_number, first_number=first_number,
                     fill=lambda: _fill(html, staff, board_id))
    return Block(html=_fill(html, staff, thread.board_id), last_number=last_number,
                 first_number=first_number)


def _render(thread: Thread, posts, *, page_number: int, can_quote: bool, can_edit: bool,
            page_query: str) -> tuple[str, tuple[tuple, ...], int, int]:
    """(markup with a badge slot for each staff author, those authors as (id, username,
    is_staff, is_active), the last post's number, the first post's number), from one query
    of the posts with their quotes and both authors joined."""
    rows = list(posts.values(*POST_COLUMNS))
    staff: dict[int, tuple] = {}
    for row in rows:
        row["html"] = _inert(row["html"])
        row["name"] = _name(row, "author")
        messenger = row["author__username"] == settings.MESSENGER_USERNAME
        # 神的使者 has no public page (a 404): its name is not a link.
        row["link"] = row["author_id"] if row["author_id"] and not messenger else None
        row["badge"] = ""
        if messenger:
            row["badge"] = author_badge(_person(row["author_id"], row["author__username"],
                                                False, False), thread.board_id)
        elif row["author__is_staff"] and row["author__is_active"]:
            row["badge"] = f"{SLOT}b{row['author_id']}{SLOT}"
            staff[row["author_id"]] = (row["author_id"], row["author__username"], True, True)
        if row["quote_id"]:
            row["quote__html"] = _inert(row["quote__html"])
            row["quote_name"] = _name(row, "quote__author")
    html = get_template(TEMPLATE).render({
        "posts": rows, "thread_url": thread.get_absolute_url(), "page_number": page_number,
        "page_query": page_query, "can_quote": can_quote, "can_edit": can_edit})
    return (html, tuple(staff.values()), rows[-1]["number"] if rows else 0,
            rows[0]["number"] if rows else 0)


def _name(row: dict, prefix: str) -> str:
    """The name shown for the post's (or its quote's) author (accounts.models.display_name;
    a deleted account's)."""
    if row[f"{prefix}_id"] is None:
        return _("(deleted account)")
    display = row[f"{prefix}__profile__display_name"]
    return display if display is not None else row[f"{prefix}__username"]


def _person(pk, username, is_staff, is_active):
    return get_user_model()(pk=pk, username=username, is_staff=is_staff, is_active=is_active)


def _inert(html: str | None) -> str:
    """A player's HTML with the slot character as an entity (looks the same, fills nothing)."""
    return (html or "").replace(SLOT, "&#xe000;")


def _fill(html: str, staff: tuple[tuple, ...], board_id: int) -> str:
    """The block with each staff author's badge slot holding their badge on this board
    (`rendering.author_badge`: whether they act as the GM here, one query each). Names,
    staff status and 神的使者's badge are part of the block: the thread's version moves when
    any of them changes (migration messaging 0008)."""
    if not staff:
        return html
    badges = {pk: str(author_badge(_person(pk, *rest), board_id)) for pk, *rest in staff}
    return _SLOTS.sub(lambda match: badges.get(int(match.group(1)), ""), html)


def forget_recent() -> None:
    """Empty this process's own blocks and rows (tests: each starts with a fresh database,
    whose threads may have the ids, times and versions of another test's)."""
    _recent.clear()
    _rows.clear()


# The thread page's thread with its board and game, pickled, by (id, rows digest).
_rows = Recent(RECENT)


def thread_by_digest(pk: int, digest: str, load: Callable[[], Thread]) -> Thread:
    """The thread `load()` reads (with its board and game), kept pickled in this process's
    memory under `thread_rows_digest`, so a page view that has the digest costs no second
    query; each call gets its own copy, which the caller may change. `load` runs after the
    digest was read, so what it keeps is as new as the digest or newer (a row changed in
    between is kept under the old digest, which no later read asks for)."""
    kept = _rows.get((pk, digest))
    if kept is not None:
        return pickle.loads(kept)  # noqa: S301 (written by this process, just below)
    thread = load()
    _rows.put((pk, digest), pickle.dumps(thread))
    return thread


def thread_rows_digest(pk: int) -> str | None:
    """A digest of the thread's row, its board's and its board's game's (every column but
    the board's two that follow its other threads, `BOARD_MOVES`), in one short query
    without the ORM (None when there is no such thread): the key of the page kept for
    anonymous readers (config.anonymous_pages). Any change to any of the three rows changes
    it: a post (the thread's `version`), a title, a lock, a game's phase or state (the
    game's row through `row_version_field` when its model names one: a column the database
    moves on every change of the row). Whether an anonymous reader may read the thread
    follows from the same rows (rules.can_read_thread), so a page kept under a digest was
    readable for them under it."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(_ROWS_SQL, [pk])
        row = cursor.fetchone()
    return row[0] if row else None


BOARD_MOVES = ("version", "last_post_at")


def _rows_sql() -> str:
    board = Thread._meta.get_field("board").related_model
    game = board._meta.get_field("game")  # the game that owns the board (reverse one-to-one)
    game_table = game.related_model._meta.db_table
    game_board = game.field.column
    # The board's columns but the two that move with every thread of the board (its
    # `version`, migration 0009, and its last post's time, both for the board list; no
    # thread page shows them): a post in one thread must not make every other thread's
    # kept page and rows be read again.
    columns = ", ".join(f"b.{f.column}" for f in board._meta.concrete_fields
                        if f.name not in BOARD_MOVES)
    # The game's row through the column the database moves on its every change, when it has
    # one (games 0015 `page_version`: its state is not turned into text on every view).
    moved = getattr(game.related_model, "row_version_field", None)
    game_row = (f"g.{game.related_model._meta.get_field(moved).column}::text" if moved
                else "ROW(g.*)::text")
    return (f'SELECT md5(ROW(t.*)::text || ROW({columns})::text || '
            f'coalesce({game_row}, \'\')) '
            f'FROM {Thread._meta.db_table} t JOIN {board._meta.db_table} b ON b.id = t.board_id '
            f'LEFT JOIN {game_table} g ON g.{game_board} = b.id WHERE t.id = %s')


_ROWS_SQL = _rows_sql()
