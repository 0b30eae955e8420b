"""The Redis outage drill (scripts/drills/redis_outage.py) in its short form, with SITE_URL
set (the address every email link must carry), so CI runs it: the drill's own redis-server is stopped for 16 s under
gunicorn, a Celery worker and beat, and pages, steps, phases and emails must all come
through (see the drill's docstring for what it checks). It works on this test's database.
About 50 s: the drill starts gunicorn, a worker and beat and its own Redis, waits until the
reminders before the outage are sent, keeps Redis down 16 s under load (each night falls due
as soon as its wolf's step is in, so the beat's sweeps cannot reach the worker, and the
phase advances once Redis is back), then waits for the overdue phases to advance. It waits
on those states, not on margins counted from its set-up, so a slow machine does not close a
night before its step (its `--canary`, run by hand, serves with Django's own Redis cache and
fails: every answer during the outage a 500). Its form with SITE_URL unset (`--short` alone) is left to a run by
hand: the in-process tests of tests/services/test_site_address.py cover where links come
from in both cases, and the outage itself is the same.
"""

from __future__ import annotations

import os
import subprocess
import sys
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection

DRILL = settings.BASE_DIR / "scripts" / "drills" / "redis_outage.py"


@pytest.mark.slow(seconds=60)
@pytest.mark.django_db(transaction=True)
def test_pages_steps_and_phases_survive_a_redis_outage(tmp_path):
    db = connection.settings_dict
    url = (f"postgres://{db['USER'] or 'postgres'}@{quote(db['HOST'] or '127.0.0.1', safe='')}"
           f"{':' + str(db['PORT']) if db['PORT'] else ''}/{db['NAME']}")
    env = dict(os.environ, DATABASE_URL=url, VAR_DIR=str(tmp_path))
    for name in ("DJANGO_ALLOW_ASYNC_UNSAFE", "SITE_URL"):
        env.pop(name, None)
    result = subprocess.run([sys.executable, str(DRILL), "--short", "--outage", "16", "--site-url"],
                            cwd=settings.BASE_DIR, env=env, capture_output=True, text=True,
                            timeout=240)
    report = result.stdout + result.stderr[-4000:]
    assert result.returncode == 0 and "SURVIVED" in result.stdout, report
    assert "500s: 0;" in result.stdout, report
    assert "missing from the log: 0" in result.stdout, report
