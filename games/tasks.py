"""Celery tasks: thin wrappers that call services."""

import os

from celery import shared_task


@shared_task(name="games.ping")
def ping(value):
    """Proof of life for the worker: echoes `value` with the worker's process id."""
    return {"pong": value, "pid": os.getpid()}
