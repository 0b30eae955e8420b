"""The only writers of the forum and of the conversations with 神的使者.

Views, admin actions, the games app and the demo loader all call these keyword-only
functions. Every rule is enforced here (see `messaging.rules`), and a refusal raises
`PostingRefused` with a readable, translatable message; nothing is stored when one is raised.

Versions: every writer here that changes what a thread page shows moves `Thread.version`,
and one that changes what a board's list shows (a thread created, changed, moved or deleted,
a new post) moves `Board.version`, in the same transaction, and calls `config.feed.changed`
for each, which publishes once the transaction commits. The cached parts of the pages are
keyed by these numbers (docs/architecture.md, "Read path"); nothing else moves them.
"""

from __future__ import annotations

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Case, F, Sum, Value, When
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.names import has_invisible, visible_text
from config import feed
from config.ratelimit import RateLimited, consume

from . import hooks, notifications, rules, search
from .mentions import render_with_mentions
from .models import (
    MAX_BODY_LENGTH,
    MAX_TITLE_LENGTH,
    Board,
    Conversation,
    Message,
    Post,
    PostRevision,
    Thread,
)
from .rendering import render_post


def without_game_columns(path: str) -> list[str]:
    """The large columns of the game at `path` that no forum page shows and no posting rule
    reads (its state, result, awaited seats and options), to `defer()`: the forum loads a
    board's game for its name, status and links (read on demand should one be asked for)."""
    return [f"{path}__{name}" for name in ("state", "outcome", "awaiting", "config",
                                           "durations")]


class PostingRefused(Exception):
    """A write the rules do not allow; `message` is a sentence to show the user.

    `code` tells views which HTTP status fits: "invalid" (400), "forbidden" (403),
    "not_found" (404) or "rate_limited" (429).
    """

    def __init__(self, message, code: str = "invalid", *, retry_after: int | None = None):
        super().__init__(str(message))
        self.message = message
        self.code = code
        self.retry_after = retry_after  # seconds, for a "rate_limited" refusal


# --- input checks -------------------------------------------------------------------------

def clean_body(body: str | None) -> str:
    """The body with line endings normalised, or PostingRefused if empty (nothing visible)
    or too long."""
    body = (body or "").replace("\r\n", "\n").replace("\r", "\n").rstrip()
    if not visible_text(body):  # only spaces or invisible characters (U+200B, U+3000...)
        raise PostingRefused(_("Write something before posting."))
    if len(body) > MAX_BODY_LENGTH:
        raise PostingRefused(
            _("Posts are limited to %(limit)d characters; this one has %(length)d.")
            % {"limit": MAX_BODY_LENGTH, "length": len(body)})
    return body


def clean_title(title: str | None) -> str:
    """The title on one line with runs of whitespace collapsed, or PostingRefused (empty,
    too long, or holding invisible or bidi control characters)."""
    title = " ".join((title or "").split())
    if has_invisible(title):  # a reversed (U+202E) or blank-looking (U+200B) title
        raise PostingRefused(
            _("A title may not contain invisible or direction-changing characters."))
    if not title:
        raise PostingRefused(_("Give the thread a title."))
    if len(title) > MAX_TITLE_LENGTH:
        raise PostingRefused(
            _("Titles are limited to %(limit)d characters; this one has %(length)d.")
            % {"limit": MAX_TITLE_LENGTH, "length": len(title)})
    return title


