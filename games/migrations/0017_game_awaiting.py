"""Game.awaiting: who the engine awaits, kept beside the state (games/awaiting.py).

The services write it with the state. So that a state written any other way (the admin, a
data fix in SQL, a test's `.update()`) never leaves a stale record for the reminder sweep
to trust, a trigger empties it whenever the state changes and it does not; the sweep then
works it out from the state. Existing games start empty (the sweep reads their state) and
get a record with their next step.
"""

from django.db import migrations, models

POSTGRES_UP = """
CREATE FUNCTION games_game_awaiting_stale() RETURNS trigger AS $$
BEGIN
    NEW.awaiting := NULL;
    RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER games_game_awaiting_stale BEFORE UPDATE ON games_game FOR EACH ROW
    WHEN (OLD.state IS DISTINCT FROM NEW.state AND OLD.awaiting IS NOT DISTINCT FROM NEW.awaiting)
    EXECUTE FUNCTION games_game_awaiting_stale();
"""
POSTGRES_DOWN = """
DROP TRIGGER IF EXISTS games_game_awaiting_stale ON games_game;
DROP FUNCTION IF EXISTS games_game_awaiting_stale();
"""
SQLITE_UP = """CREATE TRIGGER games_game_awaiting_stale AFTER UPDATE OF state ON games_game
    WHEN OLD.state IS NOT NEW.state AND OLD.awaiting IS NEW.awaiting
    BEGIN UPDATE games_game SET awaiting = NULL WHERE id = NEW.id; END"""
SQLITE_DOWN = "DROP TRIGGER IF EXISTS games_game_awaiting_stale"


def create_trigger(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_UP)
    elif vendor == "sqlite":
        schema_editor.execute(SQLITE_UP)
    else:  # settings refuse any other database
        raise RuntimeError(f"no awaiting trigger for {vendor}")


def drop_trigger(apps, schema_editor):
    schema_editor.execute(POSTGRES_DOWN if schema_editor.connection.vendor == "postgresql"
                          else SQLITE_DOWN)


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0016_reminder_once_a_phase"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="awaiting",
            field=models.JSONField(blank=True, editable=False, null=True,
                                   verbose_name="awaited seats"),
        ),
        migrations.RunPython(create_trigger, drop_trigger),
    ]
