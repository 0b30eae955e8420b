"""The log line format (settings.LOGGING), and what keeps an outage from flooding the log
and the admins' mailbox.

Lines, the same in every process (web, workers, beat): time in UTC with its Z, level,
logger, the game when there is one, message:

    2026-12-01T08:15:02Z INFO games.services.lifecycle game=42 phase advanced: night 1 -> day 1

A line is about a game when it was logged with `extra={"game_id": ...}` (phase advances, GM
acts, a failing advance: games/services); other lines carry no game field.

Floods (docs/operations.md "Error reporting"): an outage makes every request fail the same
way, and a line or a mail for each of them buries the one that matters. So:
1. `Outage`: a dependency that is down is logged twice per process, once when this process
   first answers without it and once when it is back (config/middleware.py: the database);
2. `SkipOutageAnswers` drops Django's own per-request line for a 503 (`django.request`),
   the site's deliberate answer to an outage the lines of 1. (or /readyz) already name;
3. `log_once_per`: a repeated line (Redis away, the change feed, /readyz's checks) goes out
   at most once per period per key, saying how many were held back;
4. `AdminMailHandler`: Django's error mail to ADMINS, sent from a thread of its own (never
   the request's), at most one per distinct error per period, with the count of the others.
"""

from __future__ import annotations

import logging
import queue
import threading
import time

from django.utils.log import AdminEmailHandler

# The one line format of every process: the web's (Django's LOGGING; gunicorn's own lines
# through gunicorn.conf.py), the workers' and beat's (config/celery.py).
LINE_FORMAT = "%(asctime)s %(levelname)s %(name)s %(game)s%(message)s"
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


class UTCFormatter(logging.Formatter):
    """Times in UTC whatever the server's zone (Django sets the process's to TIME_ZONE),
    with the Z that says so, so lines from several machines sort."""

    converter = time.gmtime

    def __init__(self, fmt: str = LINE_FORMAT, datefmt: str = TIME_FORMAT, **kwargs) -> None:
        super().__init__(fmt, datefmt, **kwargs)

    def format(self, record: logging.LogRecord) -> str:
        game_id = getattr(record, "game_id", None)
        record.game = f"game={game_id} " if game_id is not None else ""
        return super().format(record)


# --- repeated lines ----------------------------------------------------------------------

_held: dict[str, list] = {}   # key -> [when last logged (monotonic), lines held back since]
_held_lock = threading.Lock()


def log_once_per(seconds: float, logger: logging.Logger, msg: str, *args,
                 key: str | None = None, level: int = logging.WARNING) -> bool:
    """Log `msg % args` at `level` unless a line of the same `key` (default: the logger's
    name and `msg`, the template, not its arguments) went out less than `seconds` ago in
    this process. A line held back is counted, and the next one that goes out ends with
    "(N more like it in the last S s)". Never a traceback: name the exception in `args`.
    True when the line went out."""
    key = key or f"{logger.name}:{msg}"
    now = time.monotonic()
    with _held_lock:
        last = _held.get(key)
        if last is not None and now - last[0] < seconds:
            last[1] += 1
            return False
        held = last[1] if last is not None else 0
        _held[key] = [now, 0]
    if held:
        msg += f" ({held} more like it in the last {seconds:g} s)"
    logger.log(level, msg, *args)
    return True


def forget_held_lines() -> None:
    """Let every line of `log_once_per` out again at once (tests)."""
    with _held_lock:
        _held.clear()


# --- outages -----------------------------------------------------------------------------

class Outage:
    """One dependency's outage as this process sees it. `down(reason)` on every request
    answered without it: the first logs "<name> unavailable; <answer>: <reason>" at WARNING,
    the others only count. `up()` when it answers again: "<name> back after N s; M requests
    answered without it", once. Thread-safe; `up()` costs nothing when nothing is down."""

    def __init__(self, logger: logging.Logger, name: str, answer: str) -> None:
        self.log, self.name, self.answer = logger, name, answer
        self.since: float | None = None
        self.count = 0
        self._lock = threading.Lock()

    def down(self, reason: object) -> None:
        with self._lock:
            self.count += 1
            if self.since is not None:
                return
            self.since = time.monotonic()
        self.log.warning("%s unavailable; %s: %s", self.name, self.answer,
                         " ".join(str(reason).split()))  # psycopg's reasons span lines

    def up(self) -> None:
        if self.since is None:
            return
        with self._lock:
            if self.since is None:
                return
            seconds, count = time.monotonic() - self.since, self.count
            self.since, self.count = None, 0
        self.log.warning("%s back after %.0f s; %d requests answered without it meanwhile",
                         self.name, seconds, count)


