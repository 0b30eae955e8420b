"""Thread.version: bumped by the database itself whenever one of the thread's posts is
written, changed or deleted.

The thread page keeps the rendered markup of a page of posts in the cache under the thread's
version (messaging/page_cache.py); a trigger rather than the services' own updates, so that
no way of changing a post (a service, the admin, a data fix in SQL, a test's `.update()`)
can leave a stale page in the cache. Each trigger adds one UPDATE of the thread's row in
the writer's transaction; the reply already updates that row, so no new lock is taken.
"""

from django.db import migrations, models

UP = """
CREATE FUNCTION messaging_post_bumps_thread() RETURNS trigger AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE messaging_thread SET version = version + 1 WHERE id = OLD.thread_id;
    END IF;
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.thread_id <> OLD.thread_id) THEN
        UPDATE messaging_thread SET version = version + 1 WHERE id = NEW.thread_id;
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER messaging_post_bumps_thread AFTER INSERT OR UPDATE OR DELETE
    ON messaging_post FOR EACH ROW EXECUTE FUNCTION messaging_post_bumps_thread();
"""
DOWN = """
DROP TRIGGER IF EXISTS messaging_post_bumps_thread ON messaging_post;
DROP FUNCTION IF EXISTS messaging_post_bumps_thread();
"""
class Migration(migrations.Migration):

    dependencies = [
        ('messaging', '0006_withdrawn'),
    ]

    operations = [
        migrations.AddField(
            model_name='thread',
            name='version',
            field=models.PositiveIntegerField(db_default=0, default=0, editable=False),
        ),
        migrations.RunSQL([UP], [DOWN]),
    ]
