"""A reader's own tools on the forum: bookmarks (收藏), watching or muting a thread (订阅 /
静音), and reporting a post to the GM (举报). The only writers of `Bookmark`, `ThreadWatch`
and `Report`; the views call them.

Hidden information: every writer here first asks `rules.can_read_thread`; a post or thread
the user may not read is `PostingRefused(code="not_found")` (the views answer 404, as for a
thread that does not exist). A report tells its writer only that it was sent: never who
reads it, where, whether the game has a GM board, or whether anyone else reported the post.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.names import visible_text
from config.ratelimit import RateLimited, consume

from . import notifications, rules
from .models import Board, Bookmark, Post, Report, Thread, ThreadWatch
from .services import PostingRefused

MAX_REASON_LENGTH = 500
# Reports one user may send: a few an hour is plenty for a person, and stops a flood of
# notices to the GM (a GM's own reports on their boards are not limited).
REPORTS_PER_HOUR = 5


def _readable_post(user, post: Post) -> Post:
    """`post` if `user` may read it (with its thread and board loaded), else not_found."""
    if not rules.can_read_thread(user, post.thread):
        raise PostingRefused(_("This post does not exist."), code="not_found")
    return post


# --- bookmarks ----------------------------------------------------------------------------


def add_bookmark(*, user, post: Post) -> Bookmark:
    """Keep `post` on `user`'s bookmarks (again: the one bookmark already there)."""
    _readable_post(user, post)
    try:
        with transaction.atomic():
            return Bookmark.objects.create(user=user, post=post)
    except IntegrityError:  # already kept (a double click, two tabs)
        return Bookmark.objects.get(user=user, post=post)


def remove_bookmark(*, user, post: Post) -> bool:
    """Take `post` off `user`'s bookmarks; False if it was not there."""
    return Bookmark.objects.filter(user=user, post=post).delete()[0] > 0


def bookmarks_of(user) -> QuerySet:
    """`user`'s bookmarks, newest first, of the posts they may still read (a thread moved to
    a GM board since drops out), with each post's thread, board and author."""
    return Bookmark.objects.filter(
        user=user, post__in=rules.readable_posts(user).values("pk")
    ).select_related("post__thread__board", "post__author__profile")


def is_bookmarked(*, user, post: Post) -> bool:
    return user.is_authenticated and Bookmark.objects.filter(user=user, post=post).exists()


# --- watching and muting --------------------------------------------------------------------


def watch_level(*, user, thread: Thread) -> str:
    """ "watching", "muted" or "" (the default) for `user` and `thread`."""
    if not user.is_authenticated:
        return ""
    level = (
        ThreadWatch.objects.filter(user=user, thread=thread).values_list("level", flat=True).first()
    )
    return level or ""


def set_watch(*, user, thread: Thread, level: str) -> str:
    """`user` watches (`"watching"`), mutes (`"muted"`) or goes back to the default (`""`)
    for `thread`. Returns the level now in force."""
    if not rules.can_read_thread(user, thread):
        raise PostingRefused(_("This thread does not exist."), code="not_found")
    if level not in ("", *ThreadWatch.Level.values):
        raise PostingRefused(_("Choose watch, normal or mute."))
    if not level:
        ThreadWatch.objects.filter(user=user, thread=thread).delete()
        return ""
    ThreadWatch.objects.update_or_create(user=user, thread=thread, defaults={"level": level})
    return level


def watched_threads(user) -> QuerySet:
    """The threads `user` watches or muted (that they may still read), newest first."""
    return (
        ThreadWatch.objects.filter(user=user, thread__in=rules.readable_threads(user).values("pk"))
        .select_related("thread__board")
        .order_by("-updated_at", "-id")
    )


# --- reports --------------------------------------------------------------------------------


def clean_reason(reason: str | None) -> str:
    reason = (reason or "").replace("\r\n", "\n").strip()
    if not visible_text(reason):
        raise PostingRefused(_("Say why you report this post."))
    if len(reason) > MAX_REASON_LENGTH:
        raise PostingRefused(
            _("A reason is limited to %(limit)d characters; this one has %(length)d.")
            % {"limit": MAX_REASON_LENGTH, "length": len(reason)}
        )
    return reason


def report_post(*, reporter, post: Post, reason: str) -> Report:
    """`reporter` reports `post` to the GM of its board's game (to the superusers for a board
    of no game), with `reason`.

    Steps:
    1. The reporter may read the post (else not_found), the reason is readable text and the
       other apps allow it (`rules.report_refusal`: games refuses whoever reads a running
       game's secrets, since a report's readers may play).
    2. One open report per reporter and post: a second one is refused (nothing new to say).
    3. Count it against REPORTS_PER_HOUR (the board's GM is not limited), then store it.
    4. Each reader of reports for that board (`report_readers`) gets a grouped notice
       pointing to the reports list; the reporter gets none and learns nothing of them.
    """
    _readable_post(reporter, post)
    reason = clean_reason(reason)
    if post.author_id == reporter.pk:
        raise PostingRefused(_("You cannot report your own post."))
    refusal = rules.report_refusal(reporter, post.thread.board, reason)
    if refusal:
        raise PostingRefused(refusal, code="forbidden")
    with transaction.atomic():
        if Report.objects.filter(post=post, reporter=reporter, handled_at=None).exists():
            raise PostingRefused(_("You have already reported this post; the GM has your report."))
        board_id = post.thread.board_id
        if not rules.is_gm(reporter, board_id):
            try:
                consume(
                    scope="messaging.reports",
                    who=f"user:{reporter.pk}",
                    rate=f"{REPORTS_PER_HOUR}/h",
                )
            except RateLimited as refused:
                raise PostingRefused(
                    _("You can send at most %(limit)d reports an hour. Please wait a while.")
                    % {"limit": REPORTS_PER_HOUR},
                    code="rate_limited",
                    retry_after=refused.retry_after,
                ) from None
        report = Report.objects.create(post=post, reporter=reporter, reason=reason)
        url = reverse("admin:messaging_report_changelist")
        for reader in report_readers(post.thread.board):
            notifications.notify(
                user=reader, kind=notifications.Kind.REPORT, actor=reporter, post=post, url=url
            )
    return report


def report_readers(board: Board) -> list:
    """Who reads the reports of `board`'s posts: the GMs and co-GMs of the game it belongs
    to (never a seat holder), or for a board of no game the superusers; always active staff
    (`rules.console_boards_q`, the admin's own rule), never 神的使者's account."""
    staff = get_user_model().objects.filter(is_staff=True, is_active=True)
    return [
        user
        for user in staff
        if not rules.is_messenger(user)
        and Board.objects.filter(rules.console_boards_q(user), pk=board.pk).exists()
    ]


def open_reports(user, reports: QuerySet | None = None) -> QuerySet:
    """The reports `user` reads (those of the boards they manage in the console), with the
    post, its thread and board, its author and the reporter."""
    reports = Report.objects.all() if reports is None else reports
    return reports.filter(rules.console_boards_q(user, "post__thread__board_id")).select_related(
        "post__thread__board", "post__author__profile", "reporter__profile", "handled_by__profile"
    )


def mark_handled(*, user, report_ids) -> int:
    """Mark the reports of `report_ids` that `user` reads handled; returns how many."""
    return Report.objects.filter(
        rules.console_boards_q(user, "post__thread__board_id"),
        pk__in=list(report_ids),
        handled_at=None,
    ).update(handled_at=timezone.now(), handled_by=user)
