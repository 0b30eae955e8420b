"""Small helpers for the forum templates."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext as _

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
