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


def test_the_broker_is_redis_in_ci_and_embedded_by_default():
    if settings.REDIS_URL:
        assert settings.CELERY_BROKER_URL.startswith("redis://")
    else:
        assert settings.CELERY_BROKER_URL == "filesystem://"


def test_each_xdist_worker_has_its_own_queue_and_cache_prefix():
    """Parallel test workers never share a Celery queue, a cache key or a broker folder."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        assert settings.CELERY_TASK_DEFAULT_QUEUE == "celery"
        return
    assert settings.TEST_WORKER == worker
    assert settings.CELERY_TASK_DEFAULT_QUEUE == f"celery-{worker}"
    if settings.REDIS_URL:
        assert settings.CACHES["default"]["KEY_PREFIX"].endswith(f"-{worker}")
        assert settings.CACHES["health"]["KEY_PREFIX"].endswith(f"-{worker}-health")
    else:
        assert settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"].endswith(
            f"celery-{worker}/queue")
