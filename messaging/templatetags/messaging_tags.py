"""Small helpers for the forum templates."""

from __future__ import annotations

from django import template
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

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


def page_numbers(number: int, total: int, *, around: int = 2) -> list[int | None]:
    """The page numbers a pagination shows: the first, the last and `around` on each side
    of `number`, None for each gap of two pages or more (…); a gap of one page shows that
    page instead (1 2 3, never 1 … 3). 9 pages, page 8: [1, None, 6, 7, 8, 9]."""
    shown = {1, total, *range(max(1, number - around), min(total, number + around) + 1)}
    out: list[int | None] = []
    previous = 0
    for n in sorted(shown):
        if n - previous == 2:
            out.append(n - 1)
        elif n - previous > 2:
            out.append(None)
        out.append(n)
        previous = n
    return out


@register.simple_tag(takes_context=True)
def pagination(context) -> dict:
    """What one pagination nav of the page shows (messaging/_pagination.html): its numbered
    pages, and its place on the page (1 above the list, 2 below), which makes its label and
    its form ids its own: two navs labelled alike are one landmark to a screen reader."""
    request = context.get("request")
    place = getattr(request, "_paginations", 0) + 1
    if request is not None:
        request._paginations = place
    page = context["page"]
    label = {1: _("Pages (top)"), 2: _("Pages (bottom)")}.get(place, _("Pages"))
    return {"numbers": page_numbers(page.number, page.paginator.num_pages), "place": place,
            "label": label}


@register.simple_tag
def jump_label(kind: str, place: int, maximum: int) -> SafeString:
    """"跳转到第 [ ] 页" / "第 [ ] 楼": a <label> holding the sentence with its number box
    (`kind` "page" or "floor", named so in the query) inside it, in the reader's language
    (the box's place in the sentence differs between languages)."""
    text = _("Go to page %(box)s") if kind == "page" else _("Go to floor %(box)s")
    box = format_html('<input type="number" name="{}" id="jump-{}-{}" min="1" max="{}" '
                      'inputmode="numeric" required class="jump-number">',
                      kind, kind, place, maximum)
    return format_html("<label>{}</label>", SafeString(conditional_escape(text) % {"box": box}))


@register.inclusion_tag("messaging/_thread_row.html", takes_context=True)
def thread_row(context, thread, show_board=False, slot="") -> dict:
    """`{% thread_row thread %}`: one row of a thread list (messaging/_thread_row.html), from
    a thread read with its last post's writer (`last_post__author__profile`) and, for a
    signed-in reader, its unread count (`unread.with_read_marks`). With `slot` (the board's
    kept rows, messaging.board_rows: the context says `signed_in`), the row holds `slot`
    where the reader's unread class and mark and the last writer's name go, and its thread
    needs only its last post."""
    last = thread.last_post if thread.last_post_id else None
    board = thread.board if show_board else None
    signed_in = context["signed_in"] if slot else context["request"].user.is_authenticated
    # 置顶 is an order within the thread's own board: a list across boards (show_board, the
    # home page's 最新主题) neither shows it nor sorts by it.
    return {"pk": thread.pk, "kind": thread.kind, "kind_label": thread.get_kind_display(),
            "is_pinned": thread.is_pinned and not show_board, "is_locked": thread.is_locked,
            "title": thread.title,
            "unread_count": getattr(thread, "unread_count", 0), "slot": slot,
            "post_count": thread.post_count, "last_number": last.number if last else 0,
            "last_name": forum_name(last.author) if last and not slot else "",
            "last_post_at": thread.last_post_at, "signed_in": signed_in,
            "board_slug": board.slug if board else "", "board_title": board.title if board else ""}


@register.simple_tag
def new_mark(count: int) -> SafeString:
    """A thread row's mark of the `count` posts its reader has not read, linked by the row's
    title to the first of them."""
    return format_html('<span class="new-mark" title="{}">{}</span>',
                       _("Jump to the first unread post"),
                       ngettext("%(n)s new", "%(n)s new", count) % {"n": count})
