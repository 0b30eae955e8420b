"""The Celery worker's broker and queues (that a task runs in a worker process of its own,
over the broker, is proved with the beat's clock in tests/services/test_beat.py)."""

import os
import time

import pytest
from django.conf import settings


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


@pytest.mark.django_db(transaction=True)
def test_a_message_the_worker_cannot_read_is_dropped_and_the_next_task_runs(
        celery_worker, tmp_path):
    """Garbage pushed into the Redis list the worker consumes (not JSON; JSON that is not a
    kombu message; a kombu message whose body is not base64, or not JSON) is logged and
    dropped (config/broker.py; Celery itself for a body it cannot decode), and the worker
    goes on: a normal task pushed after them runs. Before, the first one stopped the worker
    ("Unrecoverable error: JSONDecodeError")."""
    import base64
    import json
    import uuid

    import redis

    from games.tasks import ping

    assert ping.delay("before").get(timeout=90)["pong"] == "before"  # the worker is up

    def envelope(body: str) -> bytes:
        return json.dumps({
            "body": body, "content-encoding": "utf-8", "content-type": "application/json",
            "headers": {"task": "games.ping", "id": str(uuid.uuid4()), "args": [],
                        "kwargs": {}},
            "properties": {"delivery_tag": str(uuid.uuid4()), "body_encoding": "base64",
                           "delivery_info": {"exchange": "", "routing_key": "celery"},
                           "priority": 0}}).encode()

    garbage = [b"\xff\x00 not json {", b'{"no": "envelope"}', b"[1, 2, 3]", b"null",
               envelope("%%% not base64 %%%"),
               envelope(base64.b64encode(b"not json {").decode())]
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    client = redis.Redis.from_url(settings.REDIS_URL)
    for item in garbage:
        client.lpush(queue, item)
    token = f"after-{time.time_ns()}"
    reply = ping.delay(token).get(timeout=60)
    assert reply["pong"] == token
    assert celery_worker.poll() is None  # still running
    assert client.llen(queue) == 0  # nothing left behind to trip over again
    log = (tmp_path / "celery.log").read_text()
    assert "Unrecoverable error" not in log
    assert log.count("dropped a message from the broker that cannot be read") == 5
    assert "Can't decode message body" in log  # Celery's own handling of the last one