def check_rate_limit(user, *, scope: str = "posts", board: Board | int | None = None) -> None:
    """Count one write by `user` in `scope` ("posts", or "messages" to 神的使者: each its own
    budget of POSTS_PER_MINUTE); PostingRefused beyond it.

    Steps:
    1. The one limiter (config.ratelimit: django-ratelimit's counter on the shared cache, so
       it holds across worker processes) counts the write for this user in this minute.
    2. The GM where the write lands is not limited (`rules.is_gm(user, board)`: 神的使者,
       the game's GM on its boards, staff elsewhere): services post in their name in bulk.
       A staff member seated in a game writes there as a player, under the players' limit.
    3. Posts on a board with a budget of its own (`hooks.post_budget`: a game's graveyard)
       count there, at its rate, and not in the forum's.
    Callers count after their checks and before writing, so a refused write stores nothing
    and a write refused for another reason does not use up the budget; the forum's writers
    count before they take their lock (a write refused by the check made again under it,
    the board or thread having changed meanwhile, has used it).
    """
    if rules.is_gm(user, board):
        return
    limit = settings.POSTS_PER_MINUTE
    own = hooks.post_budget(getattr(board, "pk", board)) if scope == "posts" and board \
        else None
    if own is not None:
        scope, limit = own
    try:
        consume(scope=f"messaging.{scope}", who=f"user:{user.pk}", rate=f"{limit}/m")
    except RateLimited as refused:
        raise PostingRefused(
            ngettext("You can post at most %(limit)d time a minute. Please wait a moment.",
                     "You can post at most %(limit)d times a minute. Please wait a moment.",
                     limit) % {"limit": limit},
            code="rate_limited", retry_after=refused.retry_after) from None


def _refuse_if(reason: str | None, code: str = "forbidden") -> None:
    if reason:
        raise PostingRefused(reason, code=code)


# --- versions -----------------------------------------------------------------------------

def _bump_threads(thread_ids, **changes) -> dict[int, int]:
    """Move the version of each thread in `thread_ids` forward (with `changes` to their rows,
    in the same UPDATE) and publish each new version once the transaction commits; returns
    {thread id: new version}. The UPDATE holds the rows until the commit, so the versions
    read back are this transaction's.

    Precondition: inside the writer's transaction."""
    ids = sorted(set(thread_ids))
    if not ids:
        return {}
    Thread.objects.filter(pk__in=ids).update(version=F("version") + 1, **changes)
    versions = dict(Thread.objects.filter(pk__in=ids).values_list("pk", "version"))
    for pk, version in versions.items():
        feed.changed("thread", pk, version)
    return versions


def _bump_boards(board_ids, **changes) -> dict[int, int]:
    """`_bump_threads` for boards: their lists changed (a thread created, changed, moved in
    or out, deleted, or given a post). Precondition: inside the writer's transaction."""
    ids = sorted(set(board_ids))
    if not ids:
        return {}
    Board.objects.filter(pk__in=ids).update(version=F("version") + 1, **changes)
    versions = dict(Board.objects.filter(pk__in=ids).values_list("pk", "version"))
    for pk, version in versions.items():
        feed.changed("board", pk, version)
    return versions


# --- boards -------------------------------------------------------------------------------

def create_board(*, slug: str, title: str, kind: str = Board.Kind.GAME, description: str = "",
                 position: int = 0) -> Board:
    """Create a board (games call this when a game is created)."""
    return Board.objects.create(slug=slug, title=clean_title(title), kind=kind,
                                description=description, position=position)


def board_with_slug(*, slug: str, title: str, kind: str) -> Board:
    """The board named `slug`, created with `title` (as given, up to the longest a title may
    be) and `kind` on first use (a game's GM board); two callers at once get the same board
    (the slug is unique)."""
    board, _created = Board.objects.get_or_create(
        slug=slug, defaults={"kind": kind, "title": title[:MAX_TITLE_LENGTH]})
    return board


BOARD_FIELDS = ("title", "slug", "kind", "description", "position", "is_locked")


def save_board(*, board: Board, fields=BOARD_FIELDS) -> Board:
    """Store the `fields` of `board` as the caller set them (the admin's form and list) and
    move its version: its page shows them. Only the named columns are written, so a row read
    before another writer moved the version never writes the old number back."""
    fields = [f for f in fields if f in BOARD_FIELDS]
    with transaction.atomic():
        if fields:
            board.save(update_fields=fields)
        board.version = _bump_boards([board.pk])[board.pk]
    return board


LOBBY_SLUG = "lobby"


def lobby_board() -> Board:
    """The site-wide lobby, created on first use."""
    board, _created = Board.objects.get_or_create(
        slug=LOBBY_SLUG, defaults={"kind": Board.Kind.LOBBY, "title": "大厅", "position": -100,
                                "description": ""})
    return board


# --- threads and posts --------------------------------------------------------------------

