"""Times on every page in the viewer's timezone, with the zone named."""

from __future__ import annotations

from datetime import UTC, datetime

from django import template
from django.utils import timezone
from django.utils.html import format_html

register = template.Library()


@register.filter
def when(value: datetime | None, fmt: str = "%Y-%m-%d %H:%M"):
    """`<time>` in the active (viewer's) timezone, e.g. "2026-11-29 21:00 Asia/Shanghai"."""
    if not value:
        return ""
    local = timezone.localtime(value)
    zone = timezone.get_current_timezone_name()
    return format_html('<time datetime="{}" title="{}">{} <span class="tz">{}</span></time>',
                       value.astimezone(UTC).isoformat(), zone,
                       local.strftime(fmt), zone)


@register.filter
def countdown(value: datetime | None):
    """A deadline with a live countdown (static/js/countdown.js updates it every second)."""
    if not value:
        return ""
    return format_html('<span class="countdown" data-deadline="{}">{}</span>',
                       value.astimezone(UTC).isoformat(), when(value))
