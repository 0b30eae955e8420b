"""The home page's 最新主题: what is new for its reader, as a mature forum shows it.

Discourse's "Latest" and Discuz!'s 最新主题 list people's topics; a topic pinned in its own
board (置顶) is pinned there only. Here one account, 神的使者, opens a game's announcements, its
vote threads and its rounds, and the lobby's sign-ups: listed one by one they fill a phone's
first screen with every game's official threads. So:

1. People's threads are a row each, by their last post, newest first.
2. 神的使者's threads of one board are one row: the newest of them (linked to the reader's
   first unread post, with the group's unread count) and the others active lately folded
   under it (a <details> list). The row sorts by its newest thread.
3. A signed-in reader's own games come first, under a heading of their own (the boards the
   games app declares theirs: messaging.hooks.reader_boards, used as a subquery); then the
   rest of the site. A visitor sees the one list.
4. 置顶 is a board's own order: this list neither sorts by it nor shows it (the rows'
   template leaves the flag out where a row names its board).

Cost: one query per list (two for a reader with games of their own), each the newest
`SCAN` threads of the list's boards the reader may read, by the activity index, with the
reader's read marks (messaging.unread); the rows are built from them in Python. A board whose
神的使者 threads are all older than the newest `SCAN` threads of the list is not shown,
which is what a list of the latest means.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.conf import settings
from django.db.models import QuerySet

from . import hooks, rules, unread
from .models import Board, Thread

LATEST_ROWS = 15  # rows of the rest of the site
MINE_ROWS = 8  # rows of the reader's own games
SCAN = 4 * LATEST_ROWS  # threads read for each list, before 神的使者's are grouped
FOLDED = 5  # at most this many other threads of 神的使者 under a group's newest


@dataclass
class Row:
    """One row of the list: a thread (`others` empty, `grouped` False), or 神的使者's threads
    of one board (`grouped`): `thread` the newest of them, `others` the rest read."""

    thread: Thread
    grouped: bool = False
    others: list[Thread] = field(default_factory=list)

    @property
    def board(self) -> Board:
        return self.thread.board

    @property
    def at(self) -> dt.datetime:
        return self.thread.last_post_at

    @property
    def others_unread(self) -> int:
        """The posts the reader has not read in the folded threads."""
        return sum(getattr(t, "unread_count", 0) for t in self.others)

    @property
    def unread_count(self) -> int:
        return getattr(self.thread, "unread_count", 0) + self.others_unread


def _threads(user, boards: QuerySet | None, *, mine: bool) -> list[Thread]:
    """The newest SCAN threads the reader may read, on their own boards (`mine`) or on the
    others (`boards` None: every board), with the reader's read marks."""
    threads = rules.readable_threads(user).filter(last_post_at__isnull=False)
    if boards is not None:
        threads = threads.filter(board_id__in=boards) if mine else threads.exclude(
            board_id__in=boards)
    return list(unread.with_read_marks(
        threads.select_related("board", "author", "last_post__author__profile"), user,
    ).order_by("-last_post_at", "-id")[:SCAN])


def _rows(threads: list[Thread], limit: int) -> list[Row]:
    """`threads` (newest first) as rows, 神的使者's threads of one board in one row, at most
    `limit` rows."""
    rows: list[Row] = []
    groups: dict[int, Row] = {}
    for thread in threads:
        official = thread.author is not None and (
            thread.author.get_username() == settings.MESSENGER_USERNAME)
        if not official:
            rows.append(Row(thread))
            continue
        group = groups.get(thread.board_id)
        if group is None:
            groups[thread.board_id] = group = Row(thread, grouped=True)
            rows.append(group)
        elif len(group.others) < FOLDED:
            group.others.append(thread)
    return rows[:limit]


def latest_rows(user) -> tuple[list[Row], list[Row]]:
    """(the rows of the reader's own games, the rows of the rest of the site): the first
    empty for a visitor and for a reader with no game of their own."""
    boards = hooks.reader_boards(user) if user.is_authenticated else None
    if boards is None:
        return [], _rows(_threads(user, None, mine=False), LATEST_ROWS)
    return (_rows(_threads(user, boards, mine=True), MINE_ROWS),
            _rows(_threads(user, boards, mine=False), LATEST_ROWS))
