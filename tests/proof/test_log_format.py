"""One log line format for every process (docs/operations.md "Logging"): the web server's
(gunicorn's own lines through gunicorn.conf.py, Django's through settings.LOGGING), a clock
worker's and beat's (config/celery.py), each started as "Production layout" starts it: UTC
with its Z, level, logger, `game=<id>` on a line about a game, message. Before, worker and
beat lines were Celery's, their banners in the server's zone (Asia/Shanghai, set by
Django) without saying so, and gunicorn's its own.

The processes run against the test database; a toy game's night falls due, the beat's
sweep advances it in the worker, whose line about it must carry the game's id. Every line
any of them writes, from start to stop, must be a line of the format (`not_in_format`,
which the first test feeds the old formats)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from games.models import Game, Phase

LINE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ (DEBUG|INFO|WARNING|ERROR|CRITICAL) "
                  r"[\w.-]+ (game=\d+ )?\S")


def not_in_format(text: str) -> list[str]:
    """The lines of `text` that are not log lines of the project's format."""
    return [line for line in text.splitlines() if line.strip() and not LINE.match(line)]


def test_the_check_refuses_the_formats_that_were_written_before():
    old = ["[2026-12-08 06:25:39,120: INFO/MainProcess] Task games.sweep[ab-12] received",
           "[2026-12-08 06:25:39 +0800] [123] [INFO] Starting gunicorn 23.0.0",
           "LocalTime -> 2026-12-08 06:25:20",
           " -------------- clock@vm v5.7.0 (collider)",
           "2026-12-08 06:25:39 INFO games.services.lifecycle phase advanced",
           "2026-12-08T06:25:39 INFO games.services.lifecycle phase advanced",
           "worker: Warm shutdown (MainProcess)"]
    good = ["2026-12-07T22:25:39Z INFO games.services.lifecycle game=42 phase advanced",
            "2026-12-07T22:25:39Z WARNING django.request Not Found: /nowhere/"]
    assert not_in_format("\n".join(old + good)) == old


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow(seconds=40)
@pytest.mark.django_db(transaction=True)
def test_web_worker_and_beat_write_one_format_with_the_game_where_there_is_one(game, tmp_path):
    db = connection.settings_dict
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update(
        DATABASE_URL=f"postgres://{db['USER'] or 'postgres'}@"
                     f"{quote(db['HOST'] or '127.0.0.1', safe='')}"
                     f"{':' + str(db['PORT']) if db['PORT'] else ''}/{db['NAME']}",
        EXTRA_RULESETS="tests.toy:register", LOG_LEVEL="INFO", SWEEP_INTERVAL_SECONDS="1",
        SWEEP_GRACE_SECONDS="0", VAR_DIR=str(tmp_path), DB_POOL_MAX="1",
        # The tests run as root, which a production unit never does: Celery's warning
        # about it is not a log line.
        PYTHONWARNINGS="ignore:You're running the worker with superuser privileges")
    port = free_port()
    celery = [sys.executable, "-m", "celery", "-A", "config"]
    commands = {
        "web": [sys.executable, "-m", "gunicorn", "config.wsgi", "-k", "gthread", "-w", "1",
                "--threads", "2", "-b", f"127.0.0.1:{port}", "--max-requests", "2000"],
        "worker": celery + ["worker", "-l", "INFO", "-Q", settings.CLOCK_QUEUE, "-n",
                            "clock@%h", "--concurrency", "1", "--prefetch-multiplier", "1"],
        "beat": celery + ["beat", "-l", "INFO", f"--schedule={tmp_path / 'schedule'}"],
    }
    logs = {name: tmp_path / f"{name}.log" for name in commands}
    procs = {name: subprocess.Popen(command, cwd=settings.BASE_DIR, env=env,
                                    stdout=open(logs[name], "w"), stderr=subprocess.STDOUT,
                                    start_new_session=True)
             for name, command in commands.items()}
    try:
        now = timezone.now()  # the night falls due: the beat's next sweep advances it
        Phase.objects.filter(pk=game.current_phase_id).update(deadline=now)
        Game.objects.filter(pk=game.pk).update(deadline=now)
        end = time.monotonic() + 120
        while Game.objects.get(pk=game.pk).phase_name == "night":
            assert time.monotonic() < end, {n: p.read_text()[-2000:] for n, p in logs.items()}
            time.sleep(0.3)
        for path, status in (("/healthz", 200), ("/nowhere/", 404)):
            while True:
                try:
                    answer = urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10)
                    break
                except urllib.error.HTTPError as refused:
                    answer = refused
                    break
                except OSError:
                    assert time.monotonic() < end, logs["web"].read_text()
                    time.sleep(0.3)
            assert answer.status == status
        while f"game={game.pk} phase advanced" not in logs["worker"].read_text():
            assert time.monotonic() < end, logs["worker"].read_text()
            time.sleep(0.3)
    finally:
        for proc in procs.values():
            os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs.values():
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
    written = {name: path.read_text() for name, path in logs.items()}
    for name, text in written.items():
        assert not not_in_format(text), f"{name}:\n{text}"
    assert re.search(rf"Z INFO games\.services\.lifecycle game={game.pk} phase advanced",
                     written["worker"]), written["worker"]
    assert re.search(r"Z INFO config\.celery worker clock@\S+ starting: queues ",
                     written["worker"]), written["worker"]
    assert "Z INFO config.celery beat starting: schedule " in written["beat"], written["beat"]
    assert "Z INFO celery.beat Scheduler: Sending due task sweep due games" in written["beat"]
    assert "Z INFO gunicorn.error Booting worker with pid" in written["web"], written["web"]
    assert "Z WARNING django.request Not Found: /nowhere/" in written["web"], written["web"]