def _add_post(*, thread: Thread, author, body: str, html: str, quote: Post | None) -> Post:
    """Append a post to `thread`, update the counters and move the thread's and its board's
    versions (published on commit).

    Precondition: inside a transaction holding the locks on `thread`'s row and its board's
    row, both as read under those locks (`thread.board`): two replies cannot take the same
    number, and the versions written are the rows' own plus one, with no statement to read
    them back (a vote's reply is written while its game is locked).
    """
    number = thread.last_number + 1
    board = thread.board
    post = Post.objects.create(thread=thread, number=number, author=author, body=body,
                               html=html, quote=quote)
    Thread.objects.filter(pk=thread.pk).update(
        last_number=number, post_count=F("post_count") + 1, last_post=post,
        last_post_at=post.created_at, version=thread.version + 1)
    Board.objects.filter(pk=board.pk).update(last_post_at=post.created_at,
                                             version=board.version + 1)
    thread.last_number = number
    thread.post_count += 1
    thread.last_post = post
    thread.last_post_at = post.created_at
    thread.version += 1
    board.version += 1
    board.last_post_at = post.created_at
    feed.changed("thread", thread.pk, thread.version)
    feed.changed("board", board.pk, board.version)
    hooks.post_added(post)  # other apps' writes for a new post (messaging.hooks)
    return post


def _where_it_ends_up(thread: Thread) -> Thread:
    """`thread` on the board it is on now, read again after its new post was stored.

    Storing a post runs other apps' hooks, and one may move the thread (the games app moves
    a dead player's new thread to the game's GM board): the post's notices are computed
    from where it ends up, never from the board it was written on. Precondition: inside
    the writer's transaction, after `_add_post`.
    """
    board_id = Thread.objects.filter(pk=thread.pk).values_list("board_id", flat=True).get()
    if board_id != thread.board_id:
        thread.board = Board.objects.get(pk=board_id)
    return thread


def _changed(locked: Thread | Board, read: Thread | Board) -> bool:
    """Whether a writer wrote the row `locked` (as read under its lock) since it was read as
    `read`, before the lock: every writer of a thread's or board's row moves its version in
    the same transaction (`_bump_threads`, `_bump_boards`, `_add_post`), so an unchanged
    version is an unchanged row, and the rules checked on `read` hold for it."""
    return locked.version != read.version


def _audience(thread: Thread, *, first: bool) -> tuple:
    """What a new post's notices are worked out from besides the people (who may read the
    thread, and whether it is a reply): the thread's board and that board's kind, the
    thread's kind, and whether the post is the thread's first."""
    return (thread.board_id, thread.board.kind, thread.kind, first)


def _store_notices(post: Post, notices: list, audience: tuple, mentioned) -> None:
    """Write the notices of `post`, just stored: `notices`, worked out before the lock for
    `audience`, when its thread ends up where they were worked out for (nearly always);
    else (a hook moved the thread, a GM changed it while the writer waited for the lock)
    worked out again from where it ends up. Precondition: the writer's transaction, after
    `_where_it_ends_up`."""
    if _audience(post.thread, first=post.number == 1) == audience:
        notifications.store_post_notices(notices=notices, post=post)
    else:
        notifications.notify_new_post(post=post, mentioned=mentioned)


