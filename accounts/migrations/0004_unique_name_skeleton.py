"""The skeleton column filled by 0003 becomes unique (a separate migration, so PostgreSQL
alters the table outside the transaction that updated its rows)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0003_name_skeleton"),
    ]

    operations = [
        migrations.AddConstraint(
            model_name="profile",
            constraint=models.UniqueConstraint(fields=("name_skeleton",),
                                               name="unique_name_skeleton"),
        ),
    ]
