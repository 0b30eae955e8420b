import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0018_reminder_look'),
    ]

    operations = [
        # The unique (phase, user) index serves the phase's lookups: its own index goes,
        # dropped by name (no table rebuild, no re-check of the foreign key).
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='remindersent',
                    name='phase',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='reminders', to='games.phase'),
                ),
            ],
            database_operations=[
                migrations.RunSQL('DROP INDEX IF EXISTS "games_remindersent_phase_id_3d532899"',
                                  'CREATE INDEX "games_remindersent_phase_id_3d532899" '
                                  'ON "games_remindersent" ("phase_id")'),
            ],
        ),
    ]