def start_thread(*, board: Board, author, kind: str, title: str, body: str, key: str = "",
                 pinned: bool = False, locked: bool = False,
                 enforce_rate_limit: bool = True) -> Thread:
    """Open a thread on `board` with its first post.

    Steps 1-4 take no lock (the board's row is read as it is now), 5-7 hold the board's:
    1. Check title and body (empty, too long).
    2. Check the posting rules on the board as it is now, and the key: a refused thread
       takes no lock and uses no budget.
    3. Count the post against the author's rate limit.
    4. Render the body with its mentions and work out who the post notifies
       (`notifications.new_post_notices`).
    5. Lock the board's row and, if it was written since 2 (its version moved), check the
       rules and the key again on the fresh row (a board locked a moment ago refuses; of two
       threads with one key, the second finds the first).
    6. Create the thread and post #1 (`_add_post`, which runs the post hooks).
    7. Write the notices from where the thread ends up (`_store_notices`: a hook moves a
       dead player's new thread to the GM board, and they are then worked out again).
    A thread refused in 5 (the board changed while this writer read it) has used its
    budget. `key` lets other apps find the thread later (e.g. "day-2-vote"); unique per
    board.
    """
    title = clean_title(title)
    body = clean_body(body)
    now = (Board.objects.select_related("game")
           .defer(*without_game_columns("game")).get(pk=board.pk))
    _refuse_if(rules.start_refusal(author, now, kind, body))
    if key and Thread.objects.filter(board=now, key=key).exists():
        raise PostingRefused(_("A thread with this key already exists on this board."))
    if enforce_rate_limit:
        check_rate_limit(author, board=now)
    html, mentioned = render_with_mentions(body, official=rules.is_messenger(author))
    to_be = Thread(board=now, kind=kind, author=author)
    audience = _audience(to_be, first=True)
    notices = notifications.new_post_notices(thread=to_be, author=author, body=body,
                                             mentioned=mentioned, first=True)
    with transaction.atomic():
        board = Board.objects.select_for_update().get(pk=board.pk)
        if _changed(board, now):
            _refuse_if(rules.start_refusal(author, board, kind, body))
            if key and Thread.objects.filter(board=board, key=key).exists():
                raise PostingRefused(_("A thread with this key already exists on this board."))
        thread = Thread.objects.create(board=board, kind=kind, title=title, author=author,
                                       key=key, is_pinned=pinned, is_locked=locked)
        post = _add_post(thread=thread, author=author, body=body, html=html, quote=None)
        _where_it_ends_up(thread)
        _store_notices(post, notices, audience, mentioned)
        # Its search row once the transaction has committed, never under the lock;
        # registered last, so the change feed's events leave before that write.
        search.index_after_commit(post)
    return thread


def reply(*, thread: Thread, author, body: str, quote: Post | None = None,
          enforce_rate_limit: bool = True) -> Post:
    """Add a reply to `thread`, optionally quoting one of its posts.

    Steps 1-4 take no lock (the thread's row is read as it is now: every reply to a thread,
    and every post on its board, waits for the rows 5-7 lock), 5-7 hold the thread's and
    its board's rows until the commit:
    1. Check the body.
    2. Check the posting rules on the thread as it is now, then the quoted post (it must
       belong to the same thread): a refused reply takes no lock and uses no budget.
    3. Count the post against the rate limit.
    4. Render the body with its mentions and work out who the reply notifies
       (`notifications.new_post_notices`), from the thread as read in 2.
    5. Lock the thread's and its board's rows and, if either was written since 2 (its
       version moved: another reply, a lock, a title, a move, a post on the board such as a
       phase's announcement), check the rules again on the fresh rows (the race this
       prevents: a reply slipping in just after the GM locked the thread). Rows no writer
       touched since are the rows 2 checked.
    6. Store the post with the next number, the counters and versions (`_add_post`, which
       runs the post hooks).
    7. Write the notices from where the thread ends up (`_store_notices`).
    The search row and the change feed's events follow the commit. A reply refused in 5
    has used its budget.

    The locked part runs statements only (no rendering, mentions, rate limit, search terms
    or working out who is notified): for a player's reply on the lobby that notifies the
    thread's author, 7 between the lock and the commit (tests/messaging/test_reply_lock.py,
    which fails if any of that runs under the lock): the lock; the post, the thread's and
    the board's counters and versions; where the thread ends up; the author's unread notice
    of the thread looked up, then joined or a new one. Rows written meanwhile add the
    rules' reads (on the lobby the games' posting check: the writer's secrets and the
    board's game; on a game's board also whether it is hidden and the writer's seat); each
    further notice adds one or two statements, and the games' post hook a reply email per
    reader who wants one.
    """
    body = clean_body(body)
    now = (Thread.objects.select_related("board__game", "author__profile")
           .defer(*without_game_columns("board__game"))
           .get(pk=thread.pk))
    _refuse_if(rules.reply_refusal(author, now, body))
    if quote is not None:  # with its author and profile (the notices and the hooks read them)
        quote = (Post.objects.select_related("author__profile")
                 .filter(pk=quote.pk, thread_id=now.pk).first())
        if quote is None:
            raise PostingRefused(_("You can only quote a post of the same thread."))
    if enforce_rate_limit:
        check_rate_limit(author, board=now.board_id)
    html, mentioned = render_with_mentions(body, official=rules.is_messenger(author))
    audience = _audience(now, first=now.last_number == 0)
    notices = notifications.new_post_notices(thread=now, author=author, body=body,
                                             quote=quote, mentioned=mentioned,
                                             first=now.last_number == 0)
    with transaction.atomic():
        thread = Thread.objects.select_for_update().select_related("board").get(pk=thread.pk)
        if _changed(thread, now) or _changed(thread.board, now.board):
            _refuse_if(rules.reply_refusal(author, thread, body))
        if thread.author_id == now.author_id:
            thread.author = now.author  # as read in 2, with its profile (the hooks read it)
        post = _add_post(thread=thread, author=author, body=body, html=html, quote=quote)
        _where_it_ends_up(thread)
        _store_notices(post, notices, audience, mentioned)
        # Its search row once the transaction has committed, never under the lock;
        # registered last, so the change feed's events leave before that write.
        search.index_after_commit(post)
    return post


