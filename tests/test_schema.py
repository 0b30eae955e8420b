"""The schema the migrations build is the one the models describe, and the indexes the
busiest writes pay for are the ones the reads need (a notice writes three index
entries, not eight; a reminder claim three, not four)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.db import connection

from games.models import ReminderSent
from messaging.models import Notification

pytestmark = pytest.mark.django_db


def indexes(model) -> dict[str, tuple[list[str], bool]]:
    """{index name: (its columns, unique)} of the model's table as the database has it,
    beside its primary key."""
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, model._meta.db_table)
    return {name: (info["columns"], info["unique"]) for name, info in found.items()
            if (info["index"] or info["unique"]) and not info["primary_key"]}


def test_no_model_change_lacks_its_migration():
    out = io.StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)  # SystemExit if any
    assert "No changes detected" in out.getvalue()


def test_a_notice_is_written_into_its_user_indexes_and_only_the_links_it_has():
    found = indexes(Notification)
    single = sorted(cols[0] for cols, _unique in found.values() if len(cols) == 1)
    # the unread count's partial index and the four links' partial ones: no plain index of
    # user_id (notification_user_time starts with it) and none of a link's NULLs
    assert single == sorted(["user_id", "actor_id", "thread_id", "post_id", "conversation_id"])
    assert found["notification_user_time"][0] == ["user_id", "created_at"]
    with connection.cursor() as cursor:
        partial = _partial_indexes(cursor, Notification._meta.db_table)
    assert partial == {"notification_user_unread", "notification_actor", "notification_thread",
                       "notification_post", "notification_conversation"}


def test_a_reminder_claim_has_no_index_of_its_phase_beside_the_unique_one():
    found = indexes(ReminderSent)
    assert found["reminder_once_a_phase"] == (["phase_id", "user_id"], True)
    assert sorted(cols for cols, _unique in found.values()) == [["phase_id", "user_id"],
                                                                ["user_id"]]


def test_a_reminder_claim_is_checked_against_its_phase_and_user():
    """A reminder claim's phase and user are foreign keys in the database like every other
    row's (the claims, the notices and the emails written with them)."""
    with connection.cursor() as cursor:
        def keys(model):
            found = connection.introspection.get_constraints(cursor, model._meta.db_table)
            return sorted(info["columns"][0] for info in found.values() if info["foreign_key"])

        from games.models import OutboxEmail

        assert keys(ReminderSent) == ["phase_id", "user_id"]
        assert keys(Notification) == sorted(["user_id", "actor_id", "thread_id", "post_id",
                                             "conversation_id"])
        assert keys(OutboxEmail) == ["user_id"]


def _partial_indexes(cursor, table: str) -> set[str]:
    """Names of the table's indexes with a WHERE."""
    cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = %s "
                   "AND indexdef LIKE '%% WHERE %%'", [table])
    return {row[0] for row in cursor.fetchall()}


@pytest.mark.django_db(transaction=True)
def test_the_index_migrations_go_back_and_forth():
    """messaging 0010 and games 0019 drop the indexes by name and make them again when
    unapplied (and games 0020 the claims' foreign keys); both directions leave the schema
    the models (or the migration before) say."""
    from django.db.migrations.executor import MigrationExecutor

    before = [("messaging", "0009_board_version"), ("games", "0018_reminder_look")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    try:
        old = indexes(Notification)
        assert "messaging_notification_user_id_7f01f50a" in old
        assert "notification_thread" not in old
        assert "games_remindersent_phase_id_3d532899" in indexes(ReminderSent)
        with connection.cursor() as cursor:
            assert sum(bool(info["foreign_key"]) for info in connection.introspection
                       .get_constraints(cursor, ReminderSent._meta.db_table).values()) == 2
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
    assert "messaging_notification_user_id_7f01f50a" not in indexes(Notification)
    assert "notification_thread" in indexes(Notification)
    assert "games_remindersent_phase_id_3d532899" not in indexes(ReminderSent)
