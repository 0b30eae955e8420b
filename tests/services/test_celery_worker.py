"""A task really runs in a separate Celery worker process over the configured broker."""

import os
import subprocess
import sys
import time

import pytest
from django.conf import settings


@pytest.fixture
def worker():
    env = dict(os.environ)
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo",
         "--without-gossip", "--without-mingle", "--loglevel=INFO"],
        cwd=settings.BASE_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_a_task_runs_in_a_real_worker_over_the_broker(worker):
    from games.tasks import ping

    assert not settings.CELERY_TASK_ALWAYS_EAGER
    token = f"hello-{time.time_ns()}"
    result = ping.delay(token)
    reply = result.get(timeout=90)
    assert reply["pong"] == token
    assert reply["pid"] == worker.pid != os.getpid()  # ran in the worker, not in this process


def test_the_broker_is_redis_in_ci_and_embedded_by_default():
    if settings.REDIS_URL:
        assert settings.CELERY_BROKER_URL.startswith("redis://")
    else:
        assert settings.CELERY_BROKER_URL == "filesystem://"
