"""Celery's broker (Redis) from both ends, so that neither a broker outage nor a bad message
takes anything down.

Sending: `send(task_name, kwargs)` publishes a task by name and never raises. Every message
we publish is a nudge whose work the database already holds (an outbox row, a win-rate
figure asked for again): when the broker is down the beat's sweep finds the work later, so
the caller (a player's step, after its transaction committed) just goes on.
1. The publish gives up fast (the Celery block of config/settings.py: a short connection
   and socket timeout, one retry) and asks for no result (a result would subscribe this
   process to the result backend on the same Redis).
2. After a failure this process sends nothing for `RETRY_SECONDS`: a step that queues ten
   notices pays one timeout of a hung broker, not ten.
3. The failure is logged as a warning at most once per `LOG_EVERY_SECONDS`; an error that
   is not the broker being away (a message that cannot be encoded) is logged with its
   traceback, and still not raised.

Receiving: a message in the queue that kombu cannot read (not JSON, or JSON that is not a
kombu message: garbage pushed into the Redis list by hand or by a foreign client) used to
stop the worker ("Unrecoverable error: JSONDecodeError", kombu's `Channel._brpop_read`).
`Transport` is kombu's Redis transport whose channel logs such a message (its first 500
characters) and drops it, as kombu already does for a bad message on a pub/sub channel; the
next message is handled as usual. A well-formed message whose body Celery cannot decode, or
that names an unknown task, is Celery's to log and discard (it does). The transport is
registered for the redis:// and rediss:// schemes (and so for redis+socket://) below, when
config/celery.py imports this module, before any connection is made.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from queue import Empty

from kombu.exceptions import OperationalError
from kombu.transport import TRANSPORT_ALIASES
from kombu.transport import redis as kombu_redis
from kombu.transport.virtual import Message as KombuMessage
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)

# --- sending -----------------------------------------------------------------------------

# What "the broker is not there" looks like to a publisher.
UNAVAILABLE = (OperationalError, RedisConnectionError, RedisTimeoutError, OSError)
RETRY_SECONDS = 10.0
LOG_EVERY_SECONDS = 60.0
_lock = threading.Lock()
_state = {"skip_until": 0.0, "logged_at": -1e9, "missed": 0}


def send(task_name: str, kwargs: dict) -> bool:
    """Publish task `task_name` with `kwargs`; True when the broker took it, False when it
    is down (or was a moment ago). Never raises. Call it only for work the database also
    holds, so a False loses nothing (see the module)."""
    from celery import current_app

    if time.monotonic() < _state["skip_until"]:
        with _lock:
            _state["missed"] += 1
        return False
    try:
        current_app.send_task(task_name, kwargs=kwargs, ignore_result=True)
    except UNAVAILABLE as exc:
        _failed(task_name, exc)
        return False
    except Exception:  # a bug, not an outage: say so loudly, but the caller's work is kept
        log.exception("could not publish %s; the beat's sweep does its work later", task_name)
        return False
    return True


def _failed(task_name: str, exc: Exception) -> None:
    now = time.monotonic()
    with _lock:
        _state["skip_until"] = now + RETRY_SECONDS
        _state["missed"] += 1
        if now - _state["logged_at"] < LOG_EVERY_SECONDS:
            return
        missed, _state["missed"], _state["logged_at"] = _state["missed"], 0, now
    log.warning("broker unavailable (%s: %s) publishing %s; not sent since the last "
                "warning: %d (their work waits for the beat); next try in %g s",
                type(exc).__name__, exc, task_name, missed, RETRY_SECONDS)


def reset() -> None:
    """Forget a failure (tests: the next `send` tries the broker again)."""
    with _lock:
        _state.update(skip_until=0.0, logged_at=-1e9, missed=0)


# --- receiving ---------------------------------------------------------------------------

class Undecodable(Exception):
    """A message kombu cannot read; `raw` is what came out of the queue."""

    def __init__(self, raw, reason: str):
        super().__init__(reason)
        self.raw = raw
        self.reason = reason


class Message(KombuMessage):
    """kombu's message, refusing an envelope it cannot read with `Undecodable` (instead of
    the KeyError, TypeError or binascii.Error kombu would let reach the worker's loop)."""

    def __init__(self, payload, channel=None, **kwargs):
        try:
            super().__init__(payload, channel=channel, **kwargs)
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise Undecodable(payload, f"not a kombu message ({type(exc).__name__}: "
                                       f"{exc})") from exc


class Channel(kombu_redis.Channel):
    Message = Message

    def _brpop_read(self, **options):
        """kombu's read of one message from BRPOP; a message it cannot read is logged and
        dropped (it has left the queue already), and the loop goes on as after an empty
        poll."""
        try:
            return super()._brpop_read(**options)
        except json.JSONDecodeError as exc:  # kombu's json.loads of the queue's item
            dropped(exc.doc, "not JSON")
        except Undecodable as exc:
            dropped(exc.raw, exc.reason)
        raise Empty()


def dropped(raw, reason: str) -> None:
    log.error("dropped a message from the broker that cannot be read (%s): %.500r", reason,
              raw)


class Transport(kombu_redis.Transport):
    Channel = Channel


TRANSPORT_ALIASES.update(redis="config.broker:Transport", rediss="config.broker:Transport")
