"""On-site notifications (the bell): the public API other apps call, and the forum's own.

    from messaging.notifications import notify, Kind
    notify(user=player, kind=Kind.VOTE_THREAD, thread=vote_thread, text=game.name)

Public: `notify` (`notify_many`: the same notice to many users at once), `mark_read`, `mark_all_read`, `unread_count`, `Kind`; the forum's own
callers: `notify_new_post` (replies, quotes, mentions; `new_post_notices` and
`store_post_notices`, its two halves, for a writer that works out who before it locks the
thread and writes under the lock), `drop_unreadable` (a thread moved
where some can no longer read it), `read_seen` (a page of a thread seen), `read_conversation`
(a conversation opened).

Precondition of every writer here: called inside the writer's transaction (or none), so a
rolled-back post leaves no notice behind. Notices are on-site only; email stays with the
user's email settings (games/notifications.py).

Every writer here that adds, joins, reads or deletes a user's notices publishes, once its
transaction commits, the change feed's ("user", id, n, what="notices") with n the user's
unread notices as committed (`publish_counts`): an open page asks the header's counts
again. Other writers of notices (the games' reminder sweep) call `publish_counts` too.
"""

from __future__ import annotations

import zlib

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Count, IntegerField, OuterRef, Q, Subquery, Sum, Value, Window
from django.db.models.functions import Coalesce
from django.utils import timezone

from config import feed

from . import drafts, rules
from .models import Conversation, Notification, Post, Thread, ThreadWatch

Kind = Notification.Kind
MAX_TEXT = Notification._meta.get_field("text").max_length
MAX_URL = Notification._meta.get_field("url").max_length
GROUP_LENGTH = Notification._meta.get_field("group").max_length


def notify(*, user, kind: str, actor=None, thread: Thread | None = None,
           post: Post | None = None, conversation: Conversation | None = None,
           text: str = "", url: str = "") -> Notification | None:
    """Add one notice for `user`, or None when nobody should get it.

    Nobody gets a notice about their own doing, about a thread they may not read (a GM-only
    thread, a GM board), nor is one kept for 神的使者 or a disabled account.
    `text` is a short detail in the reader's language (cut at 200 characters); `url` a path
    on this site (e.g. from reverse()), for notices with no post, thread or conversation.
    A notice of a grouped kind (`GROUPED`) joins the user's unread notice with the same
    group key instead (`group_key`): one notice "12 new announcements in your game" with the
    latest post, not twelve.
    """
    notice = notice_for(user=user, kind=kind, actor=actor, thread=thread, post=post,
                     conversation=conversation, text=text, url=url)
    return None if notice is None else _store(notice)


def _store(notice: Notification) -> Notification:
    """Write `notice` (made by `notice_for`): joined to its user's unread notice of the same
    group, else inserted; its user's count published once the transaction commits."""
    return store_notices([notice])[0]


def store_notices(notices: list[Notification]) -> list[Notification]:
    """Write `notices` (made by `notice_for`, at most one per user and group) as `_store` writes
    each, in three statements whatever their number: the unread notices they join, read and
    locked in one query; the new ones in one insert; the joined ones in one update. Returns
    them in order, each as stored (a grouped one: the notice it joined).

    Precondition: inside the writer's transaction. The writers that make grouped notices
    hold the row that orders them (a reply holds its thread's lock, a game's announcement
    the game's), so two alike notices are not written at once for the same user.
    """
    if not notices:
        return []
    for notice in notices:
        notice.group = group_key(notice)
    publish_counts(user_ids=[n.user_id for n in notices])
    grouped = [n for n in notices if n.group]
    open_groups: dict[tuple[int, str], Notification] = {}
    if grouped:
        alike = Q()
        for notice in grouped:
            alike |= Q(user_id=notice.user_id, group=notice.group)
        for existing in (Notification.objects.select_for_update()
                         .filter(alike, read_at__isnull=True)
                         .order_by("user_id", "group", "-created_at", "-id")):
            open_groups.setdefault((existing.user_id, existing.group), existing)  # the newest
    now = timezone.now()
    stored, new, joined = [], [], []
    for notice in notices:
        existing = open_groups.get((notice.user_id, notice.group)) if notice.group else None
        if existing is None:
            new.append(notice)
            stored.append(notice)
            continue
        # One more event, the newest post, actor and thread, the time of now (so it moves
        # to the top).
        existing.count += 1
        existing.actor, existing.post, existing.thread = notice.actor, notice.post, notice.thread
        existing.created_at = now
        joined.append(existing)
        stored.append(existing)
    if new:
        Notification.objects.bulk_create(new)
    if joined:
        Notification.objects.bulk_update(joined, ["count", "actor", "post", "thread",
                                                  "created_at"])
    return stored


