"""Settings come from the environment and fail loudly; production passes check --deploy."""

import os
import subprocess
import sys

import pytest
from django.conf import settings

ROOT = settings.BASE_DIR


def run_manage(*args, **env):
    full_env = {k: v for k, v in os.environ.items()
                if k not in ("DEBUG", "DJANGO_ENV", "SECRET_KEY", "ALLOWED_HOSTS",
                             "DJANGO_ALLOW_ASYNC_UNSAFE")}
    full_env.update(env)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=full_env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("name,value,fragment", [
    ("DEBUG", "maybe", "DEBUG='maybe' is not a boolean"),
    ("SWEEP_INTERVAL_SECONDS", "soon", "SWEEP_INTERVAL_SECONDS='soon' is not an integer"),
    ("DJANGO_ENV", "staging", "DJANGO_ENV='staging' must be one of"),
    ("REDIS_URL", "http://nope", "REDIS_URL must start with redis://"),
    ("DATABASE_URL", "mysql://u@h/db", "DATABASE_URL must be postgres://"),
])
def test_a_bad_setting_stops_the_process_with_its_name(name, value, fragment):
    result = run_manage("check", **{name: value})
    assert result.returncode != 0
    assert fragment in result.stderr


def test_production_requires_a_secret_key():
    result = run_manage("check", DJANGO_ENV="production", ALLOWED_HOSTS="example.org")
    assert result.returncode != 0
    assert "SECRET_KEY is required" in result.stderr


def test_production_settings_pass_check_deploy_without_warnings():
    result = run_manage("check", "--deploy", "--fail-level", "WARNING",
                        DJANGO_ENV="production", ALLOWED_HOSTS="games.example.org",
                        SITE_URL="https://games.example.org", SECRET_KEY="k" * 20 + "Xy7!q" + "z9-p" * 10)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNINGS" not in result.stdout + result.stderr
    assert "no issues" in result.stdout
