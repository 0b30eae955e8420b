"""A task really runs in a separate Celery worker process over the configured broker (the
worker is the shared `celery_worker_and_beat` fixture of tests/conftest.py)."""

import os
import time

import pytest
from django.conf import settings


@pytest.mark.django_db(transaction=True)
def test_a_task_runs_in_a_real_worker_over_the_broker(celery_worker_and_beat):
    from games.tasks import ping

    assert not settings.CELERY_TASK_ALWAYS_EAGER
    token = f"hello-{time.time_ns()}"
    result = ping.delay(token)
    reply = result.get(timeout=90)
    assert reply["pong"] == token
    # ran in the worker, not in this process
    assert reply["pid"] == celery_worker_and_beat.pid != os.getpid()


def test_the_broker_is_the_redis_the_cache_uses():
    """One stack: the broker is REDIS_URL's server (kombu spells a Unix socket
    redis+socket://), and so is every cache."""
    from config.devstack import broker_url

    assert settings.CELERY_BROKER_URL == broker_url(settings.REDIS_URL)
    assert settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://", "redis+socket://"))
    assert {c["LOCATION"] for c in settings.CACHES.values()} == {settings.REDIS_URL}


def test_each_xdist_worker_has_its_own_queue_and_cache_prefix():
    """Parallel test workers never share a Celery queue or a cache key."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        assert settings.CELERY_TASK_DEFAULT_QUEUE == "celery"
        return
    assert settings.TEST_WORKER == worker
    assert settings.CELERY_TASK_DEFAULT_QUEUE == f"celery-{worker}"
    assert settings.CACHES["default"]["KEY_PREFIX"].endswith(f"-{worker}")
    assert settings.CACHES["health"]["KEY_PREFIX"].endswith(f"-{worker}-health")