def notify_many(*, users, kind: str, actor=None, thread: Thread | None = None,
                post: Post | None = None, text: str = "", url: str = "") -> list[Notification]:
    """`notify` for each of `users` (one notice each, about the same thing), in a few
    statements whatever their number: who may read the thread in one query
    (`rules.readers_among`), then `store_notices`. Returns the notices stored."""
    if kind not in Kind.values:
        raise ValueError(f"unknown notification kind {kind!r}")
    if thread is None and post is not None:
        thread = post.thread
    people = {}
    for user in users:
        if user is not None and user.pk not in people and (actor is None or actor.pk != user.pk) \
                and may_notify(user_id=user.pk, username=user.get_username(),
                               is_active=user.is_active):
            people[user.pk] = user
    if thread is not None and people:
        readers = rules.readers_among(thread, list(people.values()))
        people = {pk: user for pk, user in people.items() if pk in readers}
    return store_notices([
        Notification(user=user, kind=kind, actor=actor, thread=thread, post=post,
                     text=text[:MAX_TEXT], url=site_path(url)) for user in people.values()])


def publish_counts(*, user_ids) -> None:
    """Once the current transaction commits (at once outside one), publish on the change
    feed each of these users' unread notices, as committed: ("user", id, n,
    what="notices"). One query after the commit, none inside the writer's transaction (a
    reply's notices are written while its thread is locked). Publishing is best effort: a
    failure is logged, never raised (config.feed)."""
    ids = sorted({pk for pk in user_ids if pk is not None})
    if ids:
        transaction.on_commit(lambda: _publish_counts(ids), robust=True)


def _publish_counts(user_ids: list[int]) -> None:
    counts = dict(Notification.objects.filter(user_id__in=user_ids, read_at__isnull=True)
                  .order_by().values("user_id").annotate(n=Count("pk"))
                  .values_list("user_id", "n"))
    for pk in user_ids:
        feed.publish(feed.event("user", pk, counts.get(pk, 0), what="notices"))


# The kinds whose alike notices are grouped while unread, and what makes them alike (the
# notice's sentence would be the same): a reply or a watched thread's post, by thread; an
# announcement, a vote thread or a report, by board (each announcement may open its own
# thread); a message or a result from 神的使者, by conversation. Quotes, mentions and
# deadlines are each about something of the reader's own and stay one notice each.
GROUPED = {
    Kind.REPLY: "thread", Kind.WATCH: "thread",
    Kind.ANNOUNCEMENT: "board", Kind.VOTE_THREAD: "board", Kind.REPORT: "board",
    Kind.MESSENGER: "conversation", Kind.RESULT: "conversation",
}


def group_key(notice: Notification) -> str:
    """The key alike notices of `notice`'s user share ("" for a kind never grouped, or a
    notice without what its kind is grouped by). The detail text is part of it (a hash),
    so notices whose sentences differ never join."""
    by = GROUPED.get(notice.kind)
    if by == "thread" and notice.thread_id:
        where = f"t{notice.thread_id}"
    elif by == "board" and notice.thread_id:
        where = f"b{notice.thread.board_id}"
    elif by == "conversation" and notice.conversation_id:
        where = f"c{notice.conversation_id}"
    else:
        return ""
    detail = f"{zlib.crc32((notice.text + notice.url).encode()):08x}"
    return f"{notice.kind}:{where}:{detail}"[:GROUP_LENGTH]


