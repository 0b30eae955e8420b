"""The forum (boards, threads, posts) and the private conversations with 神的使者.

Writes go through `messaging.services`; these models only hold data and the database
constraints that keep it consistent. Bodies are stored twice: the author's Markdown (`body`)
and the sanitized HTML rendered once when the row is written (`html`), so a page never
renders Markdown.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

MAX_TITLE_LENGTH = 120
MAX_BODY_LENGTH = 20_000


class Board(models.Model):
    """A forum board: the site-wide lobby, one board per game, or a GM-only board.

    A game's board is linked from `games.Game.board`; messaging never imports games.
    """

    class Kind(models.TextChoices):
        LOBBY = "lobby", _("Lobby")
        GAME = "game", _("Game board")
        GM = "gm", _("GM board")

    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices, default=Kind.GAME)
    slug = models.SlugField(_("slug"), max_length=60, unique=True, allow_unicode=False)
    title = models.CharField(_("title"), max_length=MAX_TITLE_LENGTH)
    description = models.TextField(_("description"), blank=True)
    position = models.IntegerField(
        _("position"), default=0, help_text=_("Boards are listed by ascending position."))
    is_locked = models.BooleanField(
        _("locked"), default=False,
        help_text=_("Only staff may start threads or reply in a locked board."))
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    last_post_at = models.DateTimeField(_("last post"), null=True, blank=True)
    # Moved by the services (messaging.services) in the transaction that creates, changes,
    # moves or deletes one of the board's threads or posts in one, and published on the
    # change feed when it commits: a board's list changed.
    version = models.PositiveIntegerField(default=0, db_default=0, editable=False)

    class Meta:
        ordering = ["position", "id"]
        verbose_name = _("board")
        verbose_name_plural = _("boards")

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("messaging-board", args=[self.slug])

    def owning_game(self):
        """The game this board belongs to (the games app's one-to-one `Board.game`, read
        through the reverse relation so messaging imports no game code), or None: the lobby
        (no query) and any board without a game."""
        if self.kind == self.Kind.LOBBY:
            return None
        try:
            return self.game
        except (ObjectDoesNotExist, AttributeError):
            return None


class Thread(models.Model):
    """A topic on a board. Its kind decides who may start it, reply to it and read it."""

    class Kind(models.TextChoices):
        ANNOUNCEMENT = "announcement", _("Announcement")
        VOTE = "vote", _("Vote")
        ANALYSIS = "analysis", _("Analysis")
        STORY = "story", _("Story")
        DISCUSSION = "discussion", _("Discussion")
        GM_ONLY = "gm_only", _("GM only")

    board = models.ForeignKey(Board, on_delete=models.CASCADE, related_name="threads",
                              verbose_name=_("board"))
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices,
                            default=Kind.DISCUSSION)
    title = models.CharField(_("title"), max_length=MAX_TITLE_LENGTH)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                               blank=True, related_name="threads", verbose_name=_("author"))
    # A name other apps can find a thread by, e.g. "day-3-vote"; empty for ordinary threads.
    key = models.SlugField(_("key"), max_length=60, blank=True)
    is_locked = models.BooleanField(
        _("locked"), default=False, help_text=_("Only staff may reply in a locked thread."))
    is_pinned = models.BooleanField(_("pinned"), default=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    last_post_at = models.DateTimeField(_("last post"), null=True, blank=True)
    last_post = models.ForeignKey("Post", on_delete=models.SET_NULL, null=True, blank=True,
                                  related_name="+", verbose_name=_("last post"))
    post_count = models.PositiveIntegerField(_("posts"), default=0)
    # The counter that numbers posts; never decreases, so a post's number is stable.
    last_number = models.PositiveIntegerField(default=0, editable=False)
    # Moved by the services (messaging.services) in the transaction that writes, edits,
    # withdraws or deletes one of the thread's posts or changes its row, and published on
    # the change feed when it commits: the key of its cached parts (messaging.blocks).
    # db_default: code of the previous release, still serving while the migration runs,
    # creates threads without naming the column.
    version = models.PositiveIntegerField(default=0, db_default=0, editable=False)

    class Meta:
        ordering = ["-is_pinned", "-last_post_at", "-id"]
        verbose_name = _("thread")
        verbose_name_plural = _("threads")
        indexes = [
            models.Index(fields=["board", "-is_pinned", "-last_post_at"],
                         name="thread_board_activity"),
            models.Index(fields=["-last_post_at"], name="thread_activity"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["board", "key"], condition=~Q(key=""),
                                    name="thread_unique_key_per_board"),
        ]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("messaging-thread", args=[self.pk])


class Post(models.Model):
    """One message in a thread, numbered from 1 in order of writing."""

    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="posts",
                               verbose_name=_("thread"))
    number = models.PositiveIntegerField(_("number"))
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                               blank=True, related_name="posts", verbose_name=_("author"))
    body = models.TextField(_("text (Markdown)"))
    html = models.TextField(_("rendered HTML"), editable=False)
    quote = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="quoted_by", verbose_name=_("quoted post"))
    created_at = models.DateTimeField(_("written"), auto_now_add=True)
    edited_at = models.DateTimeField(_("edited"), null=True, blank=True)
    edited_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                  null=True, blank=True, related_name="+",
                                  verbose_name=_("edited by"))
    # Set when the GM withdrew the post (a rolled-back announcement): it stays readable,
    # marked withdrawn, never deleted.
    withdrawn_at = models.DateTimeField(_("withdrawn"), null=True, blank=True)
    # Its search fields are a row of their own (PostSearch), written after the post's
    # transaction.

    class Meta:
        ordering = ["number"]
        verbose_name = _("post")
        verbose_name_plural = _("posts")
        constraints = [
            models.UniqueConstraint(fields=["thread", "number"], name="post_unique_number"),
        ]

    def __str__(self) -> str:
        return f"{self.thread} #{self.number}"

    def get_absolute_url(self) -> str:
        return reverse("messaging-post", args=[self.pk])


class PostSearch(models.Model):
    """A post's search fields (messaging/search.py): the folded text (with the thread's title
    for post #1) and its character and pair terms, which a GIN index covers.

    A row of its own, written by `search.index_after_commit` once the post's transaction has
    committed: maintaining the index (and, now and then, flushing its pending list into it)
    never happens while a writer holds the thread's lock, so the replies queued behind that
    lock never wait for it. Search finds a post a moment after it is stored
    (docs/architecture.md, "Search").
    """

    post = models.OneToOneField(Post, on_delete=models.CASCADE, primary_key=True,
                                related_name="search", verbose_name=_("post"))
    text = models.TextField(editable=False)
    terms = models.TextField(editable=False)

    class Meta:
        verbose_name = _("post's search terms")
        verbose_name_plural = _("posts' search terms")

    def __str__(self) -> str:
        return str(self.post_id)


class Conversation(models.Model):
    """The private conversation between one user and 神的使者.

    `board` is the context: null for the general conversation, a game's board for a seat's
    conversation in that game. A handover changes `owner`; access is checked against the
    current owner only, so the previous owner loses access at once.
    """

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="conversations", verbose_name=_("owner"))
    board = models.ForeignKey(Board, on_delete=models.CASCADE, null=True, blank=True,
                              related_name="conversations", verbose_name=_("context"))
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    last_message_at = models.DateTimeField(_("last message"), null=True, blank=True)
    # Counters kept by the services: messages from 神的使者 the owner has not seen yet, and
    # messages from the owner no staff member has read or answered yet.
    owner_unread = models.PositiveIntegerField(_("unread by owner"), default=0)
    staff_unread = models.PositiveIntegerField(_("unread by staff"), default=0)

    class Meta:
        ordering = ["-last_message_at", "-id"]
        verbose_name = _("conversation with the messenger")
        verbose_name_plural = _("conversations with the messenger")
        constraints = [
            models.UniqueConstraint(fields=["owner", "board"], condition=Q(board__isnull=False),
                                    name="conversation_unique_owner_board"),
            # NULLs are distinct in a plain unique constraint, so the general conversation
            # (board is null) needs its own partial constraint.
            models.UniqueConstraint(fields=["owner"], condition=Q(board__isnull=True),
                                    name="conversation_unique_general"),
        ]
        indexes = [
            models.Index(fields=["-last_message_at"], name="conversation_activity"),
        ]

    def __str__(self) -> str:
        from accounts.models import display_name

        context = self.board.title if self.board_id else _("general")
        return f"{display_name(self.owner)} · {context}"

    def get_absolute_url(self) -> str:
        if self.board_id is None:
            return reverse("messaging-conversation-general")
        return reverse("messaging-conversation", args=[self.pk])


class Message(models.Model):
    """One message in a conversation, either from the owner or from 神的使者.

    When staff answer as 神的使者, `sender` is the messenger account and `written_by` records
    the staff member; `written_by` is shown in the admin only, never to players.
    """

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE,
                                     related_name="messages", verbose_name=_("conversation"))
    sender = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                               blank=True, related_name="sent_messages",
                               verbose_name=_("sender"))
    from_messenger = models.BooleanField(_("from the messenger"), default=False)
    written_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                   null=True, blank=True, related_name="+",
                                   verbose_name=_("written by (staff)"))
    body = models.TextField(_("text (Markdown)"))
    html = models.TextField(_("rendered HTML"), editable=False)
    created_at = models.DateTimeField(_("sent"), auto_now_add=True)
    # Set when the GM rolled back the step that sent this result: still shown to the
    # conversation's owner, marked withdrawn.
    withdrawn_at = models.DateTimeField(_("withdrawn"), null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = _("message")
        verbose_name_plural = _("messages")
        indexes = [
            models.Index(fields=["conversation", "created_at"], name="message_conversation_time"),
        ]

    def __str__(self) -> str:
        return f"{self.conversation} @ {self.created_at:%Y-%m-%d %H:%M}"


class ThreadReadState(models.Model):
    """How far one user has read one thread: every post numbered up to `last_read_number`.

    Written only when the user opens the thread as a page (see `messaging.unread`); the
    number never goes down, so reading an old page again does not bring back old posts.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="thread_reads", verbose_name=_("user"))
    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="reads",
                               verbose_name=_("thread"))
    last_read_number = models.PositiveIntegerField(_("read up to post"), default=0)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("read mark")
        verbose_name_plural = _("read marks")
        constraints = [
            models.UniqueConstraint(fields=["user", "thread"], name="thread_read_unique_user"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} · {self.thread_id} · {self.last_read_number}"


class Notification(models.Model):
    """One on-site notice for one user (the bell in the header).

    Written only through `messaging.notifications.notify`. The sentence is built when the
    page is shown, in the reader's language, from `kind` and the linked rows; `text` is a
    short detail the caller adds (a game's name, a deadline), already in the reader's
    language, and `url` a link for notices that have no post or conversation to point at.
    """

    class Kind(models.TextChoices):
        REPLY = "reply", _("Reply in my thread")
        QUOTE = "quote", _("Quote of my post")
        MENTION = "mention", _("Mention")
        MESSENGER = "messenger", _("Message from the messenger")
        RESULT = "result", _("Private result")
        ANNOUNCEMENT = "announcement", _("Announcement in my game")
        VOTE_THREAD = "vote_thread", _("New vote thread in my game")
        DEADLINE = "deadline", _("Deadline coming soon")
        WATCH = "watch", _("New posts in a watched thread")
        REPORT = "report", _("A post reported to the GM")

    # Every notice has a user and most have none of the four links below: their indexes
    # hold only the rows that have one (a notice writes three index entries, not eight),
    # and the user's own index is notification_user_time's first column.
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="notifications", verbose_name=_("user"),
                             db_index=False)
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                              blank=True, related_name="+", verbose_name=_("by"),
                              db_index=False)
    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, null=True, blank=True,
                               related_name="+", verbose_name=_("thread"), db_index=False)
    post = models.ForeignKey(Post, on_delete=models.CASCADE, null=True, blank=True,
                             related_name="+", verbose_name=_("post"), db_index=False)
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, null=True,
                                     blank=True, related_name="+",
                                     verbose_name=_("conversation"), db_index=False)
    text = models.CharField(_("detail"), max_length=200, blank=True)
    url = models.CharField(_("link"), max_length=300, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    read_at = models.DateTimeField(_("read"), null=True, blank=True)
    # A grouped notice (`notifications.GROUPED`) stands for `count` alike events: while it is
    # unread, the next one with the same `group` key updates it (count, latest post, time)
    # instead of adding a row. db_default: the deadline sweep inserts notices without the
    # ORM and names neither column.
    count = models.PositiveIntegerField(_("events"), default=1, db_default=1)
    group = models.CharField(_("group"), max_length=40, blank=True, default="", db_default="")

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("notification")
        verbose_name_plural = _("notifications")
        indexes = [
            models.Index(fields=["user", "-created_at"], name="notification_user_time"),
            # The bell's count: a user's unread notices only.
            models.Index(fields=["user"], condition=Q(read_at__isnull=True),
                         name="notification_user_unread"),
            *(models.Index(fields=[link], condition=Q(**{f"{link}__isnull": False}),
                           name=f"notification_{link}")
              for link in ("actor", "thread", "post", "conversation")),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} · {self.kind} · {self.created_at:%Y-%m-%d %H:%M}"

    def get_absolute_url(self) -> str:
        """Where the notice leads: its own link, else its post, thread or conversation; a
        group of new posts in one thread (replies, a watched thread) leads to the first
        post the reader has not read."""
        if self.url:
            return self.url
        if self.count > 1 and self.thread_id and self.kind in (self.Kind.REPLY, self.Kind.WATCH):
            return reverse("messaging-thread-unread", args=[self.thread_id])
        if self.post_id:
            return reverse("messaging-post", args=[self.post_id])
        if self.thread_id:
            return reverse("messaging-thread", args=[self.thread_id])
        if self.conversation_id:
            return reverse("messaging-conversation", args=[self.conversation_id])
        return reverse("messaging-notifications")


class PostRevision(models.Model):
    """A post's text as it was before the edit `edited_by` made at `edited_at`
    (`services.edit_post`); staff read the history, players see only that the GM edited the
    post and when."""

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="revisions",
                             verbose_name=_("post"))
    body = models.TextField(_("earlier text (Markdown)"))
    html = models.TextField(_("earlier rendered HTML"), editable=False)
    edited_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                  null=True, blank=True, related_name="+",
                                  verbose_name=_("edited by"))
    edited_at = models.DateTimeField(_("edited"), auto_now_add=True)

    class Meta:
        ordering = ["-edited_at", "-id"]
        verbose_name = _("post revision")
        verbose_name_plural = _("post revisions")
        indexes = [models.Index(fields=["post", "-edited_at"], name="revision_post_time")]

    def __str__(self) -> str:
        return f"{self.post} @ {self.edited_at:%Y-%m-%d %H:%M}"


