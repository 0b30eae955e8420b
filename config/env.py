"""Reading settings from the environment, failing loudly on values that make no sense.

(After healthchecks' envbool/envint: a typo in production must stop the process at start-up,
not silently fall back to a default.)
"""

from __future__ import annotations

import os
import re


class SettingError(Exception):
    pass


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise SettingError(f"{name}={raw!r} is not a boolean (use true/false, 1/0, yes/no, on/off)")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SettingError(f"{name}={raw!r} is not an integer") from None
    if minimum is not None and value < minimum:
        raise SettingError(f"{name}={value} is below the minimum {minimum}")
    return value


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = os.environ.get(name) or default
    if value not in choices:
        raise SettingError(f"{name}={value!r} must be one of {', '.join(choices)}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


_EMAIL = re.compile(r"[^@\s<>,]+@[^@\s<>,]+\.[^@\s<>,]+")
_NAMED_EMAIL = re.compile(r"(?P<name>[^<>]*?)\s*<(?P<email>[^<>]+)>")


def env_admins(name: str) -> list[tuple[str, str]]:
    """People who get error emails: "Ada <ada@example.org>, ops@example.org" ->
    [("Ada", "ada@example.org"), ("ops", "ops@example.org")]. A malformed entry stops
    the process (an error report sent nowhere is found out only after the outage)."""
    raw = os.environ.get(name, "")
    admins = []
    for item in (part.strip() for part in raw.split(",")):
        if not item:
            continue
        named = _NAMED_EMAIL.fullmatch(item)
        person, email = (named["name"].strip(), named["email"].strip()) if named else ("", item)
        if not _EMAIL.fullmatch(email):
            raise SettingError(f"{name}: {item!r} is not an email address "
                               "(use 'Name <address>' or 'address', separated by commas)")
        admins.append((person or email.split("@")[0], email))
    return admins
