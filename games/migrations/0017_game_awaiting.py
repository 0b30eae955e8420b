"""Game.awaiting: who the engine awaits, kept beside the state (games/awaiting.py).

The services write it with the state. So that a state written any other way (the admin, a
data fix in SQL, a test's `.update()`) never leaves a stale record for the reminder sweep
to trust, a trigger empties it whenever the state changes and it does not; the sweep then
works it out from the state. Existing games start empty (the sweep reads their state) and
get a record with their next step.
"""

from django.db import migrations, models

UP = """
CREATE FUNCTION games_game_awaiting_stale() RETURNS trigger AS $$
BEGIN
    NEW.awaiting := NULL;
    RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER games_game_awaiting_stale BEFORE UPDATE ON games_game FOR EACH ROW
    WHEN (OLD.state IS DISTINCT FROM NEW.state AND OLD.awaiting IS NOT DISTINCT FROM NEW.awaiting)
    EXECUTE FUNCTION games_game_awaiting_stale();
"""
DOWN = """
DROP TRIGGER IF EXISTS games_game_awaiting_stale ON games_game;
DROP FUNCTION IF EXISTS games_game_awaiting_stale();
"""
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
        migrations.RunSQL([UP], [DOWN]),
    ]