def notice_for(*, user, kind: str, actor=None, thread: Thread | None = None,
            post: Post | None = None, conversation: Conversation | None = None,
            text: str = "", url: str = "") -> Notification | None:
    """The unsaved notice `notify` would write, or None (see `notify`); written with
    `store_notices`."""
    if user is None or not may_notify(user_id=user.pk, username=user.get_username(),
                                      is_active=user.is_active):
        return None
    if actor is not None and actor.pk == user.pk:
        return None
    if kind not in Kind.values:
        raise ValueError(f"unknown notification kind {kind!r}")
    if thread is None and post is not None:
        thread = post.thread
    if thread is not None and not rules.can_read_thread(user, thread):
        return None
    return Notification(user=user, kind=kind, actor=actor, thread=thread, post=post,
                        conversation=conversation, text=text[:MAX_TEXT], url=site_path(url))


def may_notify(*, user_id: int | None, username: str, is_active: bool) -> bool:
    """Whether a notice is kept for this user, from the user row's values (a sweep that
    reads them as plain values builds no user): never for 神的使者 (rules.is_messenger)
    nor a disabled account."""
    return (user_id is not None and bool(is_active)
            and username != settings.MESSENGER_USERNAME)


def site_path(url: str) -> str:
    """`url` if it is a notice's link: empty, or a path on this site (reverse() output),
    never another host or a javascript: (ValueError)."""
    if len(url) > MAX_URL or (url and (not url.startswith("/") or url.startswith("//"))):
        raise ValueError(f"notification url must be a path on this site: {url[:50]!r}")
    return url


def notify_new_post(*, post: Post, mentioned=()) -> list[Notification]:
    """Notices for a new post: `new_post_notices` from where its thread is now, written at
    once (`store_post_notices`). Precondition: `post.thread` is loaded; `mentioned` are
    users (from the renderer)."""
    notices = new_post_notices(thread=post.thread, author=post.author, body=post.body,
                               quote=post.quote, mentioned=mentioned, first=post.number == 1)
    return store_post_notices(notices=notices, post=post)


def new_post_notices(*, thread: Thread, author, body: str, quote: Post | None = None,
                     mentioned=(), first: bool) -> list[Notification]:
    """The notices a new post by `author` in `thread` makes, unsaved and without their post:
    the authors of the posts it quotes (`quote` and the quotes written into `body`,
    messaging.drafts), the users it mentions, the thread's author (a reply in their thread:
    not for its `first` post) and the thread's watchers (its new posts, grouped). One
    notice per user, the most specific kind first (quote, mention, reply, watch); never to
    the writer, nor to anyone `notify` would refuse (who may not read the thread as given).

    A user who muted the thread (`ThreadWatch.Level.MUTED`) gets no reply or watch notice
    from it, nor a player's quote or mention; a quote or mention by the GM of the thread's
    board (or 神的使者) still reaches them: a mute quiets the players' chatter, never the
    GM's word to them.

    Reads only: the forum's writer calls it before it locks the thread, from the thread as
    read then (`thread` may be unsaved: a thread about to be started), and writes the
    notices under the lock with `store_post_notices`.
    """
    levels = (dict(ThreadWatch.objects.filter(thread=thread).values_list("user_id", "level"))
              if thread.pk is not None else {})
    muted = {pk for pk, level in levels.items() if level == ThreadWatch.Level.MUTED}
    gm_writes = None
    candidates = []
    if quote is not None and quote.author_id is not None:
        candidates.append((quote.author, Kind.QUOTE))
    # Quotes written into the text (messaging.drafts: a header linking to the quoted post),
    # first to last; only posts of this thread count (none yet for a thread not started).
    quoted = drafts.quoted_post_ids(body) if thread.pk is not None else []
    if quoted:
        found = {p.pk: p for p in Post.objects.filter(pk__in=quoted, thread_id=thread.pk,
                                                      author__isnull=False)
                 .select_related("author")}
        candidates.extend((found[pk].author, Kind.QUOTE) for pk in quoted if pk in found)
    candidates.extend((user, Kind.MENTION) for user in mentioned)
    if not first and thread.author_id is not None:
        candidates.append((thread.author, Kind.REPLY))
    watchers = [pk for pk, level in levels.items() if level == ThreadWatch.Level.WATCHING]
    if not first and watchers:
        users = get_user_model().objects.filter(pk__in=watchers).order_by("pk")
        candidates.extend((user, Kind.WATCH) for user in users)
    seen = {author.pk}
    made = []
    for user, kind in candidates:
        if user.pk in seen:
            continue
        if user.pk in muted:
            if kind in (Kind.REPLY, Kind.WATCH):
                continue
            if gm_writes is None:
                gm_writes = rules.is_gm(author, thread.board_id)
            if not gm_writes:
                continue
        seen.add(user.pk)
        notice = notice_for(user=user, kind=kind, actor=author, thread=thread)
        if notice is not None:
            made.append(notice)
    return made


