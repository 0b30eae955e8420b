"""The small parts a live page fetches when the change feed says its object changed
(static/js/live.js; the stream is config/live_view.py). The feed carries no content: these
are ordinary, permission-checked views answering for the reader who asks.

- `new_posts`: the posts of a thread after a number, as the thread page shows them (the
  "N 条新回复" bar and the posts it adds);
- `header_counts`: the header's two counts (神的使者's unread messages, the bell's notices).
Neither marks anything read (only a top-level page view does: config.http).
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from config.inputs import parse_int

from . import blocks, rules
from .models import Thread
from .notifications import header_counts as read_counts

PER_FETCH = 50  # a page of posts; more than that and the bar links the thread's next page


@require_GET
@never_cache
def new_posts(request: HttpRequest, pk: int) -> HttpResponse:
    """`?after=N`: the first `PER_FETCH` posts of thread `pk` numbered after N, as `<li>`s
    inside `<ol data-count="how many there are after N">`; 404 for a thread the reader may
    not read (rules.can_read_thread, as the thread page). Four queries: the thread, the
    count, the thread's authors' names and badges (messaging.blocks.thread_people: their
    ids kept under the thread's version), the posts (with their quotes); rendered as the
    thread page renders its posts (blocks.render_posts), never kept."""
    thread = get_object_or_404(Thread.objects.select_related("board__game"), pk=pk)
    if not rules.can_read_thread(request.user, thread):
        raise Http404
    after = parse_int(request.GET.get("after"), field="after", minimum=0)
    later = thread.posts.filter(number__gt=after).order_by("number")
    count = later.count()
    html = ""
    if count:
        user = request.user
        refusal = rules.reply_refusal(user, thread) if user.is_authenticated else True
        can_edit = (user.is_authenticated and not rules.is_messenger(user)
                    and rules.is_gm(user, thread.board_id))
        # The page the first of them (number after + 1) is on: pages are floor ranges of
        # PER_FETCH (the quote button's link without script).
        page_number = after // PER_FETCH + 1
        html = blocks.render_posts(
            thread=thread, posts=later[:PER_FETCH], page_number=page_number,
            people=blocks.thread_people(thread), can_quote=not refusal, can_edit=can_edit)
    return HttpResponse(f'<ol class="posts" data-count="{count}" data-version="{thread.version}">'
                        f'{html}</ol>', content_type="text/html; charset=utf-8")


@require_GET
@never_cache
def header_counts(request: HttpRequest) -> JsonResponse:
    """{"messages": n, "notices": n} for the signed-in reader (both 0 for anyone else),
    as the header shows them (notifications.header_counts, one query)."""
    counts = read_counts(request.user if request.user.is_authenticated else None)
    return JsonResponse({"messages": counts["messages"], "notices": counts["notices"]})
