"""A thread page's posts, rendered once and kept in the "pages" cache (issue 17 item 1).

The markup of a page of posts is the same for every reader who may read the thread and
reads it in the same language and timezone with the same buttons, so the thread page
(`views._render_thread`) asks `posts_block` for it instead of reading 50 posts with their
authors and quotes and rendering them on every view.

What the key holds, and why it is enough:
1. the thread's id, creation time and `version`. The database bumps `version` whenever one
   of the thread's posts is written, edited, withdrawn or deleted, whatever did it (triggers,
   migration messaging 0007), so a new post, an edit by the GM (one that removes a leaked
   secret above all) or a withdrawal makes a new key at once; the creation time keeps a
   thread of a recreated database from meeting the blocks of an older one with its id;
2. the page number (pages are by position: 50 posts each, in number order);
3. the reader's language and timezone (the sentences and the times);
4. the reader's buttons: "Quote" (signed in and allowed to reply) and "Edit" (the GM);
5. `FORMAT`, a digest of the template, so a deploy that changes the markup starts afresh.
What the key does not hold is kept out of the block: each author's name and badge are
slots (`\\ue000n12\\ue000`, `\\ue000b12\\ue000`) filled on every view from one query of the
page's authors (`_people`), so a renamed author or a staff member who becomes (or stops
being) the GM shows at once. A character of a slot written by a player (in a post's HTML)
is stored as its entity `&#xe000;`, which looks the same and fills no slot.

Who may read the thread at all is decided before (`rules.can_read_thread`: GM-only threads,
GM boards, draft games' boards); nothing in a block depends on who reads it beyond the key,
and the "only this author" view and refusal pages (`cache=False`) are rendered the same way
without being kept. The cache is Redis when REDIS_URL is set (shared by every worker), else
each process's memory; a block is kept `SECONDS` and never needs deleting, because a changed
thread is read under a new key.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.template.loader import get_template
from django.utils import timezone, translation
from django.utils.html import conditional_escape
from django.utils.translation import gettext as _

from .models import Thread
from .rendering import author_badge

CACHE = "pages"
SECONDS = 3600
RECENT = 200  # blocks kept in each process's memory too (about 40 kB each)
TEMPLATE = "messaging/_posts.html"
SLOT = "\ue000"
_SLOTS = re.compile(f"{SLOT}([nb])([0-9]+){SLOT}")
_AUTHOR = ("username", "is_staff", "is_active", "profile__display_name")
# What a page shows of a post and its quote: not the Markdown source, nor the authors' whole
# rows (only what their names and badges are made of).
POST_COLUMNS = ("pk", "number", "author_id", "html", "created_at", "edited_at",
                "withdrawn_at", "quote_id", "quote__number", "quote__html", "quote__author_id",
                *(f"author__{f}" for f in _AUTHOR), *(f"quote__author__{f}" for f in _AUTHOR))
FORMAT = hashlib.sha1(
    (Path(settings.BASE_DIR) / "templates" / TEMPLATE).read_bytes()).hexdigest()[:10]


class _Recent:
    """The blocks this process used last, in front of the shared cache (no round trip, no
    unpickling for a page read again soon). A key's block never changes, so nothing here
    needs to be told about a change: a changed thread is asked for under a new key, and
    the old entries fall off the end."""

    def __init__(self, size: int):
        self.size = size
        self.entries: OrderedDict[str, tuple] = OrderedDict()
        self.lock = threading.Lock()  # gthread workers share the process

    def get(self, key: str):
        with self.lock:
            entry = self.entries.get(key)
            if entry is not None:
                self.entries.move_to_end(key)
            return entry

    def put(self, key: str, entry: tuple) -> None:
        with self.lock:
            self.entries[key] = entry
            self.entries.move_to_end(key)
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()


_recent = _Recent(RECENT)


@dataclass(frozen=True)
class Block:
    html: str            # the posts' <li>s, slots filled
    last_number: int     # the number of the page's last post (0: no post)


def posts_block(*, thread: Thread, posts, page_number: int, can_quote: bool, can_edit: bool,
                page_query: str = "", cache: bool = True) -> Block:
    """The markup of one page of `thread`'s posts.

    `posts` is the page's posts as a queryset (not evaluated unless the block must be
    rendered). Steps:
    1. Look the block up under its key (see the module's docstring), unless `cache` is off.
    2. Not there: read the posts (one query, their quotes joined), render them with slots
       for the names and badges, keep the block.
    3. Fill the slots from one query of the page's authors and quoted authors.
    Precondition: the caller checked that the reader may read `thread`.
    """
    key = None
    entry = None
    if cache:
        key = ":".join(str(part) for part in (
            "posts", thread.pk, thread.created_at.timestamp(), thread.version, page_number,
            translation.get_language(), timezone.get_current_timezone_name(),
            int(can_quote), int(can_edit), FORMAT))
        entry = _recent.get(key)
        if entry is None:
            entry = caches[CACHE].get(key)
            if entry is not None:
                _recent.put(key, entry)
    if entry is not None:
        html, people, last_number = entry
        User = get_user_model()
        rows = User.objects.filter(pk__in=people).values_list("pk", *_AUTHOR) if people else ()
    else:
        html, rows, last_number = _render(thread, posts, page_number=page_number,
                                          can_quote=can_quote, can_edit=can_edit,
                                          page_query=page_query)
        if key is not None:
            entry = (html, tuple(sorted(r[0] for r in rows)), last_number)
            caches[CACHE].set(key, entry, SECONDS)
            _recent.put(key, entry)
    return Block(html=_fill(html, rows, thread.board_id), last_number=last_number)


def _render(thread: Thread, posts, *, page_number: int, can_quote: bool, can_edit: bool,
            page_query: str) -> tuple[str, list[tuple], int]:
    """(markup with slots, the people it names as (id, *_AUTHOR) rows, the last post's
    number), from one query of the posts with their quotes and both authors joined."""
    rows = list(posts.values(*POST_COLUMNS))
    people: dict[int, tuple] = {}
    for row in rows:
        row["html"] = _inert(row["html"])
        # 神的使者 has no public page (a 404): its name is not a link.
        row["link"] = row["author_id"] if row["author_id"] and \
            row["author__username"] != settings.MESSENGER_USERNAME else None
        row["name"], row["badge"] = _slots(row["author_id"])
        if row["quote_id"]:
            row["quote__html"] = _inert(row["quote__html"])
            row["quote_name"] = _slots(row["quote__author_id"])[0]
        for prefix in ("author", "quote__author"):
            pk = row[f"{prefix}_id"]
            if pk:
                people[pk] = (pk, *(row[f"{prefix}__{f}"] for f in _AUTHOR))
    html = get_template(TEMPLATE).render({
        "posts": rows, "thread_url": thread.get_absolute_url(), "page_number": page_number,
        "page_query": page_query, "can_quote": can_quote, "can_edit": can_edit})
    return html, list(people.values()), rows[-1]["number"] if rows else 0


def _slots(pk: int | None) -> tuple[str, str]:
    """(name slot, badge slot) of the person `pk`; a deleted account's name, no badge."""
    if pk is None:
        return conditional_escape(_("(deleted account)")), ""
    return f"{SLOT}n{pk}{SLOT}", f"{SLOT}b{pk}{SLOT}"


def _inert(html: str | None) -> str:
    """A player's HTML with the slot character as an entity (looks the same, fills nothing)."""
    return (html or "").replace(SLOT, "&#xe000;")


def _fill(html: str, people, board_id: int) -> str:
    """The block with each name slot holding the person's name (escaped) and each badge slot
    their badge on this board (`rendering.author_badge`: 神的使者's, and staff's where they
    act as the GM; a staff author costs a query, to ask whether they govern the board).
    `people` are (id, *_AUTHOR) rows. A slot of someone no longer there reads as a deleted
    account."""
    User = get_user_model()
    names: dict[int, str] = {}
    badges: dict[int, str] = {}
    for pk, username, is_staff, is_active, display in people:
        names[pk] = conditional_escape(display if display is not None else username)
        if username == settings.MESSENGER_USERNAME or (is_staff and is_active):
            person = User(pk=pk, username=username, is_staff=is_staff, is_active=is_active)
            badges[pk] = str(author_badge(person, board_id))
    deleted = conditional_escape(_("(deleted account)"))

    def slot(match: re.Match) -> str:
        pk = int(match.group(2))
        if match.group(1) == "n":
            return names.get(pk, deleted)
        return badges.get(pk, "")

    return _SLOTS.sub(slot, html)


def forget_recent() -> None:
    """Empty this process's own blocks (tests: each starts with a fresh database, whose
    threads may have the ids, times and versions of another test's)."""
    _recent.clear()
