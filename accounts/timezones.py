"""Time zones as a reader knows them: a UTC offset and a place in the reader's language
("UTC+08:00 中国（上海）"), for the profile's picker and the footer of every page.

The places come from the CLDR data Babel ships (`babel.dates.get_timezone_location`), not
from a list kept here; only the choice of which zones lead the picker (`COMMON`) is ours.
The picker offers the canonical zones (CLDR's zone-to-territory table: no alias such as
"PRC" or "US/Eastern", no "Etc/GMT+5", whose sign reads backwards) and UTC, grouped by
continent and sorted by their offset now; any zone `zoneinfo` knows is still accepted
(`is_known`), so a stored alias keeps working and is shown as it is.
"""

from __future__ import annotations

import datetime as dt
import functools
import zoneinfo

from babel import Locale
from babel.core import get_global
from babel.dates import get_timezone_location
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

# The zones most readers of a Chinese forum live in, offered first.
COMMON = (
    "Asia/Shanghai",
    "Asia/Hong_Kong",
    "Asia/Taipei",
    "Asia/Macau",
    "Asia/Urumqi",
    "Asia/Singapore",
    "Asia/Kuala_Lumpur",
    "Asia/Tokyo",
    "Asia/Seoul",
    "Asia/Bangkok",
    "Asia/Kolkata",
    "Asia/Dubai",
    "Australia/Perth",
    "Australia/Sydney",
    "Pacific/Auckland",
    "Europe/London",
    "Europe/Paris",
    "Europe/Berlin",
    "Europe/Moscow",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
    "America/Toronto",
    "America/Vancouver",
    "UTC",
)
# The first part of an IANA name, as the picker's groups call it.
REGIONS = {
    "Africa": gettext_lazy("Africa"),
    "America": gettext_lazy("Americas"),
    "Antarctica": gettext_lazy("Antarctica"),
    "Arctic": gettext_lazy("Arctic"),
    "Asia": gettext_lazy("Asia"),
    "Atlantic": gettext_lazy("Atlantic Ocean"),
    "Australia": gettext_lazy("Australia"),
    "Europe": gettext_lazy("Europe"),
    "Indian": gettext_lazy("Indian Ocean"),
    "Pacific": gettext_lazy("Pacific Ocean"),
}


def is_known(name: str) -> bool:
    """Whether `name` is a zone this machine's tz database knows (every IANA name)."""
    return bool(name) and name in _available()


@functools.cache
def _available() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def offset(name: str, at: dt.datetime | None = None) -> str:
    """The zone's offset from UTC at `at` (now), as "UTC+08:00" / "UTC-05:00"."""
    at = at or dt.datetime.now(dt.UTC)
    delta = at.astimezone(zoneinfo.ZoneInfo(name)).utcoffset() or dt.timedelta(0)
    minutes = int(delta.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    hours, minutes = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours:02d}:{minutes:02d}"


def place(name: str, language: str | None = None) -> str:
    """Where the zone is, in `language` (the active one): "中国（上海）", "英国",
    "美国（纽约）"; UTC is named as such."""
    if name in ("UTC", "Etc/UTC", "Etc/UCT", "UCT", "Zulu", "Etc/Zulu", "Universal"):
        return _("Coordinated Universal Time")
    return _place(name, translation.to_locale(language or translation.get_language() or "zh-hans"))


@functools.lru_cache(maxsize=4096)
def _place(name: str, locale_name: str) -> str:
    try:
        locale = Locale.parse(locale_name)
    except (ValueError, TypeError):
        locale = Locale.parse("zh_Hans")
    text = get_timezone_location(name, locale=locale)
    # CLDR writes a place as its "region" format, e.g. "%s时间" / "%s Time"; the place alone.
    before, _sep, after = locale.zone_formats["region"].partition("%s")
    if text.startswith(before) and text.endswith(after):
        text = text[len(before) : len(text) - len(after)]
    return text.strip()


def label(name: str, language: str | None = None, at: dt.datetime | None = None) -> str:
    """ "UTC+08:00 中国（上海）": the offset now and the place."""
    return f"{offset(name, at)} {place(name, language)}"


def choices(current: str = "", language: str | None = None) -> list:
    """The picker's choices (Django's grouped form): the common zones first, then every
    other canonical zone by continent, each group sorted by offset now, then by label.
    `current` (a stored name not among them, e.g. an alias) is offered at the top."""
    language = language or translation.get_language() or "zh-hans"
    now = dt.datetime.now(dt.UTC)
    return _choices(
        current if is_known(current) else "",
        language,
        now.replace(minute=0, second=0, microsecond=0),
    )


@functools.lru_cache(maxsize=16)
def _choices(current: str, language: str, hour: dt.datetime) -> list:
    def options(names) -> list[tuple[str, str]]:
        rows = []
        for name in names:
            delta = hour.astimezone(zoneinfo.ZoneInfo(name)).utcoffset() or dt.timedelta(0)
            rows.append((delta, label(name, language, hour), name))
        return [(name, text) for _delta, text, name in sorted(rows)]

    with translation.override(language):
        canonical = [
            name
            for name in get_global("zone_territories")
            if name in _available() and name not in COMMON
        ]
        groups = [(str(_("Common time zones")), options(COMMON))]
        for prefix, title in REGIONS.items():
            names = [n for n in canonical if n.split("/", 1)[0] == prefix]
            if names:
                groups.append((str(title), options(names)))
        offered = {n for _g, rows in groups for n, _t in rows}
        if current and current not in offered:
            groups.insert(0, (current, label(current, language, hour)))
    return groups
