"""Parallel test workers (pytest-xdist) share one Redis db: the per-test cache clear of one
worker deletes its own keys and Celery queue, never another worker's (docs/operations.md
"Tests")."""

from __future__ import annotations

import redis

from tests.conftest import clear_cache


def test_a_workers_cache_clear_leaves_the_other_workers_keys(settings):
    settings.TEST_WORKER = "gw7"
    settings.CACHES = {**settings.CACHES,
                       "default": {**settings.CACHES["default"], "KEY_PREFIX": "kgtest-gw7"}}
    settings.CELERY_TASK_DEFAULT_QUEUE = "celery-gw7"
    client = redis.Redis.from_url(settings.REDIS_URL)
    mine = ["kgtest-gw7:1:rl:post", "kgtest-gw7:1:health:sweep-completed",
            "celery-gw7", "celery-gw7\x06\x163"]
    theirs = ["kgtest-gw70:1:rl:post", "kgtest-gw8:1:rl:post", "kgtest-gw8-health:1:x",
              "celery-gw8", "celery-gw70"]
    try:
        for key in mine + theirs:
            if key.startswith("celery"):
                client.rpush(key, "a message")  # a queue is a list
            else:
                client.set(key, "1")
        clear_cache()
        assert [k for k in mine if client.exists(k)] == []
        assert [k for k in theirs if client.exists(k)] == theirs
    finally:
        client.delete(*mine, *theirs)