def edit_post(*, post: Post, editor, body: str) -> Post:
    """A moderator's edit: the post gets `body`, its earlier text goes to its history.

    Steps:
    1. Only active staff edit posts (players' words are evidence in a game: nobody else may
       change them, not even their author), and only where the other apps allow it
       (`rules.edit_refusal`: games refuses whoever reads a running game's secrets).
    2. Check and render the new text like a new post (mentions linked, not notified again).
    3. Lock the post row, keep the earlier text as a PostRevision, then store the new text
       and who edited it when (shown as "由天神编辑于 …"); its search fields follow once the
       edit has committed.
    An edit that changes nothing stores nothing.
    """
    from django.utils import timezone

    if rules.is_messenger(editor) or not rules.is_gm(editor, post.thread.board_id):
        raise PostingRefused(_("Only the GM may edit posts."), code="forbidden")
    body = clean_body(body)
    _refuse_if(rules.edit_refusal(editor, post.thread.board, body))
    html, _mentioned = render_with_mentions(body, official=rules.is_messenger(post.author))
    with transaction.atomic():
        # The thread's row first, as a reply locks it: storing the edit moves the thread's
        # version, and a reply quoting this post while it is locked would otherwise wait
        # for the post while holding the thread (a deadlock).
        Thread.objects.select_for_update().filter(pk=post.thread_id).values_list("pk").first()
        post = Post.objects.select_for_update().select_related("thread").get(pk=post.pk)
        if body == post.body:
            return post
        PostRevision.objects.create(post=post, body=post.body, html=post.html,
                                    edited_by=editor)
        post.body, post.html = body, html
        post.edited_at, post.edited_by = timezone.now(), editor
        post.save(update_fields=["body", "html", "edited_at", "edited_by"])
        search.index_after_commit(post)
        post.thread.version = _bump_threads([post.thread_id])[post.thread_id]
    return post


def withdraw(*, post_ids=(), message_ids=(), when=None) -> None:
    """Mark posts and messages withdrawn by the GM (a game's rolled-back announcements and
    private results): nothing is deleted; the pages show them with the mark "已由天神撤回".
    Already withdrawn rows keep their first time. The caller checks the GM's authority."""
    from django.utils import timezone

    when = when or timezone.now()
    with transaction.atomic():
        posts = Post.objects.filter(pk__in=list(post_ids), withdrawn_at=None)
        threads = set(posts.values_list("thread_id", flat=True))
        posts.update(withdrawn_at=when)
        _bump_threads(threads)
        Message.objects.filter(pk__in=list(message_ids), withdrawn_at=None).update(
            withdrawn_at=when)


def delete_posts(*, posts) -> int:
    """Delete `posts` (a queryset; the admin's delete) and bring their threads' counters
    back in line (`recount_thread`); returns how many were deleted."""
    with transaction.atomic():
        threads = list(Thread.objects.filter(pk__in=posts.values("thread_id")))
        deleted = posts.delete()[1].get(Post._meta.label, 0)
        for thread in threads:
            recount_thread(thread=thread)
    return deleted


