"""A changed name or staff status moves the version of every thread the person wrote in
(issue 17 item 1): the cached pages of posts (messaging/page_cache.py) hold their authors'
names and 神的使者's badge, so whatever changes a name (a profile's display name, created,
changed or deleted; the username of an account without a profile) or whether someone is
active staff (their badge) makes a new key for those pages. Like migration 0007's triggers,
in the database, so no way of changing them is missed. A rename touches each thread of the
person once (the posts' author index finds them); it is rare.
"""

from django.db import migrations

BUMP = ("UPDATE messaging_thread SET version = version + 1 "
        "WHERE id IN (SELECT thread_id FROM messaging_post WHERE author_id = {who})")

POSTGRES_UP = f"""
CREATE FUNCTION messaging_profile_bumps_threads() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        {BUMP.format(who="OLD.user_id")};
    ELSE
        {BUMP.format(who="NEW.user_id")};
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER messaging_profile_name_changed AFTER UPDATE ON accounts_profile FOR EACH ROW
    WHEN (OLD.display_name IS DISTINCT FROM NEW.display_name)
    EXECUTE FUNCTION messaging_profile_bumps_threads();
CREATE TRIGGER messaging_profile_added_or_removed AFTER INSERT OR DELETE ON accounts_profile
    FOR EACH ROW EXECUTE FUNCTION messaging_profile_bumps_threads();
CREATE FUNCTION messaging_user_bumps_threads() RETURNS trigger AS $$
BEGIN
    {BUMP.format(who="NEW.id")};
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER messaging_user_name_or_staff_changed AFTER UPDATE ON auth_user FOR EACH ROW
    WHEN (OLD.username IS DISTINCT FROM NEW.username OR OLD.is_staff IS DISTINCT FROM NEW.is_staff
          OR OLD.is_active IS DISTINCT FROM NEW.is_active)
    EXECUTE FUNCTION messaging_user_bumps_threads();
"""
POSTGRES_DOWN = """
DROP TRIGGER IF EXISTS messaging_profile_name_changed ON accounts_profile;
DROP TRIGGER IF EXISTS messaging_profile_added_or_removed ON accounts_profile;
DROP FUNCTION IF EXISTS messaging_profile_bumps_threads();
DROP TRIGGER IF EXISTS messaging_user_name_or_staff_changed ON auth_user;
DROP FUNCTION IF EXISTS messaging_user_bumps_threads();
"""
SQLITE_UP = [
    f"""CREATE TRIGGER messaging_profile_name_changed AFTER UPDATE OF display_name
        ON accounts_profile WHEN OLD.display_name IS NOT NEW.display_name
        BEGIN {BUMP.format(who="NEW.user_id")}; END""",
    f"""CREATE TRIGGER messaging_profile_added AFTER INSERT ON accounts_profile
        BEGIN {BUMP.format(who="NEW.user_id")}; END""",
    f"""CREATE TRIGGER messaging_profile_removed AFTER DELETE ON accounts_profile
        BEGIN {BUMP.format(who="OLD.user_id")}; END""",
    f"""CREATE TRIGGER messaging_user_name_or_staff_changed
        AFTER UPDATE OF username, is_staff, is_active ON auth_user
        WHEN OLD.username IS NOT NEW.username OR OLD.is_staff IS NOT NEW.is_staff
             OR OLD.is_active IS NOT NEW.is_active
        BEGIN {BUMP.format(who="NEW.id")}; END""",
]
SQLITE_DOWN = [f"DROP TRIGGER IF EXISTS {name}" for name in (
    "messaging_profile_name_changed", "messaging_profile_added", "messaging_profile_removed",
    "messaging_user_name_or_staff_changed")]


def create_triggers(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_UP)
    elif vendor == "sqlite":
        for sql in SQLITE_UP:
            schema_editor.execute(sql)
    else:  # settings refuse any other database
        raise RuntimeError(f"no people triggers for {vendor}")


def drop_triggers(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(POSTGRES_DOWN)
    else:
        for sql in SQLITE_DOWN:
            schema_editor.execute(sql)


class Migration(migrations.Migration):

    dependencies = [
        ('messaging', '0007_thread_version'),
        ('accounts', '0004_unique_name_skeleton'),
        ('auth', '0012_alter_user_first_name_max_length'),
    ]

    operations = [
        migrations.RunPython(create_triggers, drop_triggers),
    ]
