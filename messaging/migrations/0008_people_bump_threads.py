"""A changed name or staff status moves the version of every thread the person wrote in
(then): the cached pages of posts (messaging/page_cache.py) hold their authors'
names and 神的使者's badge, so whatever changes a name (a profile's display name, created,
changed or deleted; the username of an account without a profile) or whether someone is
active staff (their badge) makes a new key for those pages. Like migration 0007's triggers,
in the database, so no way of changing them is missed. A rename touches each thread of the
person once (the posts' author index finds them); it is rare.
"""

from django.db import migrations

BUMP = ("UPDATE messaging_thread SET version = version + 1 "
        "WHERE id IN (SELECT thread_id FROM messaging_post WHERE author_id = {who})")

UP = f"""
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
DOWN = """
DROP TRIGGER IF EXISTS messaging_profile_name_changed ON accounts_profile;
DROP TRIGGER IF EXISTS messaging_profile_added_or_removed ON accounts_profile;
DROP FUNCTION IF EXISTS messaging_profile_bumps_threads();
DROP TRIGGER IF EXISTS messaging_user_name_or_staff_changed ON auth_user;
DROP FUNCTION IF EXISTS messaging_user_bumps_threads();
"""
class Migration(migrations.Migration):

    dependencies = [
        ('messaging', '0007_thread_version'),
        ('accounts', '0004_unique_name_skeleton'),
        ('auth', '0012_alter_user_first_name_max_length'),
    ]

    operations = [
        migrations.RunSQL([UP], [DOWN]),
    ]