def recount_thread(*, thread: Thread) -> None:
    """Bring `thread`'s post count and last post back in line after posts were deleted
    (numbers are not reused: `last_number` never goes down), and move its version and its
    board's."""
    with transaction.atomic():
        last = thread.posts.order_by("-number").first()
        thread.version = _bump_threads(
            [thread.pk], post_count=thread.posts.count(), last_post=last,
            last_post_at=last.created_at if last else thread.created_at)[thread.pk]
        _bump_boards([thread.board_id])


def set_thread_locked(*, thread: Thread, locked: bool) -> None:
    with transaction.atomic():
        thread.version = _bump_threads([thread.pk], is_locked=locked)[thread.pk]
        _bump_boards([thread.board_id])
    thread.is_locked = locked


def set_threads_locked(*, threads, locked: bool) -> int:
    """`set_thread_locked` for every thread of the queryset `threads` (the admin's action);
    returns how many."""
    with transaction.atomic():
        rows = list(threads.values_list("pk", "board_id"))
        _bump_threads([pk for pk, _board in rows], is_locked=locked)
        _bump_boards([board for _pk, board in rows])
    return len(rows)


def set_thread_title(*, thread: Thread, title: str, pinned: bool | None = None) -> None:
    """Give `thread` the title `title` (and, unless None, `pinned`) as the games write them
    (a rolled-back vote thread's "[withdrawn]" mark, and its title given back): the title is
    stored as given, up to the longest a title may be."""
    changes = {"title": title[:MAX_TITLE_LENGTH]}
    if pinned is not None:
        changes["is_pinned"] = pinned
    with transaction.atomic():
        thread.version = _bump_threads([thread.pk], **changes)[thread.pk]
        _bump_boards([thread.board_id])
    thread.title = changes["title"]
    if pinned is not None:
        thread.is_pinned = pinned


THREAD_FIELDS = ("kind", "title", "key", "is_locked", "is_pinned")


def save_thread(*, thread: Thread, fields=THREAD_FIELDS) -> Thread:
    """Store the `fields` of `thread` as the caller set them (the admin's form) and move its
    version and its board's; a changed board is a move (`move_thread`). Only the named
    columns are written."""
    fields = [f for f in fields if f in THREAD_FIELDS]
    with transaction.atomic():
        if fields:
            thread.save(update_fields=fields)
        thread.version = _bump_threads([thread.pk])[thread.pk]
        _bump_boards([thread.board_id])
    return thread


def delete_threads(*, threads) -> int:
    """Delete the threads of the queryset `threads` with their posts (the admin's delete),
    moving their boards' versions; returns how many threads."""
    with transaction.atomic():
        boards = set(threads.values_list("board_id", flat=True))
        deleted = threads.delete()[1].get(Thread._meta.label, 0)
        _bump_boards(boards)
    return deleted


def move_thread(*, thread: Thread, board: Board) -> Thread:
    """Move `thread` to `board` (e.g. a dead player's analysis to the GM board, and back).

    Posts keep their numbers; only the board changes. The caller's `thread` object is
    moved too (a writer holding it computes the new post's notices from the new board).
    After the move, the notices about the thread's posts are computed again from where
    they now are: a user who may no longer read the thread loses them (a thread moved to a
    GM board notifies nobody outside it).
    """
    with transaction.atomic():
        moved = Thread.objects.select_for_update().get(pk=thread.pk)
        if moved.key and Thread.objects.filter(board=board, key=moved.key).exists():
            raise PostingRefused(_("A thread with this key already exists on this board."))
        was = moved.board_id
        moved.board = board
        moved.version = _bump_threads([moved.pk], board=board)[moved.pk]
        thread.board, thread.version = board, moved.version
        _bump_boards([was])
        later = {}
        if moved.last_post_at and (board.last_post_at is None
                                   or board.last_post_at < moved.last_post_at):
            later = {"last_post_at": moved.last_post_at}
        _bump_boards([board.pk], **later)
        notifications.drop_unreadable(thread=moved)
    return moved


# --- conversations with 神的使者 ----------------------------------------------------------

def _messenger():
    from accounts.models import messenger_user

    return messenger_user()


