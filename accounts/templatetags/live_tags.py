"""The pages' side of the live subscription tokens (config/live_token.py).

`{% live "thread" thread.pk %}` writes the id of an object a part of the page follows
(`data-live-thread="{% live 'thread' thread.pk %}"`) and records it for the page's token;
`{% live_attrs %}` (base.html's #live-texts, after every part) writes the token and the
objects it names for static/js/live.js. The page's view has already checked that its
reader may read what it shows: the token only says so in a form the live server can check
without the database.
"""

from __future__ import annotations

from django import template

from config import live_token

register = template.Library()


@register.simple_tag(takes_context=True)
def live(context, kind: str, pk) -> str:
    return live_token.follow(context.get("request"), kind, pk)


@register.simple_tag(takes_context=True)
def live_attrs(context) -> str:
    return live_token.attrs(context.get("request"))
