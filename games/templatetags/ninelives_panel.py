"""The 猫有n条命 'my hand' panel's one tag: everything the panel shows, prepared from the seat's
own view by games.presenters.ninelives.panel (so the private results read exactly as the
seat's messages from 神的使者 do, through `present`)."""

from __future__ import annotations

from django import template
from django.utils.safestring import mark_safe

from games.presenters import ninelives as presenters_ninelives
from messaging.rendering import render_markdown

register = template.Library()


@register.simple_tag
def ninelives_panel(view, names) -> dict:
    """`{% ninelives_panel view names as p %}`: the panel's data (empty without a seat view).

    Each result's text is Markdown made safe by the forum's renderer (raw HTML escaped), as
    in the seat's conversation.
    """
    data = presenters_ninelives.panel(view, names or {})
    for result in data.get("results", []):
        result["html"] = mark_safe(render_markdown(result["text"]))  # noqa: S308 - sanitized
    return data