def conversation_for(*, owner, board: Board | None = None) -> Conversation:
    """The conversation of `owner` with 神的使者 in the context of `board` (None: general).

    Created on first use; the unique constraints make a concurrent second creation fail
    instead of duplicating, and the loser then reads the winner's row.
    """
    if rules.is_messenger(owner):
        raise PostingRefused(_("The messenger has no conversation with itself."))
    conversation = Conversation.objects.filter(owner=owner, board=board).first()
    if conversation is not None:
        return conversation
    try:
        with transaction.atomic():
            return Conversation.objects.create(owner=owner, board=board)
    except IntegrityError:
        conversation = Conversation.objects.filter(owner=owner, board=board).first()
        if conversation is None:
            raise
        return conversation


def send_to_messenger(*, conversation: Conversation, author, body: str,
                      enforce_rate_limit: bool = True) -> Message:
    """A message from the conversation's owner to 神的使者.

    Steps:
    1. Check the body.
    2. Lock the conversation and check that `author` is its owner now (a seat handed over a
       moment ago no longer belongs to the previous player).
    3. Rate limit, store, and count it as unread for the staff.
    """
    body = clean_body(body)
    html = render_post(body)[0]
    with transaction.atomic():
        conversation = (Conversation.objects.select_for_update(of=("self",))
                        .select_related("owner").get(pk=conversation.pk))
        _refuse_if(rules.writer_refusal(author))
        if author.pk != conversation.owner_id:
            raise PostingRefused(_("This conversation does not exist."), code="not_found")
        if enforce_rate_limit:
            check_rate_limit(author, scope="messages", board=conversation.board_id)
        message = Message.objects.create(conversation=conversation, sender=author,
                                         from_messenger=False, body=body, html=html)
        Conversation.objects.filter(pk=conversation.pk).update(
            staff_unread=F("staff_unread") + 1, last_message_at=message.created_at)
    return message


def write_to_messenger(*, author, body: str, board: Board | None = None) -> Message:
    """A message from `author` in their conversation with 神的使者 in the context of
    `board` (None: general), creating the conversation with its first message.

    Steps: 1. check the body and the writer, 2. count the message against the rate limit,
    3. only then find or create the conversation and store the message, in one transaction:
    a refused message (empty, too long, over the limit) leaves no empty conversation.
    """
    body = clean_body(body)
    _refuse_if(rules.writer_refusal(author))
    if rules.is_messenger(author):
        raise PostingRefused(_("The messenger has no conversation with itself."))
    with transaction.atomic():
        check_rate_limit(author, scope="messages", board=board)
        conversation = conversation_for(owner=author, board=board)
        return send_to_messenger(conversation=conversation, author=author, body=body,
                                 enforce_rate_limit=False)


def send_as_messenger(*, conversation: Conversation, body: str, written_by=None,
                      notice: str = notifications.Kind.MESSENGER, notice_text: str = "",
                      messenger=None) -> Message:
    """A message from 神的使者 to the owner (game results, or a staff member's answer).

    `written_by` is the GM who wrote it, recorded for the GM only. Only a GM's answer
    counts as answering (the conversation's waiting counter goes back to zero); an automatic
    message (a private result, a reminder: no `written_by`) leaves the players' messages
    waiting.
    The owner gets an on-site notice of kind `notice` (games pass `Kind.RESULT` for private
    results, with the game's name as `notice_text`). A caller that sends several messages
    at once calls `send_many_as_messenger`, or passes `messenger` (the 神的使者 account,
    `accounts.models.messenger_user`) so that it is read once.
    """
    return _send_as_messenger([(conversation, body)], written_by=written_by,
                              notice_kind=notice, notice_text=notice_text,
                              messenger=messenger)[0]


def send_many_as_messenger(*, letters: list[tuple[Conversation, str]],
                           notice: str = notifications.Kind.MESSENGER, notice_text: str = "",
                           messenger=None) -> list[Message]:
    """`send_as_messenger` (no GM's answer) to several conversations at once, one message
    each, in order: a game's private results at a phase's end. The same rows in a few
    statements whatever their number (the conversations locked in one query, in id order;
    the messages in one insert; the counters in one update; the notices as
    `notifications.notify_many` writes them). Returns the messages in `letters`' order."""
    return _send_as_messenger(letters, written_by=None, notice_kind=notice,
                              notice_text=notice_text, messenger=messenger)


