"""Small helpers for the forum templates."""

from __future__ import annotations

import functools

from django import template
from django.template.loader import get_template
from django.utils import timezone, translation
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from ..rendering import author_badge

# Rendered post heads kept per process (about 2 kB each): a few busy threads' pages.
POST_FRAGMENTS = 4096

register = template.Library()


@register.filter
def forum_name(user) -> str:
    """The display name other players see (the joined profile is used, no extra query)."""
    from accounts.models import display_name

    if user is None:
        return _("(deleted account)")
    return display_name(user)


@register.simple_tag(takes_context=True)
def page_url(context, number) -> str:
    """The current URL with only `page` changed. Other query parameters are dropped, except
    the ones the view lists in `page_query` (already URL-encoded, e.g. "author=3&author=7")."""
    keep = context.get("page_query") or ""
    return f"{context['request'].path}?{keep + '&' if keep else ''}page={number}"


@register.simple_tag
def post_head(post, thread) -> SafeString:
    """`{% post_head post thread %}`: a post's `<li>` up to its per-reader footer (author,
    badge, time, quote, body, edit note), from messaging/_post.html.

    Issue 17 item 1: this markup is the same for every reader with the same language and
    timezone, so it is rendered once per process and reused. The cache key is every value
    the markup is made of (the post's HTML, the author's name and badge, the quote, the edit
    and withdrawal times, the language and the timezone), so an edit, a renamed author or a changed quote
    makes a new key and a stale fragment can never be shown; the least recently used
    fragments are dropped."""
    author, quote = post.author, post.quote
    key = (post.pk, post.number, post.author_id, forum_name(author), str(author_badge(author)),
           post.created_at, post.edited_at, post.html, thread.get_absolute_url(),
           translation.get_language(), timezone.get_current_timezone_name(),
           post.withdrawn_at)
    if quote is not None:
        key += (quote.pk, quote.number, forum_name(quote.author), quote.html)
    return _render_post_head(key)


_POST_FIELDS = ("pk", "number", "author_id", "author_name", "badge", "created_at",
                "edited_at", "html", "thread_url", "language", "timezone", "withdrawn_at")
_QUOTE_FIELDS = ("quote_pk", "quote_number", "quote_name", "quote_html")


@functools.lru_cache(maxsize=POST_FRAGMENTS)
def _render_post_head(key: tuple) -> SafeString:
    """Render from the key alone (the fragment is a function of it)."""
    context = dict(zip(_POST_FIELDS + _QUOTE_FIELDS, key, strict=False))
    context["badge"] = SafeString(context["badge"])
    return SafeString(get_template("messaging/_post.html").render(context))
