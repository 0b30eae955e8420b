"""Times on every page in the reader's timezone; the zone itself is named once, in the
footer (`timezone_label`), not after every time.

A time is a `<time datetime="…Z">` holding the local date and time; static/js/timezone.js
adds how long ago (or how far ahead) it is ("3 小时前"), from the `datetime` attribute, in
the reader's browser: a page of posts is kept in the cache for an hour and more
(messaging.blocks), so a "3 hours ago" written by the server would soon be wrong.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django import template
from django.utils import timezone
from django.utils.html import format_html

from accounts import timezones

register = template.Library()


@register.filter
def when(value: datetime | None, fmt: str = "%Y-%m-%d %H:%M"):
    """`<time>` in the active (reader's) timezone, e.g. "2026-11-29 21:00"."""
    if not value:
        return ""
    local = timezone.localtime(value)
    return format_html(
        '<time datetime="{}">{}</time>',
        value.astimezone(UTC).isoformat().replace("+00:00", "Z"),
        local.strftime(fmt),
    )


@register.filter
def countdown(value: datetime | None):
    """A deadline with a live countdown (static/js/site.js updates it every second)."""
    if not value:
        return ""
    return format_html(
        '<span class="countdown" data-deadline="{}">{}</span>',
        value.astimezone(UTC).isoformat(),
        when(value),
    )


@register.simple_tag
def timezone_label() -> str:
    """The active zone as a reader knows it: "UTC+08:00 中国（上海）" (accounts.timezones)."""
    return timezones.label(timezone.get_current_timezone_name())
