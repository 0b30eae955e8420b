"""The thread page's cached parts, kept in Django's cache (Redis) under keys made of the
versions the services move (docs/architecture.md, "Read path").

1. The thread's authors (`thread_people`): the ids of everyone who wrote in the thread, in
   the order they first did, kept under the thread's `version` (every post written, edited,
   withdrawn or deleted moves it: messaging.services). Their names and badges are read
   afresh on every view (one query, plus one per staff author: whether they act as the GM
   on this board), so a rename or a change of staff status shows at once.
2. A page of posts (`posts_html`): the markup of the posts numbered in one page's floor
   range, kept under the thread's `version`, the page, the reader's language and timezone,
   the reader's buttons (quote: signed in and allowed to reply; edit: the GM), the digest
   of the thread's authors as read in 1 (`Person`: id, name, badge), and
   `config.build.BUILD` (the code, templates and catalogues that render it).

3. The whole page for a reader who is not signed in (`anonymous_page`): the answer's markup,
   kept under the thread's `version`, its board's title and lock, its game's `page_version`
   (the vote box above a vote thread follows the votes) and name, the page asked for, the language,
   the timezone and the authors' digest as in 2. Such a page holds nothing of its reader:
   no CSRF token (its header switches the language by a link, accounts.views.set_language,
   and its script keeps the timezone in a cookie), no draft, no read mark. A page with a
   message waiting for its reader (after signing out), or asked for with anything but
   `?page=`, is rendered afresh.

Nothing else goes into a block, and every reader who gets the same key would see the same
markup: who may read the thread at all is decided before (`rules.can_read_thread`). A key
is never reused for other content, so nothing is ever deleted: an entry falls out after
`SECONDS`. With Redis away, every read is a miss (config.cache.DegradingRedisCache) and the
page is rendered from the database.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models import Min
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from config.build import BUILD

from .models import Thread
from .rendering import author_badge

SECONDS = 3600
TEMPLATE = "messaging/_posts.html"
# What a page shows of a post and its quote (not the Markdown source; the authors' names
# and badges come from `thread_people`).
POST_COLUMNS = ("pk", "number", "author_id", "html", "created_at", "edited_at",
                "withdrawn_at", "quote_id", "quote__number", "quote__html",
                "quote__author_id")


@dataclass(frozen=True)
class Person:
    """An author as the thread page shows them: their name, whether the name links to their
    profile (神的使者 has none), and the badge after it on this board."""

    pk: int
    name: str
    link: bool
    badge: SafeString


def _key(*parts) -> str:
    return ":".join(str(part) for part in (*parts, BUILD))


def thread_people(thread: Thread) -> list[Person]:
    """Everyone who wrote in `thread`, in the order they first did, as they are now: the ids
    kept under the thread's version (a miss: one query of the thread's posts), then one
    query of their names, and one per active staff author for their badge on this board."""
    ids = cache.get_or_set(
        _key("thread-authors", thread.pk, thread.created_at.timestamp(), thread.version),
        lambda: list(thread.posts.exclude(author=None).values("author_id")
                     .annotate(first=Min("number")).order_by("first")
                     .values_list("author_id", flat=True)),
        SECONDS)
    if not ids:
        return []
    rows = {row[0]: row for row in get_user_model().objects.filter(pk__in=ids).values_list(
        "pk", "username", "is_staff", "is_active", "profile__display_name")}
    people = []
    for pk in ids:
        if pk not in rows:  # deleted since the list was kept: its posts show no author
            continue
        _pk, username, is_staff, is_active, display = rows[pk]
        messenger = username == settings.MESSENGER_USERNAME
        badge = SafeString("")
        if messenger or (is_staff and is_active):
            badge = author_badge(get_user_model()(
                pk=pk, username=username, is_staff=is_staff, is_active=is_active),
                thread.board_id)
        people.append(Person(pk=pk, name=display if display is not None else username,
                             link=not messenger, badge=badge))
    return people


def people_digest(people: list[Person]) -> str:
    """A short digest of what the posts show of their authors."""
    text = "\n".join(f"{p.pk}\t{p.name}\t{int(p.link)}\t{p.badge}" for p in people)
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def posts_html(*, thread: Thread, posts, page_number: int, people: list[Person],
               can_quote: bool, can_edit: bool, page_query: str = "",
               cached: bool = True) -> str:
    """The markup of `posts` (a queryset of `thread`'s posts, read only when the block is
    not kept) as page `page_number` shows them. With `cached`, kept under the key the module
    describes: the caller passes the posts of one page's floor range of the whole thread
    (the "only this author" view and refusal pages pass `cached=False`).
    Precondition: the reader may read `thread`; `people` is `thread_people(thread)`."""
    def render() -> str:
        return render_posts(thread=thread, posts=posts, page_number=page_number, people=people,
                            can_quote=can_quote, can_edit=can_edit, page_query=page_query)

    if not cached:
        return render()
    return cache.get_or_set(
        _key("posts", thread.pk, thread.created_at.timestamp(), thread.version, page_number,
             translation.get_language(), timezone.get_current_timezone_name(), int(can_quote),
             int(can_edit), people_digest(people)),
        render, SECONDS)


def render_posts(*, thread: Thread, posts, page_number: int, people: list[Person],
                 can_quote: bool, can_edit: bool, page_query: str = "") -> str:
    """`posts` rendered (one query: the posts with their quotes), never kept: the page's
    block on a miss, and the parts a live page fetches (messaging.live_parts)."""
    by_pk = {p.pk: p for p in people}
    deleted = _("(deleted account)")
    rows = list(posts.values(*POST_COLUMNS))
    for row in rows:
        author = by_pk.get(row["author_id"])
        row["name"] = author.name if author else deleted
        row["link"] = author.pk if author and author.link else None
        row["badge"] = author.badge if author else ""
        if row["quote_id"]:
            quoted = by_pk.get(row["quote__author_id"])
            row["quote_name"] = quoted.name if quoted else deleted
    return render_to_string(TEMPLATE, {
        "posts": rows, "thread_url": thread.get_absolute_url(), "page_number": page_number,
        "page_query": page_query, "can_quote": can_quote, "can_edit": can_edit})


def _digest(*parts) -> str:
    return hashlib.sha1(repr(parts).encode()).hexdigest()[:12]


def _page_asked(request) -> str | None:
    """The page a reader asks for when that is all they ask (`?page=N` or `last`, or
    nothing), else None: any other query (the jump to a floor, 只看, a quote, anything a link
    from elsewhere added) is answered afresh, so a query cannot fill the cache with copies."""
    if not request.GET:
        return ""
    page = request.GET.getlist("page")
    if len(request.GET) != 1 or len(page) != 1:
        return None
    value = page[0]
    if value == "last" or (value.isascii() and value.isdigit() and len(value) <= 6):
        return value
    return None


def anonymous_page(request, thread: Thread, render) -> HttpResponse:
    """The thread page for a reader who is not signed in: kept whole (the module's part 3)
    when nothing about this request is the reader's own, else `render()` as it is.
    On a miss `render(people)` makes the response (a 200 is kept) with the authors as read
    here; a hit costs one cache read and the authors' names (`thread_people`).
    Precondition: the reader may read `thread` and is not signed in; `render` answers this
    request, with the authors given or reading them itself."""
    from django.contrib.messages import get_messages

    page = _page_asked(request)
    if page is None or request.method != "GET" or len(get_messages(request)):
        return render()
    people = thread_people(thread)
    board = thread.board
    game = getattr(board, "game", None)
    key = _key("anonymous-page", thread.pk, thread.created_at.timestamp(), thread.version,
               _digest(board.slug, board.title, board.is_locked),
               _digest(game.pk, game.page_version, game.name) if game else "-",
               page, translation.get_language(), timezone.get_current_timezone_name(),
               people_digest(people))
    html = cache.get(key)
    if html is not None:
        return HttpResponse(html)
    response = render(people)
    # A page that used its reader's CSRF token (a form) or set a cookie is theirs alone.
    if response.status_code == 200 and not response.cookies \
            and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE"):
        cache.set(key, response.content, SECONDS)
    return response