class Draft(models.Model):
    """The text a user is writing in one reply box (a thread's) or new-thread box (a
    board's), kept as they type so another device, a reload or a refused submit finds it
    (`messaging.drafts`). One per user and box; deleted when the post is made. Only its
    owner ever reads it: it is rendered into the signed-in owner's own page, never into a
    page or block kept for other readers."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="drafts", verbose_name=_("user"), db_index=False)
    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, null=True, blank=True,
                               related_name="+", verbose_name=_("thread"))
    board = models.ForeignKey(Board, on_delete=models.CASCADE, null=True, blank=True,
                              related_name="+", verbose_name=_("board"))
    title = models.CharField(_("title"), max_length=MAX_TITLE_LENGTH + 100, blank=True)
    kind = models.CharField(_("kind"), max_length=20, blank=True)
    body = models.TextField(_("text (Markdown)"), blank=True)
    updated_at = models.DateTimeField(_("saved"), auto_now=True)

    class Meta:
        verbose_name = _("draft")
        verbose_name_plural = _("drafts")
        constraints = [
            # A reply box (thread) or a new-thread box (board), never both nor neither.
            models.CheckConstraint(
                condition=(Q(thread__isnull=False, board__isnull=True)
                           | Q(thread__isnull=True, board__isnull=False)),
                name="draft_one_box"),
            models.UniqueConstraint(fields=["user", "thread"],
                                    condition=Q(thread__isnull=False),
                                    name="draft_unique_user_thread"),
            models.UniqueConstraint(fields=["user", "board"], condition=Q(board__isnull=False),
                                    name="draft_unique_user_board"),
        ]
        indexes = [models.Index(fields=["user", "-updated_at"], name="draft_user_time")]

    def __str__(self) -> str:
        return f"{self.user_id} · {self.thread_id or self.board_id} · {self.updated_at}"


class Bookmark(models.Model):
    """A post one user keeps (收藏), listed on their bookmarks page. Only the user sees it;
    a post they may no longer read (its thread moved to a GM board) is left off the list."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="bookmarks", verbose_name=_("user"), db_index=False)
    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="+",
                             verbose_name=_("post"))
    created_at = models.DateTimeField(_("saved"), auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("bookmark")
        verbose_name_plural = _("bookmarks")
        constraints = [
            models.UniqueConstraint(fields=["user", "post"], name="bookmark_unique_user_post"),
        ]
        indexes = [models.Index(fields=["user", "-created_at"], name="bookmark_user_time")]

    def __str__(self) -> str:
        return f"{self.user_id} · {self.post_id}"


class ThreadWatch(models.Model):
    """One user's choice for one thread: watch it (a grouped notice of its new posts) or mute
    it (no reply notices from it; see `notifications.notify_new_post` for what a mute keeps).
    No row: the default (a thread's author hears of replies, nobody else)."""

    class Level(models.TextChoices):
        WATCHING = "watching", _("Watching")
        MUTED = "muted", _("Muted")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="thread_watches", verbose_name=_("user"),
                             db_index=False)
    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="+",
                               verbose_name=_("thread"))
    level = models.CharField(_("level"), max_length=10, choices=Level.choices)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("thread watch")
        verbose_name_plural = _("thread watches")
        constraints = [
            models.UniqueConstraint(fields=["user", "thread"], name="watch_unique_user_thread"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} · {self.thread_id} · {self.level}"


class Report(models.Model):
    """A post reported (举报) to the GM of its board's game, or to the superusers for a board
    of no game, with the reporter's reason. The GMs read it in the console and mark it
    handled; the reporter is told only that it was sent."""

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="+",
                             verbose_name=_("post"))
    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                 null=True, related_name="+", verbose_name=_("reported by"))
    reason = models.TextField(_("reason"))
    created_at = models.DateTimeField(_("reported"), auto_now_add=True)
    handled_at = models.DateTimeField(_("handled"), null=True, blank=True)
    handled_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                   null=True, blank=True, related_name="+",
                                   verbose_name=_("handled by"))

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("report")
        verbose_name_plural = _("reports")

    def __str__(self) -> str:
        return f"{self.post} · {self.reporter_id}"
