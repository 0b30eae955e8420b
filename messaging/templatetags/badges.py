"""The author's badge on posts (messaging.rendering.author_badge): {% load badges %}."""

from __future__ import annotations

from django import template

from ..rendering import author_badge as _author_badge

register = template.Library()


@register.filter
def author_badge(user):
    """`{{ post.author|author_badge }}`: 神的使者's and staff's badge, empty otherwise."""
    return _author_badge(user)
