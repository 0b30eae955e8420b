"""A reply holds its thread's lock for its statements only: no rendering, no lookup of
mentions, search terms, rate limit or notices' recipients runs while the lock is held, and
the locked part issues a fixed number of statements (messaging.services.reply's docstring).

The tests run in real transactions (the lock is taken and released by the service's own
BEGIN and COMMIT): a statement wrapper notes when the thread's `SELECT … FOR UPDATE` is
executed and the connection's commit when it ends, and the work that must happen before
the lock refuses to run in between.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.utils import translation

from messaging import mentions, notifications, rendering, search, services
from messaging.models import Notification, Thread

pytestmark = pytest.mark.django_db(transaction=True)

# A player's reply on the lobby (services.reply): the lock; the post, the thread's and the
# board's counters and versions; where the thread ends up. Then each notice: a grouped one
# (a reply in the reader's thread) looks up the reader's unread notice of the thread, then
# joins it or is inserted; a quote or a mention is inserted.
LOCKED_WITHOUT_NOTICES = 5
LOCKED_STATEMENTS = LOCKED_WITHOUT_NOTICES + 2  # notifying the thread's author
# When the thread or its board was written between the check before the lock and the lock,
# the rules are checked again under it: on the lobby, the games' posting check (the
# writer's secrets, the board's game).
RECHECK = 2


class Lock:
    """Watches one connection: `held` from the thread's `SELECT … FOR UPDATE` to the commit
    or rollback that ends its transaction, and the statements run meanwhile (those of the
    last time it was taken)."""

    def __init__(self):
        self.held = False
        self.statements: list[str] = []
        self.taken = 0

    def __call__(self, execute, sql, params, many, context):
        if self.held:
            self.statements.append(sql)
        elif sql.startswith("SELECT") and "FOR UPDATE" in sql and '"messaging_thread"' in \
                sql.split(" FROM ", 1)[1][:40]:
            self.held, self.taken = True, self.taken + 1
            self.statements = [sql]
        return execute(sql, params, many, context)

    def released(self):
        self.held = False


def _watch(monkeypatch) -> Lock:
    watch = Lock()
    for name in ("commit", "rollback"):
        ends = getattr(connection, name)

        def end(ends=ends):
            watch.released()
            return ends()

        monkeypatch.setattr(connection, name, end)

    return watch


def _outside(monkeypatch, watch: Lock, module, name: str) -> None:
    """`module.name` fails the test when it runs while `watch` is held."""
    original = getattr(module, name)

    def guarded(*args, **kwargs):
        assert not watch.held, f"{module.__name__}.{name} ran while the thread was locked"
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, guarded)


@pytest.fixture
def lock(monkeypatch):
    """The thread's lock as the service takes it, with every function that must run before
    it refusing to run while it is held."""
    watch = _watch(monkeypatch)
    for module, name in [
        (services, "render_with_mentions"), (mentions, "known_names"),
        (mentions, "render_post"), (rendering, "render_post"), (rendering, "render_markdown"),
        (services, "check_rate_limit"), (services, "consume"),
        (notifications, "new_post_notices"), (search, "fields_for"),
        (search, "document_terms"),
    ]:
        _outside(monkeypatch, watch, module, name)
    with connection.execute_wrapper(watch):
        yield watch


@pytest.fixture
def lock_only(monkeypatch):
    """The thread's lock watched, nothing refused under it."""
    watch = _watch(monkeypatch)
    with connection.execute_wrapper(watch):
        yield watch


@pytest.fixture
def thread(alice):
    return services.start_thread(board=services.lobby_board(), author=alice,
                                 kind=Thread.Kind.DISCUSSION, title="大家好", body="第一帖")


def test_a_reply_holds_the_thread_lock_for_its_statements_only(thread, bob, lock):
    post = services.reply(thread=thread, author=bob, body="**顶** 一下")
    assert lock.taken == 1 and not lock.held
    assert len(lock.statements) == LOCKED_STATEMENTS, "\n".join(lock.statements)
    assert post.number == 2 and Notification.objects.filter(
        user=thread.author, kind=Notification.Kind.REPLY, post=post).exists()
    assert post.search.terms  # its search row, written after the commit


def test_a_second_reply_joins_the_notice_with_the_same_statements(thread, bob, make_user,
                                                                  lock):
    services.reply(thread=thread, author=bob, body="一")
    lock.statements.clear()
    services.reply(thread=thread, author=make_user("第三人"), body="二")
    assert len(lock.statements) == LOCKED_STATEMENTS, "\n".join(lock.statements)
    notice = Notification.objects.get(user=thread.author)
    assert notice.count == 2


