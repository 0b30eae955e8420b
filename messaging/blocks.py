"""The thread page's cached parts and the pages kept whole for readers who are not signed in
(the thread page's, the board page's), kept in Django's cache (Redis) under keys made of the
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

3. The whole page for a reader who is not signed in (`kept_anonymous_page`): the answer's
   markup, kept under the page asked for, the language and the timezone, with a token for
   each of the thread, its board and its board's game. A token is a random string held in
   the cache; the change feed's listener (`forget`) deletes it once a write that moved that
   object's version commits (every post, edit, title, lock or move of the thread; a
   thread of the board created, moved or deleted; anything the game's pages show, such as
   the vote box above a vote thread), so the kept page no longer matches and the next
   reader's page is rendered afresh. The tokens are read before the page is rendered: a
   write that commits in between deletes a token the new page is kept under. A hit costs
   two cache reads and no query. What no token covers (an author's new name, a change of
   staff status) reaches such readers when the page falls out, after `KEPT_SECONDS`.
   Such a page holds nothing of its reader: no CSRF token (its header switches the
   language by a link, accounts.views.set_language, and its script keeps the timezone in
   a cookie), no draft, no read mark. A page with a message waiting for its reader (after
   signing out), or asked for with anything but `?page=`, is rendered afresh.
4. A board page for a reader who is not signed in, kept whole the same way (the same
   functions, `what="board"`, under the board's slug), with the tokens of the board, its
   game, and the writers' names: each row names its thread's last writer, so a rename
   (`names_changed`, called by whoever renames: the profile page through
   games.services.profile_saved, the admin) deletes that token and every kept board page
   is rendered afresh for its next visitor. A board page kept is no query.

Nothing else goes into a block, and every reader who gets the same key would see the same
markup: who may read the thread at all is decided before a page is rendered
(`rules.can_read_thread`). A kept anonymous page was readable without signing in when it
was kept, and whatever could change that (the thread's kind, its board's kind, a game
hiding its board) moves a version whose token the page holds. Parts 1 and 2 use keys never
reused for other content, so nothing of them is deleted: an entry falls out after
`SECONDS`. With Redis away, every read is a miss (config.cache.DegradingRedisCache) and the
page is rendered from the database; no token is made, so nothing is kept.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import transaction
from django.db.models import Min
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from config.build import BUILD

from . import rules
from .models import Board, Thread
from .rendering import author_badge

SECONDS = 3600
# How long an anonymous reader's whole page is kept at most: what no token covers (an
# author's new name, a change of staff status) reaches such readers within this time.
KEPT_SECONDS = 30
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
    # A running game's board names its players as they were called when it started.
    named = rules.board_names(thread.board)
    for pk in ids:
        if pk not in rows:  # deleted since the list was kept: its posts show no author
            continue
        _pk, username, is_staff, is_active, display = rows[pk]
        display = named.get(pk, display)
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


def _token_key(kind: str, pk: int) -> str:
    return f"anonymous-token:{kind}:{pk}"


@functools.cache
def forget(kind: str):
    """The change feed's listener for `kind` ("thread", "board", "game", "user"): once a
    write that moved that object's version (a user's: any event of theirs) commits, the token the kept anonymous pages hold for it is
    deleted, and every such page that depends on it is a miss from then on."""
    def listener(pk: int, version: int) -> None:
        cache.delete(_token_key(kind, pk))
    return listener


def names_changed() -> None:
    """A name the forum shows of someone who writes moved (a display name, a username, a
    profile removed): once the current transaction commits (at once outside one), the token
    every kept anonymous board page holds for the writers' names is deleted, so the next
    visitor reads the new name (the board pages name each thread's last writer, which no
    version covers). Called by whoever renames (games.services.profile_saved, the admin)."""
    transaction.on_commit(lambda: cache.delete(_token_key("names", 0)), robust=True)


def _page_key(request, what: str, ident, page: str) -> str:
    return _key("anonymous-page", what, ident, page, translation.get_language(),
                timezone.get_current_timezone_name())


def _keepable(request) -> str | None:
    """The page asked for, when the answer to `request` may be kept (a GET asking only for a
    page, no message waiting for the reader), else None. Precondition: not signed in."""
    from django.contrib.messages import get_messages

    page = _page_asked(request)
    if page is None or request.method != "GET" or len(get_messages(request)):
        return None
    return page


def kept_anonymous_page(request, what: str, ident) -> HttpResponse | None:
    """The page of `what` ("thread": thread `ident`'s, "board": the board of slug `ident`)
    as kept for a reader who is not signed in, if every token it was kept under is still
    current; else None. Two cache reads, no query. Precondition: not signed in."""
    page = _keepable(request)
    if page is None:
        return None
    entry = cache.get(_page_key(request, what, ident, page))
    if entry is None:
        return None
    tokens, html = entry
    return HttpResponse(html) if current(tokens) else None


def anonymous_page_tokens(request, what: str, ident) -> dict[str, str] | None:
    """The tokens the page of `what` `ident` (`kept_anonymous_page`) is kept under, as they
    are now (`tokens_of`), to keep the page about to be rendered under; None when the answer
    to `request` is not kept (`_keepable`). Precondition: the reader is not signed in."""
    return None if _keepable(request) is None else tokens_of(what, ident)


def tokens_of(what: str, ident) -> dict[str, str] | None:
    """The tokens of what the page of `what` `ident` shows, as they are now (a token not
    held yet is made):
    - a thread's: the thread's, its board's and its board's game's;
    - a board's: the board's, its game's (the breadcrumb names the game; a game that hides
      its board moves its version) and the writers' names' (`names_changed`: each row
      names its thread's last writer, which no version covers).
    One query (the board's and the game's ids). Read before what is kept under them is,
    so that a write committing in between deletes a token it is kept under. None when
    there is no such thread or board, or the cache holds no tokens (Redis away)."""
    if what == "thread":
        ids = Thread.objects.filter(pk=ident).values_list("board_id", "board__game__pk").first()
        objects = [("thread", ident)]
    else:
        ids = Board.objects.filter(slug=ident).values_list("pk", "game__pk").first()
        objects = [("names", 0)]
    if ids is None:
        return None
    objects += [("board", ids[0]), *([("game", ids[1])] if ids[1] is not None else [])]
    return held_tokens(objects)


def held_tokens(objects: list[tuple[str, int]]) -> dict[str, str] | None:
    """The tokens of `objects` ((kind, id) pairs: "thread", "board", "game", "user",
    "names"), as they are now, a token not held yet made (a "user" token is deleted by
    every event of that user: their access, their notices); None when the cache holds
    none (Redis away)."""
    keys = [_token_key(kind, pk) for kind, pk in objects]
    tokens = cache.get_many(keys)
    for key in keys:
        if key not in tokens:
            cache.add(key, secrets.token_hex(8), SECONDS)
    if len(tokens) < len(keys):
        tokens = cache.get_many(keys)
    return tokens if len(tokens) == len(keys) else None


def current(tokens: dict[str, str]) -> bool:
    """Whether every one of `tokens` (`tokens_of`) is still held (one cache read)."""
    return cache.get_many(list(tokens)) == tokens


def keep_anonymous_page(request, what: str, ident, tokens: dict[str, str] | None,
                        response: HttpResponse) -> HttpResponse:
    """Keep `response`, the page of `what` `ident` (`kept_anonymous_page`) rendered for a
    reader who is not signed in, under `tokens` (read before it was rendered) for
    `KEPT_SECONDS`: a 200 that holds nothing of its reader (no cookie set, no CSRF token
    used), asked for as `_keepable` allows. Returns `response`."""
    page = _keepable(request)
    if tokens and page is not None and response.status_code == 200 \
            and not response.cookies and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE"):
        cache.set(_page_key(request, what, ident, page), (tokens, response.content),
                  KEPT_SECONDS)
    return response
