"""Thread.version and Board.version are moved by the services that change what they cover
(messaging.services, in the writer's transaction, with the change feed told on commit), not
by the database: the triggers of migrations 0007 (a post moves its thread), 0008 (a renamed
author moves every thread they wrote in) and 0009 (a thread moves its board; neither number
may go down) are dropped. Authors' names are no longer part of any version: the thread page
reads them on every view (messaging.blocks).

Reversing puts the three migrations' triggers back as they were.
"""

from importlib import import_module

from django.db import migrations

EARLIER = ("0007_thread_version", "0008_people_bump_threads", "0009_board_version")


def _sql(attribute: str, order) -> list[str]:
    return [getattr(import_module(f"messaging.migrations.{name}"), attribute) for name in order]


class Migration(migrations.Migration):

    dependencies = [
        ("messaging", "0013_post_search_row"),
    ]

    operations = [
        migrations.RunSQL(_sql("DOWN", reversed(EARLIER)), _sql("UP", EARLIER)),
    ]
