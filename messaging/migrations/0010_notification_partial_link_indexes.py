import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('messaging', '0009_board_version'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # The five single-column indexes Django made for the foreign keys go (dropped by
        # name: no table rebuild, no re-check of the foreign keys); the four links get
        # partial ones below, the user's lookups use notification_user_time.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='notification',
                    name='actor',
                    field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='by'),
                ),
                migrations.AlterField(
                    model_name='notification',
                    name='conversation',
                    field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='messaging.conversation', verbose_name='conversation'),
                ),
                migrations.AlterField(
                    model_name='notification',
                    name='post',
                    field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='messaging.post', verbose_name='post'),
                ),
                migrations.AlterField(
                    model_name='notification',
                    name='thread',
                    field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='messaging.thread', verbose_name='thread'),
                ),
                migrations.AlterField(
                    model_name='notification',
                    name='user',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='notifications', to=settings.AUTH_USER_MODEL, verbose_name='user'),
                ),
            ],
            database_operations=[
                migrations.RunSQL(f'DROP INDEX IF EXISTS "messaging_notification_{name}"',
                                  f'CREATE INDEX "messaging_notification_{name}" '
                                  f'ON "messaging_notification" ("{column}")')
                for name, column in (("actor_id_818f90c7", "actor_id"),
                                     ("conversation_id_506e3596", "conversation_id"),
                                     ("post_id_58fb3220", "post_id"),
                                     ("thread_id_12206a6c", "thread_id"),
                                     ("user_id_7f01f50a", "user_id"))
            ],
        ),
        migrations.AddIndex(
            model_name='notification',
            index=models.Index(condition=models.Q(('actor__isnull', False)), fields=['actor'], name='notification_actor'),
        ),
        migrations.AddIndex(
            model_name='notification',
            index=models.Index(condition=models.Q(('thread__isnull', False)), fields=['thread'], name='notification_thread'),
        ),
        migrations.AddIndex(
            model_name='notification',
            index=models.Index(condition=models.Q(('post__isnull', False)), fields=['post'], name='notification_post'),
        ),
        migrations.AddIndex(
            model_name='notification',
            index=models.Index(condition=models.Q(('conversation__isnull', False)), fields=['conversation'], name='notification_conversation'),
        ),
    ]
