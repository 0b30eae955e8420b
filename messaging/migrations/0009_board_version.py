"""Board.version: bumped by the database whenever one of the board's threads is created,
changed (its title, kind, flags, counters, last post, or its own `version`: a post written,
edited, withdrawn or deleted, an author renamed, migrations 0007 and 0008), moved in or out,
or deleted.

The board page keeps its rows (messaging/board_rows.py) and anonymous readers' whole page
under the board's version; triggers rather than the services' own updates, so that no way of
changing a thread (a service, the admin, a trigger, a data fix in SQL) can leave a stale list.

Locks: a reply already updates its board's row (`last_post_at`) after its thread's, so the
bump takes no new kind of lock and keeps the order thread, then board. A board's version,
and a thread's (migration 0007), never goes down: a whole-row save of a row read before a
bump (the admin's `save()` writes every column) keeps the higher number, so a number is
never reused for other content.
"""

from django.db import migrations, models

UP = """
CREATE FUNCTION messaging_thread_bumps_board() RETURNS trigger AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE messaging_board SET version = version + 1 WHERE id = OLD.board_id;
    END IF;
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.board_id <> OLD.board_id) THEN
        UPDATE messaging_board SET version = version + 1 WHERE id = NEW.board_id;
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER messaging_thread_bumps_board AFTER INSERT OR DELETE ON messaging_thread
    FOR EACH ROW EXECUTE FUNCTION messaging_thread_bumps_board();
CREATE TRIGGER messaging_thread_changed_bumps_board AFTER UPDATE ON messaging_thread
    FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION messaging_thread_bumps_board();
CREATE FUNCTION messaging_board_version_kept() RETURNS trigger AS $$
BEGIN
    IF NEW.version < OLD.version THEN
        NEW.version := OLD.version;
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER messaging_board_version_kept BEFORE UPDATE ON messaging_board
    FOR EACH ROW EXECUTE FUNCTION messaging_board_version_kept();
CREATE TRIGGER messaging_thread_version_kept BEFORE UPDATE ON messaging_thread
    FOR EACH ROW EXECUTE FUNCTION messaging_board_version_kept();
"""
DOWN = """
DROP TRIGGER IF EXISTS messaging_thread_bumps_board ON messaging_thread;
DROP TRIGGER IF EXISTS messaging_thread_changed_bumps_board ON messaging_thread;
DROP FUNCTION IF EXISTS messaging_thread_bumps_board();
DROP TRIGGER IF EXISTS messaging_board_version_kept ON messaging_board;
DROP TRIGGER IF EXISTS messaging_thread_version_kept ON messaging_thread;
DROP FUNCTION IF EXISTS messaging_board_version_kept();
"""
class Migration(migrations.Migration):

    dependencies = [
        ('messaging', '0008_people_bump_threads'),
    ]

    operations = [
        migrations.AddField(
            model_name='board',
            name='version',
            field=models.PositiveIntegerField(db_default=0, default=0, editable=False),
        ),
        migrations.RunSQL([UP], [DOWN]),
    ]
