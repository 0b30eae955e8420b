"""Template helpers for notices, bookmarks and reports: a post's short excerpt."""

from __future__ import annotations

import html as html_lib
import re

from django import template
from django.utils.html import strip_tags
from django.utils.text import Truncator

register = template.Library()

EXCERPT_CHARS = 60
_SPACE = re.compile(r"\s+")


@register.filter
def excerpt(post, length: int = EXCERPT_CHARS) -> str:
    """The first `length` characters of `post`'s text as shown (its stored, sanitized HTML
    without tags, on one line), cut with "…"; "" for no post. Read when the page is made,
    so a post the GM edited since shows its new text."""
    if post is None or not getattr(post, "html", ""):
        return ""
    text = _SPACE.sub(" ", html_lib.unescape(strip_tags(post.html))).strip()
    return Truncator(text).chars(int(length))
