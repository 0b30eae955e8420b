"""The storm's short form (scripts/storm.py --short): 100 live connects within 5 s and 10
page clients for 5 s against the production layout (gunicorn gthread pages, uvicorn /live/,
the clock's and the slow queue's Celery workers and beat, every process with its database
pool), on the test database. What must hold: no page answers 5xx, no live stream ends for
good, no "too many clients", no failed sweep, every phase due in the storm ended within the
sweep's interval + grace + 5 s, and never more connections per process kind than its pools
allow (the full storm and its figures: docs/operations.md "The storm")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from urllib.parse import quote

import pytest
from django.conf import settings


@pytest.mark.slow(seconds=35)
@pytest.mark.django_db(transaction=True)
def test_a_short_storm_leaves_the_clock_on_time_and_the_connections_within_the_pools():
    from django.db import connection

    db = connection.settings_dict
    url = (f"postgres://{db['USER'] or 'postgres'}@{quote(db['HOST'] or '127.0.0.1', safe='')}"
           f"{':' + str(db['PORT']) if db['PORT'] else ''}/{db['NAME']}")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("DB_") and k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    done = subprocess.run([sys.executable, "scripts/storm.py", "--short", "--database-url", url],
                          cwd=settings.BASE_DIR, env=env, capture_output=True, text=True,
                          timeout=300)
    lines = [line for line in done.stdout.splitlines() if line.startswith("storm: {")]
    assert lines, done.stdout[-3000:] + done.stderr[-3000:]
    print(done.stderr[-1500:])  # the phases' times, shown with -s or on a failure
    figures = json.loads(lines[-1][len("storm: "):])
    assert done.returncode == 0, (figures["failed"], done.stdout[-2000:])
    assert figures["pages"]["answers"] > 0 and figures["pages"]["5xx"] == 0
    assert figures["live"]["opened"] >= 100 and figures["live"]["ended_for_good"] == 0
    assert sum(figures["too_many_clients"].values()) == 0
    assert figures["sweeps"]["succeeded"] > 0 and figures["sweeps"]["failed"] == 0
    assert figures["clock"]["ended"] == figures["clock"]["phases_due"] > 0
    connections = figures["connections"]
    for kind, peak in connections["peak"].items():
        assert peak <= connections["configured"][kind], (kind, connections)
    assert connections["after_sum"] <= connections["configured_sum"]
