"""The author's badge on posts (messaging.rendering.author_badge): {% load badges %}."""

from __future__ import annotations

from django import template

from ..rendering import author_badge as _author_badge

register = template.Library()


@register.filter
def author_badge(user, board=None):
    """`{{ post.author|author_badge:post.thread.board_id }}`: 神的使者's badge, and staff's
    where they act as the GM (rendering.author_badge), empty otherwise."""
    return _author_badge(user, board)
