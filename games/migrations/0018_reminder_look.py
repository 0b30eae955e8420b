"""ReminderLook: the reminder sweep's next look at a game in a narrow row of its own, moved
out of the game's row (Game.remind_at): a look rewrote the game's whole row (its state,
seven indexes, the page version trigger) for one timestamp. Existing looks are copied.
"""

import django.db.models.deletion
from django.db import migrations, models


def copy_looks(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    ReminderLook = apps.get_model("games", "ReminderLook")
    ReminderLook.objects.bulk_create(
        [ReminderLook(game_id=pk, at=at) for pk, at in
         Game.objects.filter(status="running", remind_at__isnull=False)
         .values_list("pk", "remind_at")],
        batch_size=1000)


def copy_back(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    ReminderLook = apps.get_model("games", "ReminderLook")
    for pk, at in ReminderLook.objects.values_list("game_id", "at"):
        Game.objects.filter(pk=pk).update(remind_at=at)


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0017_game_awaiting'),
    ]

    operations = [
        migrations.CreateModel(
            name='ReminderLook',
            fields=[
                ('game', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='reminder_look', serialize=False, to='games.game')),
                ('at', models.DateTimeField(blank=True, null=True)),
            ],
            options={
                'verbose_name': 'reminder look',
                'verbose_name_plural': 'reminder looks',
            },
        ),
        migrations.RunPython(copy_looks, copy_back),
        migrations.RemoveIndex(
            model_name='game',
            name='game_remind_due',
        ),
        migrations.RemoveField(
            model_name='game',
            name='remind_at',
        ),
        migrations.AddIndex(
            model_name='reminderlook',
            index=models.Index(condition=models.Q(('at__isnull', False)), fields=['at'], name='reminder_look_due'),
        ),
    ]