def store_post_notices(*, notices: list[Notification], post: Post) -> list[Notification]:
    """Write `notices` (`new_post_notices`) about `post`, just stored, in their order, each
    about the post's thread as it is now; returns them as stored (a grouped one: the
    notice it joined). Precondition: inside the writer's transaction."""
    for notice in notices:
        notice.post, notice.thread = post, post.thread
    return store_notices(notices)


def drop_unreadable(*, thread: Thread) -> int:
    """Delete the notices about `thread` (and its posts) of users who may no longer read it,
    e.g. after it was moved to a GM board. Returns how many. Precondition: inside the
    mover's transaction."""
    notices = Notification.objects.filter(thread=thread)
    users = get_user_model().objects.filter(pk__in=notices.values("user_id"))
    gone = [u.pk for u in users if not rules.can_read_thread(u, thread)]
    if not gone:
        return 0
    publish_counts(user_ids=gone)
    return notices.filter(user_id__in=gone).delete()[0]


def unread_count(user) -> int:
    """The bell's number: one COUNT on the partial index of unread notices."""
    if user is None or not user.is_authenticated:
        return 0
    return Notification.objects.filter(user=user, read_at__isnull=True).count()


def header_counts(user, thread: Thread | None = None) -> dict[str, int]:
    """{"messages": what `services.unread_for` counts, "notices": `unread_count`} in one
    query (correlated subqueries on the user's row), for the header of every page. With
    `thread`, a user who is not staff also gets "mark": how far they have read it (0: never
    opened), in the same query (the thread page then writes no mark it need not move)."""
    if user is None or not user.is_authenticated:
        return {"messages": 0, "notices": 0}
    if not (user.is_staff and user.is_active):
        return _player_counts(user.pk, None if thread is None else thread.pk)
    own = (Conversation.objects.filter(owner=OuterRef("pk"), owner_unread__gt=0)
           .order_by().values("owner").annotate(n=Sum("owner_unread")).values("n"))
    notices = (Notification.objects.filter(user=OuterRef("pk"), read_at__isnull=True)
               .order_by().values("user").annotate(n=Count("pk")).values("n"))
    waiting = Value(0, IntegerField())
    if user.is_staff and user.is_active:
        # Players' messages waiting for this GM: a total over the conversations of the games
        # they run (rules.is_gm) and the general ones.
        waiting = Coalesce(Subquery(
            rules.gm_conversations(user).filter(staff_unread__gt=0).order_by()
            .annotate(total=Window(Sum("staff_unread"))).values("total")[:1],
            output_field=IntegerField()), 0)
    row = (get_user_model().objects.filter(pk=user.pk)
           .annotate(own=Coalesce(Subquery(own, output_field=IntegerField()), 0),
                     notices=Coalesce(Subquery(notices, output_field=IntegerField()), 0),
                     waiting=waiting)
           .values("own", "notices", "waiting").first())
    if row is None:
        return {"messages": 0, "notices": 0}
    return {"messages": row["own"] + row["waiting"], "notices": row["notices"]}