def _send_as_messenger(letters, *, written_by, notice_kind, notice_text,
                       messenger) -> list[Message]:
    ids = [conversation.pk for conversation, _body in letters]
    if len(set(ids)) != len(ids):
        raise ValueError("one message per conversation in one sending")
    if not letters:
        return []
    rendered = []
    for conversation, body in letters:
        body = clean_body(body)
        rendered.append((conversation.pk, body, render_post(body, official=True)[0]))
    messenger = _messenger() if messenger is None else messenger
    # No savepoint inside a caller's transaction (a game step): a failure here fails it.
    with transaction.atomic(savepoint=False):
        locked = {c.pk: c for c in Conversation.objects.select_for_update(of=("self",))
                  .select_related("owner").filter(pk__in=ids).order_by("pk")}
        messages = Message.objects.bulk_create([
            Message(conversation=locked[pk], sender=messenger, from_messenger=True,
                    written_by=written_by, body=body, html=html)
            for pk, body, html in rendered])
        answered = {"staff_unread": 0} if written_by is not None else {}
        # Each conversation's last message time is its new message's (auto_now_add gives
        # each its own instant).
        Conversation.objects.filter(pk__in=ids).update(
            owner_unread=F("owner_unread") + 1,
            last_message_at=Case(*[When(pk=m.conversation_id, then=Value(m.created_at))
                                   for m in messages]), **answered)
        notifications.store_notices([
            notice for pk in ids
            if (notice := notifications.notice_for(user=locked[pk].owner, kind=notice_kind,
                                                   conversation=locked[pk], text=notice_text))
            is not None])
    return messages


def answer_as_messenger(*, conversation: Conversation, staff, body: str) -> Message:
    """A GM answers the owner in the name of 神的使者, recorded as written by `staff`: who
    may is `rules.answer_refusal` (a seat's conversation, its game's GMs; a general one, a
    superuser who plays in no running game with the owner)."""
    refusal = rules.answer_refusal(staff, conversation)
    if refusal:
        raise PostingRefused(refusal, code="forbidden")
    return send_as_messenger(conversation=conversation, body=body, written_by=staff)


def mark_read_by_owner(*, conversation: Conversation) -> None:
    """The owner has seen every message so far.

    Called before the page reads the messages, so a message arriving in between is shown
    and still counted unread (never the other way round).
    """
    Conversation.objects.filter(pk=conversation.pk, owner_unread__gt=0).update(owner_unread=0)
    conversation.owner_unread = 0


def mark_read_by_staff(*, conversation: Conversation) -> None:
    Conversation.objects.filter(pk=conversation.pk, staff_unread__gt=0).update(staff_unread=0)
    conversation.staff_unread = 0


def hand_over_conversation(*, conversation: Conversation, new_owner) -> Conversation:
    """Give a seat's conversation to a substitute; the previous owner loses access at once.

    The substitute inherits the history (they need it to play the seat), and every message
    from 神的使者 in it counts as unread for them.
    """
    if rules.is_messenger(new_owner):
        raise PostingRefused(_("The messenger has no conversation with itself."))
    with transaction.atomic():
        conversation = (Conversation.objects.select_for_update(of=("self",))
                        .select_related("owner").get(pk=conversation.pk))
        if Conversation.objects.filter(owner=new_owner, board_id=conversation.board_id).exclude(
                pk=conversation.pk).exists():
            raise PostingRefused(_("The new owner already has a conversation in this context."))
        conversation.owner = new_owner
        conversation.owner_unread = conversation.messages.filter(from_messenger=True).count()
        conversation.save(update_fields=["owner", "owner_unread"])
    return conversation


def unread_for(user) -> int:
    """Messages waiting for `user`: from 神的使者 to them, plus, for a GM, the players'
    unanswered messages in the conversations they answer (`rules.gm_conversations`)."""
    if user is None or not user.is_authenticated:
        return 0
    if user.is_staff and user.is_active:
        own = Conversation.objects.filter(owner=user).aggregate(n=Sum("owner_unread"))["n"]
        waiting = rules.gm_conversations(user).filter(staff_unread__gt=0).aggregate(
            n=Sum("staff_unread"))["n"]
        return (own or 0) + (waiting or 0)
    total = Conversation.objects.filter(owner=user, owner_unread__gt=0).aggregate(
        n=Sum("owner_unread"))["n"]
    return total or 0
