"""Game.page_version: bumped by the database itself whenever something the game's home page
shows changes.

The home page keeps its rendered parts (and, for anonymous readers, the whole page) in the
cache under the game's page version (games/web/home_cache.py). Triggers rather than the
services' own updates, as in messaging 0007 and 0008, so that no way of changing a game (a
service, the admin, a rollback, a data fix in SQL, a test's `.update()`) can leave a stale
page, or one showing what a rollback took back, in the cache. What moves it:
1. any change of the game's row (phase, step, state, deadline, status and outcome, name and
   the GM's other edits): a BEFORE UPDATE trigger sets it to the stored value plus one
   whatever the UPDATE wrote, so a `save()` of a game read before another trigger moved it
   can never set it back;
2. any row of the game's seats (a death, a substitution, a check-in), events, phases and
   announcements written, changed or deleted (once per statement);
3. a vote or announcement thread of the game's board created, deleted or re-keyed, and the
   board's slug changed (the page links them);
4. a seated player's name changed (a profile's display name created, changed or deleted; the
   username of an account).
Each adds one UPDATE of the game's row in the writer's transaction; the writers of 1 and 2
already hold that row's lock.
"""

from django.db import migrations, models

BUMP = "UPDATE games_game SET page_version = page_version + 1 WHERE {where}"
CHILDREN = ("games_seat", "games_event", "games_phase", "games_announcement")
SEATED = "id IN (SELECT game_id FROM games_seat WHERE user_id = {who})"
GAME_THREAD = """(substr({row}."key", 1, 5) = 'vote-' OR {row}."key" = 'announcements')"""

UP = f"""
CREATE FUNCTION games_game_page_version() RETURNS trigger AS $$
BEGIN
    NEW.page_version := OLD.page_version + 1;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER games_game_page_version BEFORE UPDATE ON games_game FOR EACH ROW
    WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION games_game_page_version();

CREATE FUNCTION games_rows_bump_game_new() RETURNS trigger AS $$
BEGIN
    {BUMP.format(where="id IN (SELECT DISTINCT game_id FROM new_rows)")};
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE FUNCTION games_rows_bump_game_old() RETURNS trigger AS $$
BEGIN
    {BUMP.format(where="id IN (SELECT DISTINCT game_id FROM old_rows)")};
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE FUNCTION games_rows_bump_game_both() RETURNS trigger AS $$
BEGIN
    {BUMP.format(where="id IN (SELECT game_id FROM old_rows UNION SELECT game_id FROM new_rows)")};
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
""" + "".join(f"""
CREATE TRIGGER {table}_bumps_game_insert AFTER INSERT ON {table}
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION games_rows_bump_game_new();
CREATE TRIGGER {table}_bumps_game_update AFTER UPDATE ON {table}
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION games_rows_bump_game_both();
CREATE TRIGGER {table}_bumps_game_delete AFTER DELETE ON {table}
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
    EXECUTE FUNCTION games_rows_bump_game_old();
""" for table in CHILDREN) + f"""
CREATE FUNCTION games_thread_bumps_game() RETURNS trigger AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND {GAME_THREAD.format(row="OLD")} THEN
        {BUMP.format(where="board_id = OLD.board_id")};
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND {GAME_THREAD.format(row="NEW")} THEN
        {BUMP.format(where="board_id = NEW.board_id")};
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER games_thread_bumps_game AFTER INSERT OR DELETE ON messaging_thread
    FOR EACH ROW EXECUTE FUNCTION games_thread_bumps_game();
CREATE TRIGGER games_thread_rekeyed_bumps_game AFTER UPDATE ON messaging_thread FOR EACH ROW
    WHEN (OLD."key" IS DISTINCT FROM NEW."key" OR OLD.board_id IS DISTINCT FROM NEW.board_id)
    EXECUTE FUNCTION games_thread_bumps_game();

CREATE FUNCTION games_board_bumps_game() RETURNS trigger AS $$
BEGIN
    {BUMP.format(where="board_id = NEW.id")};
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER games_board_slug_bumps_game AFTER UPDATE ON messaging_board FOR EACH ROW
    WHEN (OLD.slug IS DISTINCT FROM NEW.slug) EXECUTE FUNCTION games_board_bumps_game();

CREATE FUNCTION games_profile_bumps_games() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        {BUMP.format(where=SEATED.format(who="OLD.user_id"))};
    ELSE
        {BUMP.format(where=SEATED.format(who="NEW.user_id"))};
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER games_profile_name_bumps_games AFTER UPDATE ON accounts_profile FOR EACH ROW
    WHEN (OLD.display_name IS DISTINCT FROM NEW.display_name)
    EXECUTE FUNCTION games_profile_bumps_games();
CREATE TRIGGER games_profile_added_or_removed_bumps_games AFTER INSERT OR DELETE
    ON accounts_profile FOR EACH ROW EXECUTE FUNCTION games_profile_bumps_games();
CREATE FUNCTION games_user_bumps_games() RETURNS trigger AS $$
BEGIN
    {BUMP.format(where=SEATED.format(who="NEW.id"))};
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER games_user_name_bumps_games AFTER UPDATE ON auth_user FOR EACH ROW
    WHEN (OLD.username IS DISTINCT FROM NEW.username)
    EXECUTE FUNCTION games_user_bumps_games();
"""
DOWN = "".join(
    f"DROP TRIGGER IF EXISTS {table}_bumps_game_{op} ON {table};\n"
    for table in CHILDREN for op in ("insert", "update", "delete")) + """
DROP TRIGGER IF EXISTS games_game_page_version ON games_game;
DROP TRIGGER IF EXISTS games_thread_bumps_game ON messaging_thread;
DROP TRIGGER IF EXISTS games_thread_rekeyed_bumps_game ON messaging_thread;
DROP TRIGGER IF EXISTS games_board_slug_bumps_game ON messaging_board;
DROP TRIGGER IF EXISTS games_profile_name_bumps_games ON accounts_profile;
DROP TRIGGER IF EXISTS games_profile_added_or_removed_bumps_games ON accounts_profile;
DROP TRIGGER IF EXISTS games_user_name_bumps_games ON auth_user;
DROP FUNCTION IF EXISTS games_game_page_version();
DROP FUNCTION IF EXISTS games_rows_bump_game_new();
DROP FUNCTION IF EXISTS games_rows_bump_game_old();
DROP FUNCTION IF EXISTS games_rows_bump_game_both();
DROP FUNCTION IF EXISTS games_thread_bumps_game();
DROP FUNCTION IF EXISTS games_board_bumps_game();
DROP FUNCTION IF EXISTS games_profile_bumps_games();
DROP FUNCTION IF EXISTS games_user_bumps_games();
"""

class Migration(migrations.Migration):

    dependencies = [
        ('games', '0014_outbox_deferred_text'),
        ('messaging', '0008_people_bump_threads'),
        ('accounts', '0004_unique_name_skeleton'),
        ('auth', '0012_alter_user_first_name_max_length'),
    ]

    operations = [
        migrations.AddField(
            model_name='game',
            name='page_version',
            field=models.PositiveIntegerField(db_default=0, default=0, editable=False),
        ),
        migrations.RunSQL([UP], [DOWN]),
    ]