def _player_counts(user_id: int, thread_id: int | None = None) -> dict[str, int]:
    """`header_counts` of a user who is not active staff (no players' messages wait for
    them): the same two sums as one short statement, without the ORM (the header of every
    signed-in page asks; compiling the annotated query costs more than running it: the same
    columns through the ORM, subqueries on the user's row, measured side by side in one
    process took 7.0-7.1 ms a call against 0.78-0.85 ms, with or without the thread's mark
    and draft, 2026-12-07, so every signed-in page would pay some 6 ms more), and
    with `thread_id` their read mark of that thread and their draft of its reply box
    ("draft": an unsaved Draft with its text and time, or None), so the thread page reads
    the draft it renders into the box without a statement of its own."""
    from .models import Draft, ThreadReadState

    conversations = connection.ops.quote_name(Conversation._meta.db_table)
    notices = connection.ops.quote_name(Notification._meta.db_table)
    marks = connection.ops.quote_name(ThreadReadState._meta.db_table)
    drafts_table = connection.ops.quote_name(Draft._meta.db_table)
    mark = (f", (SELECT last_read_number FROM {marks} WHERE user_id = %s AND thread_id = %s)"
            f", (SELECT body FROM {drafts_table} WHERE user_id = %s AND thread_id = %s)"
            f", (SELECT updated_at FROM {drafts_table} WHERE user_id = %s AND thread_id = %s)"
            if thread_id is not None else "")
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT (SELECT COALESCE(SUM(owner_unread), 0) FROM {conversations} "  # noqa: S608
            f"WHERE owner_id = %s AND owner_unread > 0), "
            f"(SELECT COUNT(*) FROM {notices} WHERE user_id = %s AND read_at IS NULL){mark}",
            [user_id, user_id, *((user_id, thread_id) * 3 if thread_id is not None else ())])
        row = cursor.fetchone()
    counts = {"messages": int(row[0]), "notices": int(row[1])}
    if thread_id is not None:
        counts["mark"] = int(row[2] or 0)
        counts["draft"] = (None if row[4] is None else
                           Draft(user_id=user_id, thread_id=thread_id, body=row[3],
                                 updated_at=row[4]))
    return counts


def mark_read(*, user, notification_id: int) -> bool:
    """Mark one of `user`'s own notices read; False if it is not theirs (or not there)."""
    own = Notification.objects.filter(pk=notification_id, user=user)
    if own.filter(read_at__isnull=True).update(read_at=timezone.now()):
        publish_counts(user_ids=[user.pk])
        return True
    return own.exists()


def mark_all_read(*, user) -> int:
    """Mark every unread notice of `user` read; returns how many."""
    read = Notification.objects.filter(user=user, read_at__isnull=True).update(
        read_at=timezone.now())
    if read:
        publish_counts(user_ids=[user.pk])
    return read


def read_seen(*, user, thread: Thread, first: int, last: int) -> int:
    """`user` has seen the posts of `thread` numbered `first` to `last` (one page of it):
    the notices about those posts are read, and only those (a notice about a post on
    another page stays unread until that page is seen, whatever the thread's read mark
    says). Returns how many."""
    read = Notification.objects.filter(
        user=user, thread=thread, read_at__isnull=True, post__number__gte=first,
        post__number__lte=last).update(read_at=timezone.now())
    if read:
        publish_counts(user_ids=[user.pk])
    return read


def read_conversation(*, user, conversation: Conversation) -> None:
    """`user` opened `conversation`: notices of its messages from 神的使者 are read."""
    if Notification.objects.filter(user=user, conversation=conversation,
                                   read_at__isnull=True).update(read_at=timezone.now()):
        publish_counts(user_ids=[user.pk])
