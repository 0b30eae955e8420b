"""Pooled database connections (config/settings.py, Django's "pool" option): sized per
process from the environment, refused at start when the sizes make no sense, and a request
that waits too long for a connection gets the 503 page with Retry-After, never a hang.

The suite itself runs with the pool off (under pytest DB_POOL defaults to false: test
transactions and the threads some tests start keep plain connections); these tests turn it
on in processes of their own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from urllib.parse import quote

import pytest
from django.conf import settings

ROOT = settings.BASE_DIR


def run_python(code: str, **env) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items()
                if not k.startswith("DB_") and k not in ("DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE")}
    full_env.update(env)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=full_env,
                          capture_output=True, text=True, timeout=120)


SHOW = ("import django, json, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', "
        "'config.settings'); django.setup(); from django.conf import settings; "
        "db = settings.DATABASES['default']; "
        "print(json.dumps([db['OPTIONS'].get('pool'), db['CONN_MAX_AGE']]))")


def test_the_suite_runs_without_the_pool():
    assert "pool" not in settings.DATABASES["default"]["OPTIONS"]
    assert settings.DB_POOL is False


def test_every_process_has_a_pool_sized_from_its_environment():
    done = run_python(SHOW, DB_POOL="true", DB_POOL_MIN="2", DB_POOL_MAX="6",
                      DB_POOL_TIMEOUT="3")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [
        {"min_size": 2, "max_size": 6, "timeout": 3, "name": "default"}, 0]


def test_outside_pytest_the_pool_is_on_by_default():
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_VERSION"}
    env = {k: v for k, v in env.items() if not k.startswith("DB_")}
    done = subprocess.run([sys.executable, "-c", SHOW], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [
        {"min_size": 1, "max_size": 4, "timeout": 5, "name": "default"}, 0]


@pytest.mark.parametrize("env,fragment", [
    ({"DB_POOL_MAX": "0"}, "DB_POOL_MAX=0 is below the minimum 1"),
    ({"DB_POOL_MIN": "-1"}, "DB_POOL_MIN=-1 is below the minimum 0"),
    ({"DB_POOL_MIN": "5", "DB_POOL_MAX": "2"}, "DB_POOL_MIN=5 is above DB_POOL_MAX=2"),
    ({"DB_POOL_TIMEOUT": "soon"}, "DB_POOL_TIMEOUT='soon' is not an integer"),
    ({"DB_POOL_TIMEOUT": "0"}, "DB_POOL_TIMEOUT=0 is below the minimum 1"),
    ({"DB_POOL": "maybe"}, "DB_POOL='maybe' is not a boolean"),
    ({"DB_CONN_MAX_AGE": "60"}, "DB_CONN_MAX_AGE=60 must be 0 with the pool"),
])
def test_pool_sizes_that_make_no_sense_stop_the_process_with_their_name(env, fragment):
    done = run_python(SHOW, **{"DB_POOL": "true", **env})
    assert done.returncode != 0
    assert fragment in done.stderr


def test_without_the_pool_connections_are_kept_per_thread_as_before():
    done = run_python(SHOW, DB_POOL="false")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [None, 60]


# --- a pool that is used up answers 503 with Retry-After within its timeout ------------------

PROBE = textwrap.dedent('''
    import json, os, sys, threading, time
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django
    django.setup()
    from django.conf import settings
    from django.db import connection, connections
    from django.test import Client

    def ask(path, cookie):
        client = Client(raise_request_exception=False)
        if cookie:
            client.cookies[settings.SESSION_COOKIE_NAME] = cookie
        started = time.monotonic()
        answer = client.get(path, HTTP_HOST="localhost")
        connections.close_all()
        return {"path": path, "cookie": bool(cookie), "status": answer.status_code,
                "retry_after": answer.headers.get("Retry-After"),
                "seconds": time.monotonic() - started}

    def in_a_thread(path, cookie):
        box = {}
        thread = threading.Thread(target=lambda: box.update(ask(path, cookie)))
        thread.start()
        thread.join(60)
        return box

    asks = [("/games/", None), ("/games/", "nosuchsession" + "x" * 20)]
    connection.ensure_connection()    # the pool's only connection, held by this thread
    held = [in_a_thread(*a) for a in asks]
    connection.close()                # back to the pool
    free = [in_a_thread(*a) for a in asks]
    print(json.dumps({"held": held, "free": free}))
''')


@pytest.mark.django_db
def test_a_request_that_finds_the_pool_used_up_gets_503_with_retry_after_in_time():
    """A pool of one connection, held by another thread of the process: a request waits
    DB_POOL_TIMEOUT (1 s) for a connection, then gets psycopg_pool.PoolTimeout, which is an
    OperationalError: the outage page, 503 with Retry-After, from the view's middleware or,
    when the session read meets it first, from the 500 handler. With the connection given
    back, the same requests are answered."""
    from django.db import connection

    db = connection.settings_dict
    url = (f"postgres://{db['USER'] or 'postgres'}@{quote(db['HOST'] or '127.0.0.1', safe='')}"
           f"{':' + str(db['PORT']) if db['PORT'] else ''}/{db['NAME']}")
    done = run_python(PROBE, DATABASE_URL=url, DB_POOL="true", DB_POOL_MIN="0",
                      DB_POOL_MAX="1", DB_POOL_TIMEOUT="1", DEBUG="false",
                      LOG_LEVEL="WARNING")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    for answer in found["held"]:
        assert (answer["status"], answer["retry_after"]) == (503, "30"), answer
        # The anonymous request waits once; one with a session cookie meets the used-up pool
        # in the session read and again in an outer middleware that asks for the user.
        waits = 2 if answer["cookie"] else 1
        assert 0.9 <= answer["seconds"] <= waits * 1 + 1.5, answer
    assert [a["status"] for a in found["free"]] == [200, 200], found["free"]
    assert "couldn't get a connection after 1.00 sec" in done.stderr
