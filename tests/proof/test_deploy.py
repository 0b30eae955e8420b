"""A deploy by docs/operations.md's steps ("Production layout", **Deploy**) writes to a
Chinese player in Chinese: the compiled catalogue (django.mo, not in git) is built by the
steps themselves, not only by `make messages` or `make run`.

The test clones the checkout (a clone has no django.mo), then runs the documented lines in
it with a production environment, standing in for three of them: the clone is the `git
clone`, the clone's folder is the `cd`, the test's environment is the env file. `make
install` runs with the checkout's virtualenv linked in and taken as installed (`make -o`), so
the test installs nothing; every other line runs as written. Then a reminder to a player
whose language is zh-hans is written in the clone, as the outbox writes it when it sends.

Before the steps, the same reminder in the clone shows the test can fail: a production
process refuses to start without the catalogue, and a development one writes it in the
msgids' English.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

ROOT = Path(settings.BASE_DIR)
MO = Path("locale") / "zh_Hans" / "LC_MESSAGES" / "django.mo"
# A reminder as the sweep records it (games.reminders, the outbox row's context) and the
# outbox writes it when it sends (games.mail.write_deferred, in the reader's language).
REMINDER = """
import json
from games.mail import write_deferred
from games.models import OutboxEmail
row = OutboxEmail(to="cat@example.org", kind="reminders", template="reminder", context={
    "game": 7, "name": "周末局", "ruleset": "classic", "phase_name": "night",
    "phase_number": 1, "deadline": "2026-12-01T12:00:00+00:00", "left": 3600,
    "language": "zh-hans", "timezone": "Asia/Shanghai"})
write_deferred(row)
print(json.dumps({"subject": row.subject, "body": row.body}))
"""


def deploy_steps(text: str) -> list[str]:
    """The command lines of the shell block under "**Deploy**" in "Production layout"."""
    section = text.split("## Production layout", 1)[1].split("\n## ", 1)[0]
    after = section.split("**Deploy**", 1)[1]
    block = re.search(r"```sh\n(.*?)```", after, re.S)
    assert block, "docs/operations.md: no ```sh block under **Deploy**"
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


def reminder(clone: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([".venv/bin/python", "manage.py", "shell", "-c", REMINDER],
                          cwd=clone, env=env, capture_output=True, text=True, timeout=120)


def written(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def in_process(language: str) -> dict:
    """The same reminder written here to a reader of `language`, from this run's catalogue."""
    code = REMINDER.replace('"language": "zh-hans"', f'"language": "{language}"')
    namespace = {}
    exec(code.replace("print(", "result = ("), namespace)
    return json.loads(namespace["result"])


def database_url(db: dict) -> str:
    """The test database's address as DATABASE_URL says it: a Unix socket's folder (a HOST
    starting with "/") is quoted into the host part, as .ci/run writes it."""
    from urllib.parse import quote

    host = db["HOST"] or "127.0.0.1"
    where = quote(host, safe="") if host.startswith("/") else f"{host}:{db['PORT'] or 5432}"
    return f"postgres://{db['USER'] or 'postgres'}@{where}/{db['NAME']}"


@pytest.mark.slow(seconds=40)
@pytest.mark.django_db
def test_a_deploy_by_the_documented_steps_writes_to_a_chinese_player_in_chinese(
        tmp_path, settings):
    settings.SITE_URL = "https://games.example.org"
    clone = tmp_path / "killinggames"
    subprocess.run(["git", "clone", "--quiet", "--shared", str(ROOT), str(clone)], check=True,
                   timeout=120)
    assert not (clone / MO).exists()  # git keeps none: the steps must build it
    (clone / ".venv").symlink_to(ROOT / ".venv")
    db = connection.settings_dict
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DJANGO_", "PYTEST_", "SITE_", "EXTRA_RULESETS"))}
    env.update(DJANGO_ENV="production", SECRET_KEY="deploy-test-" + "k" * 30 + "0123456789abc",
               ALLOWED_HOSTS="games.example.org", SITE_URL="https://games.example.org",
               DATABASE_URL=database_url(db),
               VAR_DIR=str(tmp_path / "var"), DB_POOL="false")

    refused = reminder(clone, env)
    assert refused.returncode != 0 and "django.mo is missing" in refused.stderr, refused.stderr
    english = written(reminder(clone, dict(env, DJANGO_ENV="development")))
    assert english == in_process("en")  # no catalogue: the msgids

    steps = deploy_steps((clone / "docs" / "operations.md").read_text())
    assert not [s for s in steps if "make messages" in s or "pybabel" in s], steps
    stood_in = {"git clone": 0, "cd ": 0, "set -a": 0}
    for step in steps:
        first = next((k for k in stood_in if step.startswith(k)), None)
        if first is not None:
            stood_in[first] += 1
            continue
        if step.startswith("make install"):
            step = step.replace("make install", "make -o .venv/.installed install", 1)
        done = subprocess.run(["bash", "-c", step], cwd=clone, env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, f"{step}\n{done.stdout}{done.stderr}"
    assert stood_in == {"git clone": 1, "cd ": 1, "set -a": 1}, stood_in
    assert [s for s in steps if s.startswith("make install")], steps

    assert (clone / MO).exists()
    chinese = written(reminder(clone, env))
    assert chinese == in_process("zh-hans")
    assert chinese != english and re.search(r"[\u4e00-\u9fff]{4}", chinese["subject"]), chinese
