"""The project's own PostgreSQL and Redis (config/devstack.py), as `make run` and `make test`
use them on a machine that has neither: addresses, a cluster whose data outlives a restart,
one `run` per checkout, a supervisor that restarts a worker or beat that died, and a disk
check before anything starts."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest
from django.conf import settings

from config import devstack

ROOT = Path(settings.BASE_DIR)


@pytest.fixture
def own_var(tmp_path, monkeypatch):
    """A VAR_DIR of the test's own, so nothing here meets the checkout's var/."""
    monkeypatch.setenv("VAR_DIR", str(tmp_path))
    return tmp_path


def test_a_unix_socket_address_is_spelled_for_django_redis_and_celery(own_var):
    run = own_var / "run"
    assert devstack.socket_dir() == run
    assert devstack.database_url() == (
        f"postgres://postgres@{str(run).replace('/', '%2F')}/killinggames")
    assert devstack.redis_url(15) == f"unix://{run}/redis.sock?db=15"
    assert devstack.broker_url(devstack.redis_url(15)) == (
        f"redis+socket://{run}/redis.sock?virtual_host=15")
    assert devstack.broker_url("redis://127.0.0.1:6379/3") == "redis://127.0.0.1:6379/3"


def test_a_deep_checkout_gets_a_short_socket_folder(tmp_path, monkeypatch):
    deep = tmp_path / ("a-very-long-folder-name" * 5)
    monkeypatch.setenv("VAR_DIR", str(deep))
    folder = devstack.socket_dir()
    assert len(str(folder / ".s.PGSQL.5432.lock")) < 100
    assert folder != deep / "run"
    monkeypatch.setenv("VAR_DIR", str(deep) + "x")
    assert devstack.socket_dir() != folder  # another checkout, another folder


def test_the_socket_folder_is_the_accounts_alone(own_var):
    """PostgreSQL trusts whoever reaches its socket: the folder is made 0700, and one an
    earlier run left open is closed."""
    import stat

    folder = devstack.socket_dir()
    devstack.private_folder(folder)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    folder.chmod(0o777)
    devstack.private_folder(folder)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_a_socket_folder_of_another_account_is_refused(own_var, monkeypatch):
    """A folder someone else made where ours goes (the shared temporary folder of a deep
    checkout) is not used, and is left as it was."""
    import stat

    folder = devstack.socket_dir()
    folder.mkdir(mode=0o755)
    monkeypatch.setattr(devstack.os, "geteuid", lambda: folder.stat().st_uid + 4242)
    with pytest.raises(SystemExit, match="is not a folder of this account"):
        devstack.private_folder(folder)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755


def test_a_server_the_environment_names_is_not_started(own_var, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgres://postgres@db.example.org/kg")
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert [type(s).__name__ for s in devstack.ours()] == ["Redis"]
    monkeypatch.setenv("REDIS_URL", "redis://cache.example.org:6379/0")
    assert devstack.ours() == [] and devstack.configured()
    monkeypatch.delenv("DATABASE_URL")
    assert [type(s).__name__ for s in devstack.ours()] == ["Postgres"]


def test_nothing_starts_on_a_nearly_full_disk(own_var, monkeypatch):
    monkeypatch.setattr(devstack, "_free_bytes", lambda: 10 * 2**20)
    started = []
    monkeypatch.setattr(devstack.Postgres, "start", lambda self: started.append(self))
    with pytest.raises(SystemExit) as stop:
        devstack.up()
    assert "only 10 MB free" in str(stop.value) and "at least 256 MB" in str(stop.value)
    assert started == []


def test_a_second_run_in_the_same_checkout_is_refused_with_the_first_ones_pid(own_var):
    holder = subprocess.Popen(
        [sys.executable, "-c", "import time; from config import devstack; "
         "lock = devstack.RunLock(); assert lock.acquire(); print('held', flush=True); "
         "time.sleep(60)"],
        cwd=ROOT, env=dict(os.environ, VAR_DIR=str(own_var)), stdout=subprocess.PIPE,
        text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert devstack.RunLock.held()
        with pytest.raises(SystemExit) as refusal:
            devstack.run("127.0.0.1", 8000)
        assert "already running in this checkout" in str(refusal.value)
        assert f"process {holder.pid}" in str(refusal.value)
    finally:
        holder.kill()
        holder.wait()
    assert not devstack.RunLock.held()  # the kernel let go with the process


def test_a_child_that_exits_is_restarted_and_said_so(tmp_path, capsys, monkeypatch):
    now = [time.monotonic()]  # the supervisor's clock, moved instead of waited for
    monkeypatch.setattr(devstack, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    child = devstack.Child("Celery worker", [sys.executable, "-c", "raise SystemExit(3)"],
                           dict(os.environ), tmp_path / "child.log")
    child.start()
    child.proc.wait()
    child.watch()
    assert "the Celery worker exited with code 3; restarting it in 1 s" in capsys.readouterr().out
    first = child.proc.pid
    now[0] += 0.9
    child.watch()
    assert child.restarts == 0 and child.proc.pid == first  # not before its second
    now[0] += 0.2
    child.watch()
    assert child.restarts == 1 and child.proc.pid != first
    assert "restarting the Celery worker (restart 1)" in capsys.readouterr().out
    child.proc.wait()
    child.watch()
    assert "restarting it in 2 s" in capsys.readouterr().out  # backs off when it keeps failing
    child.stop(15, 5)


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


def redis_processes(sock: Path) -> list[int]:
    """The live redis-server processes on socket `sock` (their command line names it)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes() if entry.name.isdigit() else b""
        except OSError:
            continue
        if b"redis-server" in cmdline and str(sock).encode() in cmdline \
                and devstack.alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def live_processes(match) -> list[int]:
    """The live processes (not zombies) whose /proc/<pid>/stat fields after the name
    satisfy `match(fields)` (fields[1] is the parent, fields[2] the process group)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text() if entry.name.isdigit() else ""
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        if fields and fields[0] != "Z" and match(fields):
            found.append(int(entry.name))
    return found


def group_members(pgid: int) -> list[int]:
    """The live processes (not zombies) of process group `pgid`."""
    return live_processes(lambda fields: int(fields[2]) == pgid)


@needs_proc
def test_a_hung_redis_is_stopped_by_its_pid_before_another_starts_and_none_outlives_the_stop(
        own_var, capsys):
    """A Redis stopped with SIGSTOP accepts connections and never answers: the watchdog's
    look (`look_after`, every 10 s under `run`) ends it by its process id before starting
    another, so one Redis serves the socket; the stop at the end (Ctrl-C) ends the new one
    even when it is stopped too."""
    server = devstack.Redis()
    server.start()
    try:
        first = server.pid()
        assert first is not None and redis_processes(server.sock) == [first]
        os.kill(first, signal.SIGSTOP)
        assert not server.ready()
        started: list = []
        devstack.look_after([server], started)
        out = capsys.readouterr().out
        assert "Redis does not answer; starting it again" in out
        assert f"Redis (process {first}) does not answer; stopping it" in out
        second = server.pid()
        assert server.running() and second not in (None, first)
        assert redis_processes(server.sock) == [second]
        assert started == [server]
        os.kill(second, signal.SIGSTOP)
        devstack._stop_servers(started)
        assert redis_processes(server.sock) == []
        assert not server.pidfile.exists() and not server.sock.exists()
    finally:
        for pid in redis_processes(server.sock):
            os.kill(pid, signal.SIGKILL)


def test_a_process_that_ignores_sigterm_is_killed_after_the_grace():
    stubborn = subprocess.Popen(
        [sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, "
         "signal.SIG_IGN); print('ready', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert stubborn.stdout.readline().strip() == "ready"
        began = time.monotonic()
        assert devstack.end_process(stubborn.pid, 0.3) is True
        assert stubborn.wait(5) == -signal.SIGKILL
        assert time.monotonic() - began < 3
    finally:
        stubborn.kill()
        stubborn.wait()


def test_exec_lets_its_command_finish_its_cleanup_after_ctrl_c(tmp_path):
    """`make bench` and `make test` run their command through `exec`. Ctrl-C reaches the
    command too (the terminal's process group), and `exec` waits while it cleans up
    (subprocess.run SIGKILLed it 0.25 s later: bench_http's gunicorn was left serving)."""
    done = tmp_path / "cleaned-up"
    script = ("import pathlib, sys, time\n"
              "try:\n    print('ready', flush=True)\n    time.sleep(60)\n"
              "except KeyboardInterrupt:\n    time.sleep(1)\n"
              f"    pathlib.Path({str(done)!r}).write_text('yes')\n    sys.exit(1)\n")
    command = subprocess.Popen(
        [sys.executable, "-m", "config.devstack", "exec", "--", sys.executable, "-c", script],
        cwd=ROOT, env=dict(os.environ, VAR_DIR=str(tmp_path)), stdout=subprocess.PIPE,
        text=True, start_new_session=True)
    try:
        assert command.stdout.readline().strip() == "ready"
        os.killpg(command.pid, signal.SIGINT)  # Ctrl-C: the terminal's whole group
        assert command.wait(90) == 130  # bounds a failure only: a loaded CI machine is slow
    finally:
        if command.poll() is None:
            os.killpg(command.pid, signal.SIGKILL)
            command.wait()
    assert done.read_text() == "yes"


@pytest.mark.slow(seconds=20)
def test_the_servers_start_keep_their_data_and_stop(own_var):
    """`up` makes a cluster under VAR_DIR and a Redis beside it, `down` stops both, and the
    next `up` finds the rows written before (data kept between runs)."""
    import stat

    import psycopg
    import redis

    env = dict(os.environ, VAR_DIR=str(own_var))
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)

    def stack(command: str) -> str:
        done = subprocess.run([sys.executable, "-m", "config.devstack", command], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    try:
        stack("up")
        assert (own_var / "postgres" / "PG_VERSION").exists()
        params = {"host": str(own_var / "run"), "user": "postgres", "dbname": "killinggames",
                  "autocommit": True}
        with psycopg.connect(**params) as conn:
            conn.execute("CREATE TABLE kept (note text)")
            conn.execute("INSERT INTO kept VALUES ('still here')")
        assert redis.Redis(unix_socket_path=str(own_var / "run" / "redis.sock")).ping()
        # Only this account reaches the servers: PostgreSQL trusts whoever reaches its socket.
        assert stat.S_IMODE((own_var / "run").stat().st_mode) == 0o700
        with psycopg.connect(**params) as conn:
            assert conn.execute("SHOW unix_socket_permissions").fetchone() == ("0700",)
        stack("down")
        assert "Postgres: stopped" in stack("status")
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(**params, connect_timeout=2)
        stack("up")
        with psycopg.connect(**params) as conn:
            assert conn.execute("SELECT note FROM kept").fetchone() == ("still here",)
    finally:
        subprocess.run([sys.executable, "-m", "config.devstack", "down"], cwd=ROOT, env=env,
                       capture_output=True, timeout=120)


@needs_proc
@pytest.mark.slow(seconds=40)
@pytest.mark.django_db(transaction=True)
def test_run_restarts_a_killed_worker_and_ctrl_c_stops_everything(tmp_path, monkeypatch):
    """`make run`'s supervisor against the configured database (the test database) and a
    Redis of its own: the web server answers, a worker killed with SIGKILL is started
    again, and Ctrl-C (SIGINT) stops every child it started and its Redis: no process is
    left. About 20 s: it migrates, loads the demo and starts a web server, a worker (twice)
    and beat, and the worker's warm shutdown takes its time."""
    import re
    import signal
    import socket
    import urllib.request
    from urllib.parse import quote

    from django.db import connection

    db = connection.settings_dict
    url = (f"postgres://{db['USER'] or 'postgres'}@{quote(db['HOST'] or '127.0.0.1', safe='')}"
           f"{':' + str(db['PORT']) if db['PORT'] else ''}/{db['NAME']}")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, VAR_DIR=str(tmp_path), DATABASE_URL=url, EMAIL_URL="consolemail://")
    for variable in ("REDIS_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"):
        env.pop(variable, None)  # the supervisor's own Redis, under tmp_path
    supervisor = subprocess.Popen(
        [sys.executable, "-m", "config.devstack", "run", "--port", str(port)], cwd=ROOT,
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)
    lines: list[str] = []

    def wait_for(pattern: str, seconds: float = 90) -> re.Match:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            line = supervisor.stdout.readline()
            if not line and supervisor.poll() is not None:
                break
            lines.append(line)
            found = re.search(pattern, line)
            if found:
                return found
        raise AssertionError(f"no {pattern!r} in:\n{''.join(lines)}")

    try:
        web = int(wait_for(r"started the web server \(process (\d+)\)").group(1))
        worker = int(wait_for(r"started the Celery worker \(process (\d+)\)").group(1))
        beat = int(wait_for(r"started the Celery beat \(process (\d+)\)").group(1))
        monkeypatch.setenv("VAR_DIR", str(tmp_path))
        sock = devstack.Redis().sock
        assert len(redis_processes(sock)) == 1
        end = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
                    assert r.status == 200
                    break
            except OSError:
                assert time.monotonic() < end, "".join(lines)
                time.sleep(0.5)
        os.kill(worker, signal.SIGKILL)
        wait_for(r"the Celery worker exited with code -9; restarting it in 1 s")
        again = int(wait_for(r"started the Celery worker \(process (\d+)\)").group(1))
        assert again != worker
        os.killpg(supervisor.pid, signal.SIGINT)  # Ctrl-C reaches the terminal's group
        wait_for(r"^Stopped\.", 90)
        assert supervisor.wait(30) == 0
        for pid in (web, again, beat):  # each child leads a process group of its own
            assert group_members(pid) == []
        assert redis_processes(sock) == []
    finally:
        if supervisor.poll() is None:
            os.killpg(supervisor.pid, signal.SIGKILL)
            supervisor.wait()
