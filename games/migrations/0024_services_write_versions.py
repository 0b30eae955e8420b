"""The services write what the database's triggers wrote, and the reminder claims get their
foreign keys back.

1. The triggers of games 0015 (every change of a game's row, seats, events, phases,
   announcements, its vote and announcement threads, its board's slug and a seated
   player's name moved `Game.page_version`) and games 0017 (a state written without its
   awaiting record emptied it) are dropped with their functions. The services move the page
   version under the game lock (games.services.kernel.changed) and write the awaiting
   record with the state; the reminder sweep trusts a record only while its step count is
   the game's.
2. ReminderSent's phase and user are real foreign keys again (games 0020 had dropped the
   constraints to save the sweep's checks): claims whose phase or user is gone (a game
   deleted while a sweep was writing) are deleted first.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

CHILDREN = ("games_seat", "games_event", "games_phase", "games_announcement")
DROP = "".join(
    f"DROP TRIGGER IF EXISTS {table}_bumps_game_{op} ON {table};\n"
    for table in CHILDREN for op in ("insert", "update", "delete")) + """
DROP TRIGGER IF EXISTS games_game_page_version ON games_game;
DROP TRIGGER IF EXISTS games_thread_bumps_game ON messaging_thread;
DROP TRIGGER IF EXISTS games_thread_rekeyed_bumps_game ON messaging_thread;
DROP TRIGGER IF EXISTS games_board_slug_bumps_game ON messaging_board;
DROP TRIGGER IF EXISTS games_profile_name_bumps_games ON accounts_profile;
DROP TRIGGER IF EXISTS games_profile_added_or_removed_bumps_games ON accounts_profile;
DROP TRIGGER IF EXISTS games_user_name_bumps_games ON auth_user;
DROP TRIGGER IF EXISTS games_game_awaiting_stale ON games_game;
DROP FUNCTION IF EXISTS games_game_page_version();
DROP FUNCTION IF EXISTS games_rows_bump_game_new();
DROP FUNCTION IF EXISTS games_rows_bump_game_old();
DROP FUNCTION IF EXISTS games_rows_bump_game_both();
DROP FUNCTION IF EXISTS games_thread_bumps_game();
DROP FUNCTION IF EXISTS games_board_bumps_game();
DROP FUNCTION IF EXISTS games_profile_bumps_games();
DROP FUNCTION IF EXISTS games_user_bumps_games();
DROP FUNCTION IF EXISTS games_game_awaiting_stale();
"""

ORPHANS = """
DELETE FROM games_remindersent r
 WHERE NOT EXISTS (SELECT 1 FROM games_phase p WHERE p.id = r.phase_id)
    OR NOT EXISTS (SELECT 1 FROM auth_user u WHERE u.id = r.user_id);
"""


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0023_game_choices_close_at"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # Not reversible into triggers: going back leaves the services' versions in place.
        migrations.RunSQL(DROP, migrations.RunSQL.noop),
        migrations.RunSQL(ORPHANS, migrations.RunSQL.noop),
        migrations.AlterField(
            model_name="remindersent",
            name="phase",
            field=models.ForeignKey(db_index=False,
                                    on_delete=django.db.models.deletion.CASCADE,
                                    related_name="reminders", to="games.phase",
                                    verbose_name="phase"),
        ),
        migrations.AlterField(
            model_name="remindersent",
            name="user",
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                    related_name="+", to=settings.AUTH_USER_MODEL,
                                    verbose_name="user"),
        ),
    ]