def test_mentions_and_quotes_are_worked_out_before_the_lock(thread, bob, make_user, lock):
    carol = make_user("小红")
    quoted = services.reply(thread=thread, author=carol, body="被引用")
    lock.statements.clear()
    Notification.objects.all().delete()
    services.reply(thread=thread, author=bob, body="@小红 你好 @阿丽", quote=quoted)
    # carol's quote (she is mentioned too: one notice, the most specific) and alice's mention
    # (she wrote the thread too): two notices, in one insert
    assert len(lock.statements) == LOCKED_WITHOUT_NOTICES + 1, "\n".join(lock.statements)
    kinds = sorted(Notification.objects.values_list("user__profile__display_name", "kind"))
    assert kinds == [("小红", Notification.Kind.QUOTE), ("阿丽", Notification.Kind.MENTION)]


def test_a_refused_reply_takes_no_lock(thread, bob, lock):
    services.set_thread_locked(thread=thread, locked=True)
    with pytest.raises(services.PostingRefused):
        services.reply(thread=thread, author=bob, body="晚了")
    assert lock.taken == 0


def _meanwhile(monkeypatch, write):
    """Run `write(thread row)` once, between the rules' check before the lock and the lock
    (as another writer's commit would land there); returns the rows the rules were asked
    about, in order."""
    check = services.rules.reply_refusal
    asked = []

    def checked(user, row, body=""):
        asked.append(row)
        if len(asked) == 1:
            write(Thread.objects.get(pk=row.pk))
        return check(user, row, body)

    monkeypatch.setattr(services.rules, "reply_refusal", checked)
    return asked


def test_rows_nobody_wrote_since_the_check_are_not_checked_again(thread, bob, lock,
                                                                 monkeypatch):
    asked = _meanwhile(monkeypatch, lambda row: None)
    services.reply(thread=thread, author=bob, body="顶")
    assert len(asked) == 1 and len(lock.statements) == LOCKED_STATEMENTS


def test_a_reply_landing_meanwhile_has_the_rules_checked_again_under_the_lock(
        thread, bob, make_user, lock, monkeypatch):
    carol = make_user("小红")
    asked = _meanwhile(monkeypatch, lambda row: services.reply(thread=row, author=carol,
                                                               body="抢先一步"))
    post = services.reply(thread=thread, author=bob, body="顶")
    assert post.number == 3 and len(asked) == 3  # bob's check, carol's, bob's again
    assert asked[2] is post.thread  # the row as locked
    assert len(lock.statements) == LOCKED_STATEMENTS + RECHECK, "\n".join(lock.statements)


def test_a_thread_locked_while_the_reply_waited_refuses_it_under_the_lock(thread, bob, lock,
                                                                         monkeypatch):
    """The GM's lock moves the thread's version: the rules are checked again on the row as
    locked, which refuses the reply, and nothing is stored."""
    asked = _meanwhile(monkeypatch, lambda row: services.set_thread_locked(thread=row,
                                                                          locked=True))
    with translation.override("en"), pytest.raises(services.PostingRefused, match="locked"):
        services.reply(thread=thread, author=bob, body="抢在锁之前")
    assert [row.is_locked for row in asked] == [False, True]
    assert thread.posts.count() == 1


def test_a_thread_moved_while_the_reply_waited_gets_its_notices_from_where_it_is(
        thread, gm, lock_only, monkeypatch):
    """Notices worked out before the lock are for the thread where it was; a thread moved
    to a GM board meanwhile has them worked out again under the lock, from where it is
    (its author, who may no longer read it, gets none)."""
    gm_board = services.create_board(slug="gm-room", title="天神专用", kind="gm")
    _meanwhile(monkeypatch, lambda row: services.move_thread(thread=row, board=gm_board))
    post = services.reply(thread=thread, author=gm, body="天神的话")
    assert post.thread.board == gm_board
    assert not Notification.objects.filter(user=thread.author).exists()
    # moved back, the same reply notifies the thread's author
    services.move_thread(thread=Thread.objects.get(pk=thread.pk), board=services.lobby_board())
    _meanwhile(monkeypatch, lambda row: None)
    services.reply(thread=thread, author=gm, body="天神的话")
    assert Notification.objects.filter(user=thread.author).exists()
