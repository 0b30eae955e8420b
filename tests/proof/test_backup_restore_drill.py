"""The backup drill (scripts/drills/backup_restore.py) on this test's database: a game of
猫有n条命 mid-night with each seat's night step, pg_dump (custom format), pg_restore into a
new database, the night resolved in both by the same service call at the same moment: the
two snapshots are equal. Its canary loses one night step in the restored copy, and the
drill must see the difference. About 20 s each (two processes set up Django and resolve a
night, the restore writes the schema); the databases it makes are dropped."""

from __future__ import annotations

import os
import subprocess
import sys
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection

DRILL = settings.BASE_DIR / "scripts" / "drills" / "backup_restore.py"


@pytest.mark.slow(seconds=25)
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("canary", [False, True], ids=["restored-copy", "canary"])
def test_a_restored_backup_resolves_the_night_as_the_original(canary, tmp_path):
    db = connection.settings_dict
    url = (f"postgres://{db['USER'] or 'postgres'}@{quote(db['HOST'] or '127.0.0.1', safe='')}"
           f"{':' + str(db['PORT']) if db['PORT'] else ''}/{db['NAME']}")
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update(DATABASE_URL=url, VAR_DIR=str(tmp_path))
    result = subprocess.run([sys.executable, str(DRILL)] + (["--canary"] if canary else []),
                            cwd=settings.BASE_DIR, env=env, capture_output=True, text=True,
                            timeout=300)
    report = result.stdout + result.stderr[-4000:]
    if canary:
        assert result.returncode == 1 and "DIFFERENT" in result.stdout, report
        assert ".steps" in result.stdout, report  # the lost step is named
    else:
        assert result.returncode == 0 and "SAME" in result.stdout, report
        assert "6 night steps submitted" in result.stdout, report
    with connection.cursor() as cursor:
        cursor.execute("select count(*) from pg_database where datname like %s",
                       [db["NAME"] + "_restored_%"])
        assert cursor.fetchone()[0] == 0  # the restored copy is gone
