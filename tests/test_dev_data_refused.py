"""A test run never touches `make run`'s data: it refuses to start on Redis db 0 (the
development site's cache and queue, config/devstack.py) or on a test database named as the
development one, whatever the environment (tests/conftest.py, pytest_configure)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.conf import settings

from config import devstack
from tests.conftest import CHECKED, development_data_in_reach, redis_db


@pytest.mark.parametrize(("url", "db"), [
    ("unix:///srv/var/run/redis.sock?db=0", 0),
    ("unix:///srv/var/run/redis.sock?db=15", 15),
    ("unix:///srv/var/run/redis.sock", 0),
    ("redis+socket:///srv/var/run/redis.sock?virtual_host=7", 7),
    ("redis://127.0.0.1:6379/7", 7),
    ("redis://127.0.0.1:6379/0", 0),
    ("redis://127.0.0.1:6379", 0),
    ("rediss://cache.example.org:6380/", 0),
])
def test_the_db_an_address_names(url, db):
    assert redis_db(url) == db


def test_db_0_anywhere_and_the_development_database_are_refused():
    dev_redis = devstack.redis_url()
    assert development_data_in_reach([dev_redis], "test_killinggames", "killinggames") == [
        f"Redis {dev_redis} is db 0, which `make run` uses for its cache and queue"]
    assert development_data_in_reach(["redis://127.0.0.1:6379"], "test_x", "x") != []
    assert development_data_in_reach(["redis://127.0.0.1:6379/15"], "killinggames", "x") == [
        "the test database 'killinggames' is the development database"]
    assert development_data_in_reach(["redis://127.0.0.1:6379/15"], "mine", "mine") == [
        "the test database 'mine' is the development database"]


def test_the_test_stack_and_this_run_are_let_through():
    """The positive control: `make test`'s Redis db and test database, and this very run's
    settings (it started), reach nothing of the development site's."""
    assert development_data_in_reach([devstack.redis_url(devstack.TEST_REDIS_DB)],
                                     "test_killinggames", "killinggames") == []
    assert CHECKED["redis_urls"][0] == settings.REDIS_URL
    assert CHECKED["test_database"] != CHECKED["database"]
    assert development_data_in_reach(**CHECKED) == []


def test_pytest_with_no_environment_refuses_before_anything_runs():
    """`.venv/bin/pytest tests/…` with no REDIS_URL would use db 0 of the project's own
    Redis (config/devstack.py's default, `make run`'s): the run stops at once, saying why
    and how to run the tests, before collecting a test. (Only collecting is asked for, so
    a run that failed to refuse would still touch nothing.)"""
    env = {k: v for k, v in os.environ.items()
           if k not in ("REDIS_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND")
           and not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT"))}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--collect-only",
         "tests/test_mail.py"],
        cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=120)
    said = done.stdout + done.stderr
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, said
    assert f"Redis {devstack.redis_url()} is db 0" in said, said
    assert "make test PYTEST_ARGS=" in said, said
    assert "test_mail.py::" not in said, said  # nothing collected