class SkipOutageAnswers(logging.Filter):
    """On `django.request`: drop the per-request line Django writes for a 503 response
    (ERROR, with the traceback when an exception led to it, and so a mail to ADMINS).
    The site answers 503 only for an outage it knows of: the database unreachable (the
    503 page of config/middleware.py or config/views.py; config.middleware's
    `database_outage` logs the outage once) or /readyz not ready (config/health.py, which
    logs each failing check once a minute)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return getattr(record, "status_code", None) != 503


# --- mail to ADMINS ----------------------------------------------------------------------

class _Seen:
    """One distinct error in the current period: when it was mailed (or its count was) and
    how many more came since."""

    def __init__(self, now: float, what: str) -> None:
        self.since, self.what, self.more = now, what, 0


class AdminMailHandler(AdminEmailHandler):
    """Django's `AdminEmailHandler` (the same mail: the request, the traceback), with two
    differences:

    1. It is sent from a thread of this handler's own (started at the first mail; a daemon,
       so it never holds a process up): the request thread only renders the mail and queues
       it, and an SMTP server that is slow or down (EMAIL_TIMEOUT) costs no request anything.
    2. At most one mail per distinct error per `every_seconds` (ADMINS_MAIL_MINUTES): the
       same exception raised at the same line, or, without an exception, the same logger,
       message template and status. The others are only counted; when the period ends with
       some counted, one mail says how many ("37 more of: ..."), and the period starts again.

    `flush()` waits until what was queued is sent; `close()` (at exit, through logging's
    shutdown) also mails the counts not yet mailed."""

    def __init__(self, every_seconds: float = 900, **kwargs) -> None:
        super().__init__(**kwargs)
        self.every = every_seconds
        self.seen: dict[tuple, _Seen] = {}
        self.mails: queue.SimpleQueue = queue.SimpleQueue()
        self.thread: threading.Thread | None = None
        self.seen_lock = threading.Lock()

    @staticmethod
    def key(record: logging.LogRecord) -> tuple:
        """What makes two records the same error."""
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            tb = exc.__traceback__
            while tb is not None and tb.tb_next is not None:
                tb = tb.tb_next
            where = (tb.tb_frame.f_code.co_filename, tb.tb_lineno) if tb else ()
            return (record.name, type(exc).__qualname__, *where)
        return (record.name, record.levelno, str(record.msg),
                getattr(record, "status_code", None))

    def emit(self, record: logging.LogRecord) -> None:
        from django.conf import settings

        if not settings.ADMINS:
            return  # nobody to mail: render nothing
        key, now = self.key(record), time.monotonic()
        with self.seen_lock:
            seen = self.seen.get(key)
            if seen is not None:
                seen.more += 1
                return
            self.seen[key] = _Seen(now, (record.getMessage().splitlines() or [""])[0][:200])
        super().emit(record)  # renders here, queues through send_mail below

    def send_mail(self, subject, message, *args, **kwargs) -> None:
        """Queue the mail for the sending thread (Django's emit calls this)."""
        self.mails.put((subject, message, args, kwargs))
        self._start()

    def _start(self) -> None:
        with self.seen_lock:
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._run, name="admin-mail",
                                               daemon=True)
                self.thread.start()

    def _run(self) -> None:
        while True:
            try:
                item = self.mails.get(timeout=max(min(self.every / 2, 30.0), 0.05))
            except queue.Empty:
                item = None
            if isinstance(item, threading.Event):  # flush(): everything before it is sent
                item.set()
            elif item is not None:
                self._send(*item)
            self._count_ended_periods()

    def _send(self, subject, message, args, kwargs) -> None:
        try:
            AdminEmailHandler.send_mail(self, subject, message, *args, **kwargs)
        except Exception:  # noqa: BLE001 - a mail that cannot go must not stop the thread
            logging.getLogger(__name__).warning("could not mail ADMINS: %s", subject,
                                                exc_info=True)

    def _count_ended_periods(self, everything: bool = False) -> None:
        """Mail the counts of the periods that ended (all of them at exit), and forget an
        error whose period ended with none counted (its next one is mailed at once)."""
        now, counts = time.monotonic(), []
        with self.seen_lock:
            for key, seen in list(self.seen.items()):
                if not everything and now - seen.since < self.every:
                    continue
                if seen.more:
                    counts.append((seen.more, seen.what, seen.since))
                    seen.since, seen.more = now, 0
                else:
                    del self.seen[key]
        for more, what, since in counts:
            minutes = (now - since) / 60
            subject = self.format_subject(f"{more} more of: {what}")
            self._send(subject, f"{more} more errors like this one in the last "
                                f"{minutes:.0f} min were not mailed (at most one mail per "
                                f"{self.every / 60:g} min for each error):\n\n{what}\n",
                       (), {"fail_silently": True})

    def flush(self, timeout: float = 10.0) -> None:
        """Wait until the mails queued so far are sent (at most `timeout` seconds)."""
        if self.thread is None or not self.thread.is_alive():
            return
        done = threading.Event()
        self.mails.put(done)
        done.wait(timeout)

    def close(self) -> None:
        self.flush()
        if self.thread is not None and self.thread.is_alive():
            self._count_ended_periods(everything=True)
        super().close()
