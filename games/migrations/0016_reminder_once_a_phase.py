"""ReminderSent: one row per (phase, user) instead of one per (phase, user, hours).

A sweep that reminds a seat now writes one row (or moves it to a nearer mark) where it wrote
up to three (the bell's hours=0 row, the mark due, the marks it passed).
Existing rows are folded into one per (phase, user): `hours` the nearest mark emailed (0 when
only the bell was recorded), `first_hours` the first mark (the bell rang with it).
"""

from django.conf import settings
from django.db import migrations, models
from django.db.models import Count, Max, Min, Q


def fold(apps, schema_editor):
    """One row per (phase, user): the lowest-numbered row kept, with the nearest mark emailed
    and the first one; the others deleted."""
    # Checked now, not at commit: the constraint added next cannot ALTER a table with checks
    # still pending.
    schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    ReminderSent = apps.get_model("games", "ReminderSent")
    groups = (ReminderSent.objects.order_by().values("phase_id", "user_id")
              .annotate(n=Count("id"), keep=Min("id"), first=Max("hours"),
                        nearest=Min("hours", filter=Q(hours__gt=0))))
    ReminderSent.objects.update(first_hours=models.F("hours"))
    kept = [ReminderSent(pk=g["keep"], hours=g["nearest"] or 0, first_hours=g["first"])
            for g in groups.filter(n__gt=1)]
    ReminderSent.objects.bulk_update(kept, ["hours", "first_hours"], batch_size=500)
    ReminderSent.objects.exclude(pk__in=groups.values("keep")).delete()


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0015_game_page_version'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='remindersent',
            name='reminder_once',
        ),
        migrations.AddField(
            model_name='remindersent',
            name='first_hours',
            field=models.PositiveSmallIntegerField(default=0, help_text='The mark of the first reminder, which also rang the bell.', verbose_name='first reminder'),
        ),
        migrations.AlterField(
            model_name='remindersent',
            name='created',
            field=models.DateTimeField(auto_now_add=True, verbose_name='last reminded'),
        ),
        migrations.AlterField(
            model_name='remindersent',
            name='hours',
            field=models.PositiveSmallIntegerField(help_text='The nearest mark reminded so far.', verbose_name='hours before the deadline'),
        ),
        migrations.RunPython(fold, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='remindersent',
            constraint=models.UniqueConstraint(fields=('phase', 'user'), name='reminder_once_a_phase'),
        ),
    ]
