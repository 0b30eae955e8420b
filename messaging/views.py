"""Forum pages and the conversation with 神的使者. Thin: reads here, writes in services."""

from __future__ import annotations

import re
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages as flash
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.paginator import Page, Paginator
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from config.http import is_page_navigation
from config.inputs import parse_int, parse_page
from config.ratelimit import RateLimited, consume

from . import (
    blocks,
    board_rows,
    drafts,
    hooks,
    keeping,
    notifications,
    rules,
    search,
    services,
    unread,
)
from .context_processors import header_counts
from .forms import EditPostForm, MessageForm, NewThreadForm, ReplyForm
from .latest import latest_rows
from .mentions import render_with_mentions
from .models import Board, Conversation, Notification, Post, Thread, ThreadReadState
from .services import PostingRefused

POSTS_PER_PAGE = 50
THREADS_PER_PAGE = board_rows.THREADS_PER_PAGE
MESSAGES_PER_PAGE = 50
NOTIFICATIONS_PER_PAGE = 30
RESULTS_PER_PAGE = 20
# Deep pages of a search cost an OFFSET scan; nobody reads result 1,000.
MAX_RESULT_PAGE = 50
LOBBY_GAME_BOARDS = 8

# The HTTP status that fits each kind of refusal (see PostingRefused).
REFUSAL_STATUS = {"invalid": 400, "forbidden": 403, "not_found": 404, "rate_limited": 429}

# ?author= takes ASCII digits only: str.isdigit() also accepts "²" and "１", which int()
# then refuses or reads differently. Eighteen digits keep it inside a 64-bit key.
_USER_ID = re.compile(r"[0-9]{1,18}")
MAX_ISO_AUTHORS = 10


class BadQuery(Exception):
    """A query parameter that cannot be read; `message` is shown with a 400."""

    def __init__(self, message):
        super().__init__(str(message))
        self.message = message


def author_ids(values: list[str]) -> list[int]:
    """The user ids of `?author=` (repeatable), or BadQuery with a readable reason."""
    if len(values) > MAX_ISO_AUTHORS:
        raise BadQuery(_("Show the posts of at most %(n)d authors at once.")
                       % {"n": MAX_ISO_AUTHORS})
    ids = []
    for value in values:
        if not _USER_ID.fullmatch(value):
            raise BadQuery(_("“%(value)s” is not an author number: use the digits 0-9 only.")
                           % {"value": value[:30]})
        ids.append(int(value))
    return sorted(set(ids))


def _page(paginator: Paginator, raw: str | None, *, default_last: bool = False) -> Page:
    """The requested page; "last" (or nothing, when `default_last`) means the last page,
    and anything unreadable (config.inputs.parse_page) or out of range falls back to the
    nearest real page."""
    number = parse_page(raw)
    if number == "last" or (default_last and not raw):
        return paginator.page(paginator.num_pages)
    return paginator.get_page(number)


def _without_game_columns(path: str) -> list[str]:
    """The large columns of the game at `path` that no forum page shows (its state, result,
    awaited seats and options), to `defer()`: a forum page loads a board's game for its name
    and links, never reads these (they are read on demand should one be asked for)."""
    return [f"{path}__{name}" for name in ("state", "outcome", "awaiting", "config",
                                           "durations")]


def _board_or_404(slug: str) -> Board:
    """The board named `slug` with its game (`board.game`, or none) in one query."""
    board = (Board.objects.select_related("game")
             .defer(*_without_game_columns("game")).filter(slug=slug).first())
    if board is not None:
        return board
    # The site-wide lobby always exists: created on first visit on a fresh install.
    if slug == services.LOBBY_SLUG:
        return services.lobby_board()
    raise Http404


def _readable_thread_or_404(user, pk: int) -> Thread:
    """The thread `user` may read, with its board and the board's game (the breadcrumb names
    the game, the games' posting check reads it), or 404. Not the thread's author: no page
    of a thread shows it."""
    thread = get_object_or_404(
        Thread.objects.select_related("board__game")
        .defer(*_without_game_columns("board__game")), pk=pk)
    if not rules.can_read_thread(user, thread):
        raise Http404
    return thread


def floor_page(number: int) -> int:
    """The page of a thread that shows post (floor) `number`: pages are by floor number,
    `POSTS_PER_PAGE` floors each (a deleted post leaves its floor empty)."""
    return (max(number, 1) - 1) // POSTS_PER_PAGE + 1


def post_page_url(post: Post) -> str:
    """The URL of the thread page showing `post`, anchored at it (no query)."""
    return (f"{reverse('messaging-thread', args=[post.thread_id])}"
            f"?page={floor_page(post.number)}#p{post.number}")


# --- lobby, board ----------------------------------------------------------------------------

def lobby(request: HttpRequest) -> HttpResponse:
    user = request.user
    services.lobby_board()
    thread_filter = None if rules.is_messenger(user) else (
        ~Q(threads__kind=Thread.Kind.GM_ONLY) | rules.gm_boards_q(user))
    # The lobby first (lowest position), then the newest games.
    boards = rules.readable_boards(user).annotate(
        thread_count=Count("threads", filter=thread_filter)).order_by("position", "-id")
    # 最新主题: the reader's own games first, 神的使者's threads one row per board
    # (messaging.latest).
    mine, latest = latest_rows(user)
    boards = list(boards)
    links = hooks.board_links([b.pk for b in boards])
    for board in boards:
        board.extra_links = links.get(board.pk, [])
    # The games' boards come after the latest threads, one line each, the most recently
    # active first and at most LOBBY_GAME_BOARDS of them (the games list has the rest): the
    # page must not grow with every game, and 最新主题 stays on a phone's first screen.
    game_boards = sorted((b for b in boards if b.kind == Board.Kind.GAME),
                         key=lambda b: (b.last_post_at is not None, b.last_post_at, b.pk),
                         reverse=True)
    return render(request, "messaging/lobby.html", {
        "boards": [b for b in boards if b.kind != Board.Kind.GAME],
        "game_boards": game_boards[:LOBBY_GAME_BOARDS],
        "more_game_boards": max(0, len(game_boards) - LOBBY_GAME_BOARDS),
        "mine": mine, "latest": latest, "sections": hooks.render_lobby_sections(request)})


def board_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """A board's threads, 30 a page, newest activity first, with the reader's unread counts.
    Not signed in, the whole page is kept (messaging.blocks, part 4): a page read again is no
    query. Signed in, the board is kept under its tokens, the page's rows under the board's
    version and whether the reader may start a thread for a minute (messaging.board_rows):
    a page read again is one query of its threads as they are now (the reader's unread
    counts, the last writers' names), whatever the number of threads, besides the header's
    counts; a page not kept adds the count of the threads the reader may see and the page's
    rows."""
    user = request.user
    tokens = None
    if not user.is_authenticated:  # a page kept whole (messaging.blocks, part 4)
        kept = blocks.kept_anonymous_page(request, "board", slug)
        if kept is not None:
            return kept
        tokens = blocks.anonymous_page_tokens(request, "board", slug)
    board, kept_under = board_rows.kept_board(slug, _board_or_404, tokens)
    if not rules.can_read_board(user, board):
        raise Http404
    page, rows = board_rows.board_page(board=board, user=user, asked=request.GET.get("page"))
    can_start, start_refusal = False, None
    if user.is_authenticated:
        can_start, start_refusal = board_rows.start_state(user, board, kept_under,
                                                          _start_state)
    response = render(request, "messaging/board.html", {
        "board": board, "page": page, "can_start": can_start, "rows": rows,
        "start_refusal": start_refusal})
    if user.is_authenticated:
        return response
    return blocks.keep_anonymous_page(request, "board", slug, tokens, response)


def _start_state(user, board: Board) -> tuple[bool, str | None]:
    """Whether `user` may start a thread on `board` (the New thread button): when any kind
    may be started, a discussion asked first (the games' check asked once when it may);
    else why not (a watcher of a running game, a board of a game they do not play in, a
    locked board), said where the button would be."""
    refusal = rules.start_refusal(user, board, Thread.Kind.DISCUSSION)
    if refusal is None or any(rules.start_refusal(user, board, kind) is None
                              for kind in Thread.Kind if kind != Thread.Kind.DISCUSSION):
        return True, None
    return False, refusal


@login_required
@require_POST
def board_mark_read(request: HttpRequest, slug: str) -> HttpResponse:
    """全部标为已读: every thread of the board the user may read, up to its last post."""
    board = _board_or_404(slug)
    if not rules.can_read_board(request.user, board):
        raise Http404
    unread.mark_board_read(user=request.user, board=board)
    flash.success(request, _("Every thread of this board is marked as read."))
    return redirect(board)


@login_required
@require_http_methods(["GET", "POST"])
def thread_new(request: HttpRequest, slug: str) -> HttpResponse:
    board = _board_or_404(slug)
    if not rules.can_read_board(request.user, board):
        raise Http404
    kinds = rules.startable_kinds(request.user, board)
    status = 200
    refusal = None
    if not kinds:
        refusal = (rules.start_refusal(request.user, board, Thread.Kind.DISCUSSION)
                   or rules.start_refusal(request.user, board, Thread.Kind.ANNOUNCEMENT))
        status = 403
    # Every kind is accepted by the form so that a refused kind reaches the service and gets
    # its own message; the menu offers only the kinds this user may start.
    all_kinds = [(k.value, k.label) for k in Thread.Kind]
    form = NewThreadForm(request.POST or None, kinds=all_kinds)
    form.fields["kind"].widget.choices = kinds
    if request.method == "POST":
        if form.is_valid():
            try:
                thread = services.start_thread(
                    board=board, author=request.user, kind=form.cleaned_data["kind"],
                    title=form.cleaned_data["title"], body=form.cleaned_data["body"])
            except PostingRefused as refused:
                _keep_draft(request, board=board)
                return _refused(request, refused, form, lambda status: render(
                    request, "messaging/thread_new.html",
                    {"board": board, "form": form, "refusal": refusal}, status=status))
            else:
                _posted(request, board=board, message=_("Your thread is posted."))
                return redirect(thread)
        else:
            _keep_draft(request, board=board)
            status = 400
    draft = None
    if not refusal:
        # The writer's own draft of this board's new thread (another device, a reload).
        draft = drafts.draft_for(user=request.user, board=board)
        if draft is not None and not form.is_bound:
            form = NewThreadForm(initial={"kind": draft.kind, "title": draft.title,
                                          "body": draft.body}, kinds=all_kinds)
            form.fields["kind"].widget.choices = kinds
    return render(request, "messaging/thread_new.html",
                  {"board": board, "form": form, "refusal": refusal, **_draft_times(draft)},
                  status=status)


# --- thread ----------------------------------------------------------------------------------

def _render_thread(request: HttpRequest, thread: Thread, form: ReplyForm, *,
                   page_number: str | None, status: int = 200,
                   authors: list[int] | None = None, bad_query: str = "",
                   quote: int | None = None) -> HttpResponse:
    """The thread page, or with `authors` only those users' posts (只看该作者), keeping their
    floor numbers. `quote`: a post whose quote is added to the reply box (the quote button
    without script, `?quote=`).

    The whole thread is paged by floor number: page N shows the posts numbered
    (N-1)×POSTS_PER_PAGE+1 to N×POSTS_PER_PAGE, read by the (thread, number) index, so the
    last page of a long thread costs what page 2 does. Its posts' markup is kept in the
    cache (messaging.blocks: one read; on a miss one query of the page's posts), and the
    thread's authors are read once (names, badges); the number of queries does not depend on
    the number of posts. The "only this author" view counts and pages its posts (not kept)."""
    user = request.user
    whole = not authors and not bad_query
    iso_users = []
    if whole:
        # Pages of floors: no count and no OFFSET (`last_number` is kept by every writer).
        page = _page(Paginator(range(1, thread.last_number + 1), POSTS_PER_PAGE), page_number)
        floors = page.object_list
        posts = thread.posts.filter(number__gte=floors.start, number__lt=floors.stop)
    else:
        posts = thread.posts.all()
        if authors:
            posts = posts.filter(author_id__in=authors)
            iso_users = list(get_user_model().objects.filter(pk__in=authors)
                             .select_related("profile").order_by("pk"))
        else:
            posts = posts.none()
        page = _page(Paginator(posts, POSTS_PER_PAGE), page_number)
        posts = page.object_list
    refusal = None
    can_edit = False
    if user.is_authenticated:
        refusal = rules.reply_refusal(user, thread)
        can_edit = not rules.is_messenger(user) and rules.is_gm(user, thread.board_id)
    page_query = urlencode([("author", a) for a in authors or []])
    people = blocks.thread_people(thread)
    posts_html = blocks.posts_html(
        thread=thread, posts=posts, page_number=page.number, people=people,
        can_quote=user.is_authenticated and not refusal, can_edit=can_edit,
        page_query=page_query, cached=whole)
    # How far the reader had read before this page (for the new-replies divider).
    read_before = _read_mark(request, thread) if whole else 0
    # Only the whole thread read as a page counts: an ISO view skips other posts.
    if whole and floors and user.is_authenticated and request.method == "GET" \
            and is_page_navigation(request):
        last = min(floors[-1], thread.last_number)
        # The header's counts first (the query the header makes anyway): with no unread
        # notice there is none to mark read; otherwise the ones read here are subtracted.
        # A player's counts come with their mark of this thread: a page read again, with no
        # unread notice, writes nothing and costs no statement.
        counts = header_counts(request, thread)
        if counts["notices"] > 0 or counts.get("mark", 0) < last:
            counts["notices"] -= unread.mark_read(user=user, thread=thread, up_to=last,
                                                  seen_from=floors.start,
                                                  unread_notices=counts["notices"] > 0)
    quoting = None
    # A quote posted by a page of the previous release (the hidden field), as the form read
    # it (config.inputs): shown above the box until it is posted.
    quote_id = (form.cleaned_data.get("quote") if form.is_bound and hasattr(form, "cleaned_data")
                else None)
    if quote_id:
        quoting = (thread.posts.select_related("author__profile")
                   .filter(pk=quote_id).first())
    draft = None
    if user.is_authenticated and not refusal:
        # The reader's own draft, rendered into their own page only. ?quote= (a quote button
        # followed without script) adds the quote after the draft, so nothing written is
        # lost.
        counts = header_counts(request, thread)  # a player's carry their draft of it
        draft = (counts["draft"] if "draft" in counts
                 else drafts.draft_for(user=user, thread=thread))
        if not form.is_bound:
            body = draft.body if draft else ""
            quoted = (thread.posts.select_related("author__profile").filter(pk=quote).first()
                      if quote else None)  # a post of another thread is not quoted
            if quoted is not None:
                body = drafts.with_quote(body, drafts.quote_markdown(quoted,
                                                                     _name(quoted.author)))
            form = ReplyForm(initial={"body": body})
    return render(request, "messaging/thread.html", {
        "thread": thread, "board": thread.board, "page": page, "form": form,
        "reply_refusal": refusal, "quoting": quoting, **_draft_times(draft),
        "iso": bool(authors) or bool(bad_query), "iso_users": iso_users,
        "bad_query": bad_query, "page_query": page_query,
        **_navigation(thread, posts_html, people, read_before=read_before,
                      authors=authors or [], bad_query=bool(bad_query)),
        "panels": hooks.render_thread_panels(request, thread),
    }, status=status)


# Navigation of a long thread: numbered pages with a jump to a page or a floor (楼), the
# reader's first unread post marked on its page, the thread's authors to pick for 只看.
_POST_LI = re.compile(r'<li class="post card[^"]*" id="p([0-9]+)">')
NEW_DIVIDER = '<li class="new-divider" id="new" role="separator">{}</li>'


def _read_mark(request: HttpRequest, thread: Thread) -> int:
    """How far the signed-in reader had read `thread` before this page (0: never opened,
    or not signed in). A player's mark comes with the header's counts (the query the header
    makes anyway); a GM's costs one query."""
    user = request.user
    if not user.is_authenticated:
        return 0
    mark = header_counts(request, thread).get("mark")
    if mark is None:
        mark = (ThreadReadState.objects.filter(user=user, thread=thread)
                .values_list("last_read_number", flat=True).first()) or 0
    return mark


def _navigation(thread: Thread, posts_html: str, people: list[blocks.Person], *,
                read_before: int, authors: list[int], bad_query: bool) -> dict:
    """The thread page's navigation parts: "posts_html" with the 以下是新回复 divider before
    the first post the reader had not read, when this page shows where read meets unread
    (the page holds a read post before it, or begins with the post right after the mark);
    "first_unread_url", the link to that post (#new on this page, else the jump that finds
    it), only for a reader who read part of the thread and not all; the thread's authors
    for the 只看这些作者 picker; the floors a jump may ask for."""
    first_unread_url = ""
    if read_before and posts_html:
        numbers = [int(n) for n in _POST_LI.findall(posts_html)]
        first = next((n for n in numbers if n > read_before), None)
        if first is not None and (first != numbers[0] or first == read_before + 1):
            at = posts_html.index(f'id="p{first}"')
            at = posts_html.rindex("<li ", 0, at)
            posts_html = (posts_html[:at] + format_html(NEW_DIVIDER, _("New replies below"))
                          + posts_html[at:])
            first_unread_url = "#new"
    if not first_unread_url and 0 < read_before < thread.last_number:
        first_unread_url = reverse("messaging-thread-unread", args=[thread.pk])
    return {"posts_html": SafeString(posts_html), "first_unread_url": first_unread_url,
            "thread_authors": [{"pk": p.pk, "name": p.name} for p in people],
            "iso_ids": authors, "jump_floors": 0 if bad_query else thread.last_number}


def _jump_to_floor(thread: Thread, raw: str, authors: list[int]) -> HttpResponse:
    """?floor=N (第 N 楼): the page of the thread (with ?author=, of those authors' posts)
    that holds post number N, anchored at it (with ?author=, one count). A floor that is no
    number, or past the thread's last, is a 400 with a sentence (config.inputs)."""
    number = parse_int(raw, field=_("floor"), minimum=1, maximum=max(thread.last_number, 1))
    page = floor_page(number)
    if authors:
        page = (thread.posts.filter(author_id__in=authors, number__lt=number).count()
                // POSTS_PER_PAGE + 1)
    query = urlencode([*(("author", a) for a in authors), ("page", page)])
    return redirect(f"{thread.get_absolute_url()}?{query}#p{number}")


def thread_detail(request: HttpRequest, pk: int) -> HttpResponse:
    tokens = None
    if not request.user.is_authenticated:  # a page kept whole (messaging.blocks, part 3)
        kept = blocks.kept_anonymous_page(request, "thread", pk)
        if kept is not None:
            return kept
        tokens = blocks.anonymous_page_tokens(request, "thread", pk)
    quote = parse_int(request.GET.get("quote"), field="quote", minimum=1, default=None)
    thread = _readable_thread_or_404(request.user, pk)
    try:
        authors = author_ids(request.GET.getlist("author"))
    except BadQuery as bad:
        return _render_thread(request, thread, ReplyForm(), page_number=None, status=400,
                              bad_query=bad.message, quote=quote)
    if request.GET.get("floor"):
        return _jump_to_floor(thread, request.GET["floor"], authors)

    response = _render_thread(request, thread, ReplyForm(), page_number=request.GET.get("page"),
                              authors=authors, quote=quote)
    if request.user.is_authenticated:
        return response
    return blocks.keep_anonymous_page(request, "thread", pk, tokens, response)


@login_required
@require_POST
def thread_reply(request: HttpRequest, pk: int) -> HttpResponse:
    thread = _readable_thread_or_404(request.user, pk)
    form = ReplyForm(request.POST)
    status = 400
    if form.is_valid():
        try:
            quote = None
            if form.cleaned_data["quote"]:
                quote = Post.objects.filter(pk=form.cleaned_data["quote"], thread=thread).first()
                if quote is None:
                    raise PostingRefused(_("You can only quote a post of the same thread."))
            post = services.reply(thread=thread, author=request.user,
                                  body=form.cleaned_data["body"], quote=quote)
        except PostingRefused as refused:
            _keep_draft(request, thread=thread)
            return _refused(request, refused, form, lambda status: _render_thread(
                request, thread, form, page_number="last", status=status))
        else:
            _posted(request, thread=thread, message=_("Your reply is posted."))
            return redirect(post_page_url(post))
    _keep_draft(request, thread=thread)
    return _render_thread(request, thread, form, page_number="last", status=status)


def _draft_times(draft) -> dict[str, int | str]:
    """When the box's server copy was saved and the server's time now, in milliseconds, for
    the page's script to tell which of its copies is newer (docs/community.md, Drafts)."""
    return {"draft_at": int(draft.updated_at.timestamp() * 1000) if draft else "",
            "server_now": int(timezone.now().timestamp() * 1000)}


def _name(user) -> str:
    """The name a quote header gives `user` (their display name; a deleted account's)."""
    from accounts.models import display_name

    return _("(deleted account)") if user is None else display_name(user)


def _keep_draft(request: HttpRequest, *, thread: Thread | None = None,
                board: Board | None = None) -> None:
    """A refused post's text kept as the writer's draft of the box (the page shown again
    holds it too; this copy is for another device or a later visit). Not counted against
    the drafts' rate limit; a text too long for a draft is left to the page and the
    browser."""
    post = request.POST
    try:
        drafts.save(user=request.user, thread=thread, board=board, body=post.get("body", ""),
                    title=post.get("title", "") if board is not None else "",
                    kind=post.get("kind", "") if board is not None else "", count=False)
    except drafts.DraftRefused:
        pass


def _posted(request: HttpRequest, *, message, thread: Thread | None = None,
            board: Board | None = None) -> None:
    """The box's draft is done with: deleted here, and the next page's message carries the
    box's name (`draft-u<user>-t<thread>` or `-b<board>`), which tells the page's script to
    forget the browser's copy of it (static/js/drafts.js)."""
    drafts.discard(user=request.user, thread=thread, board=board)
    box = f"t{thread.pk}" if thread is not None else f"b{board.pk}"
    flash.success(request, message, extra_tags=f"draft-posted draft-u{request.user.pk}-{box}")


def thread_first_unread(request: HttpRequest, pk: int) -> HttpResponse:
    """Jump to the first post the user has not read (the last post if they read them all)."""
    thread = _readable_thread_or_404(request.user, pk)
    post = unread.first_unread_post(user=request.user, thread=thread)
    if post is None:
        post = thread.posts.order_by("-number").first()
    if post is None:
        return redirect(thread)
    return redirect(post_page_url(post))


# Previews go through the posting limiter (config.ratelimit, as services.check_rate_limit
# counts posts), in their own budget: a writer previews a few times per post, so this many
# times POSTS_PER_MINUTE (25 a minute with the default 10).
PREVIEWS_PER_POST = 2.5


def preview_limit() -> int:
    return max(1, int(settings.POSTS_PER_MINUTE * PREVIEWS_PER_POST))


def _refusal(message, *, status: int) -> HttpResponse:
    return HttpResponse(format_html('<p class="refusal" role="alert">{}</p>', message),
                        status=status, content_type="text/html; charset=utf-8")


@login_required
@require_POST
def preview(request: HttpRequest) -> HttpResponse:
    """The HTML a post with this text would show (the same renderer as posting), for the
    preview button; a refusal (empty, too long) is a 400 with its sentence, and beyond the
    preview budget (`preview_limit` a minute, counted before anything is rendered) a 429."""
    limit = preview_limit()
    try:
        consume(scope="messaging.previews", who=f"user:{request.user.pk}", rate=f"{limit}/m")
    except RateLimited as refused:
        response = _refusal(ngettext(
            "You can preview at most %(limit)d time a minute. Please wait a moment.",
            "You can preview at most %(limit)d times a minute. Please wait a moment.",
            limit) % {"limit": limit}, status=429)
        response["Retry-After"] = str(refused.retry_after)
        return response
    try:
        body = services.clean_body(request.POST.get("body"))
    except PostingRefused as refused:
        return _refusal(refused.message, status=400)
    html, _mentioned = render_with_mentions(body)
    return HttpResponse(html, content_type="text/html; charset=utf-8")


# --- drafts and quotes (messaging.drafts; the page's script: static/js/drafts.js) -----------

def _draft_answer(request: HttpRequest, save, back: str, refused_page) -> HttpResponse:
    """Keep a draft with `save()` and answer the page's script (JSON: when it was kept, in
    milliseconds, or why not, with a fitting status), or, for a form posted without script
    (`js` absent), go `back` to the page; a refusal then shows the page again with the text
    in its box and the reason (`refused_page(refusal)`), so nothing written is lost."""
    script = request.POST.get("js") == "1"
    try:
        draft = save()
    except drafts.DraftRefused as refused:
        if not script:
            return refused_page(refused)
        response = JsonResponse({"error": str(refused.message)}, status=refused.status)
        if refused.retry_after:
            response["Retry-After"] = str(refused.retry_after)
        return response
    if not script:
        return redirect(back)
    return JsonResponse({"saved": int(draft.updated_at.timestamp() * 1000) if draft else 0})


@login_required
@require_POST
def draft_thread(request: HttpRequest, pk: int) -> HttpResponse:
    """Keep the reply box's text as the user's draft of this thread (`body`; empty deletes
    it). With `?quote=<post>` (the quote button of a page without script, which posts the
    reply form here) the quote is added after the text and the page is shown again at the
    reply box, the draft in it."""
    thread = _readable_thread_or_404(request.user, pk)
    body = request.POST.get("body", "")
    quote = parse_int(request.GET.get("quote"), field="quote", minimum=1, default=None)
    query = [("page", p) for p in [parse_page(request.GET.get("page"))] if p]
    try:
        query += [("author", a) for a in author_ids(request.GET.getlist("author"))]
    except BadQuery:
        pass
    back = f"{thread.get_absolute_url()}?{urlencode(query)}#reply" if query \
        else f"{thread.get_absolute_url()}#reply"
    if quote:
        quoted = thread.posts.select_related("author__profile").filter(pk=quote).first()
        if quoted is not None:
            body = drafts.with_quote(body, drafts.quote_markdown(quoted, _name(quoted.author)))
    def refused_page(refused: drafts.DraftRefused) -> HttpResponse:
        form = ReplyForm({"body": body})
        form.is_valid()
        form.add_error(None, refused.message)
        return _render_thread(request, thread, form, page_number=request.GET.get("page"),
                              status=refused.status)

    return _draft_answer(request, lambda: drafts.save(user=request.user, thread=thread,
                                                      body=body), back, refused_page)


@login_required
@require_POST
def draft_board(request: HttpRequest, slug: str) -> HttpResponse:
    """Keep the new-thread box's kind, title and text as the user's draft of this board."""
    board = _board_or_404(slug)
    if not rules.can_read_board(request.user, board):
        raise Http404
    post = request.POST
    back = reverse("messaging-thread-new", args=[board.slug])

    def refused_page(refused: drafts.DraftRefused) -> HttpResponse:
        flash.error(request, refused.message)  # the page posts here only with its script
        return redirect(back)

    return _draft_answer(request, lambda: drafts.save(
        user=request.user, board=board, body=post.get("body", ""), title=post.get("title", ""),
        kind=post.get("kind", "")), back, refused_page)


@login_required
def post_quote(request: HttpRequest, pk: int) -> HttpResponse:
    """The quote of a post for the reply box (JSON: `markdown`, the whole quote; `header`,
    its first line, for a quote of a selection), for a reader of its thread; 404 for
    anyone else."""
    post = get_object_or_404(Post.objects.select_related("thread__board__game",
                                                         "author__profile"), pk=pk)
    if not rules.can_read_thread(request.user, post.thread):
        raise Http404
    name = _name(post.author)
    return JsonResponse({"markdown": drafts.quote_markdown(post, name),
                         "header": drafts.quote_header(post, name), "number": post.number})


def _editable_post_or_404(request: HttpRequest, pk: int) -> Post:
    """A post staff may edit and read the history of; a 404 for everyone else."""
    post = get_object_or_404(Post.objects.select_related("thread__board__game", "author__profile",
                                                         "edited_by__profile"), pk=pk)
    if rules.is_messenger(request.user) or not rules.is_gm(request.user, post.thread.board_id) \
            or not rules.can_read_thread(request.user, post.thread):
        raise Http404
    return post


@login_required
@require_http_methods(["GET", "POST"])
def post_edit(request: HttpRequest, pk: int) -> HttpResponse:
    """A moderator edits a post (services.edit_post keeps the earlier text)."""
    post = _editable_post_or_404(request, pk)
    form = EditPostForm(request.POST or None, initial={"body": post.body})
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                services.edit_post(post=post, editor=request.user,
                                   body=form.cleaned_data["body"])
            except PostingRefused as refused:
                form.add_error(None, refused.message)
                status = REFUSAL_STATUS[refused.code]
            else:
                return redirect(post_page_url(post))
    return render(request, "messaging/post_edit.html", {
        "post": post, "thread": post.thread, "board": post.thread.board, "form": form},
        status=status)


@login_required
def post_revisions(request: HttpRequest, pk: int) -> HttpResponse:
    """A post's earlier texts, for staff."""
    post = _editable_post_or_404(request, pk)
    revisions = post.revisions.select_related("edited_by__profile")
    return render(request, "messaging/post_revisions.html", {
        "post": post, "thread": post.thread, "board": post.thread.board,
        "revisions": revisions})


def post_permalink(request: HttpRequest, pk: int) -> HttpResponse:
    post = get_object_or_404(Post.objects.select_related("thread__board"), pk=pk)
    if not rules.can_read_thread(request.user, post.thread):
        raise Http404
    return redirect(post_page_url(post))


# --- the conversation with 神的使者 ----------------------------------------------------------

def _render_conversation(request: HttpRequest, conversation: Conversation | None,
                         form: MessageForm, *, status: int = 200) -> HttpResponse:
    """Steps: 1. mark the owner's unread messages as read, if a person opened the page (not
    an `<img>` planted in a post: `is_page_navigation`), 2. then read a page of messages
    (in this order, so a message arriving in between stays unread rather than unseen)."""
    page = None
    if conversation is not None:
        if is_page_navigation(request):
            services.mark_read_by_owner(conversation=conversation)
            notifications.read_conversation(user=request.user, conversation=conversation)
        messages = conversation.messages.select_related("sender__profile")
        page = _page(Paginator(messages, MESSAGES_PER_PAGE), request.GET.get("page"),
                     default_last=True)
    return render(request, "messaging/conversation.html", {
        "conversation": conversation, "page": page, "form": form,
        "messenger_name": settings.MESSENGER_NAME,
    }, status=status)


def _refused(request: HttpRequest, refused: PostingRefused, form, render_page) -> HttpResponse:
    """The page again with the refusal's message, in the status that fits it (429 with
    Retry-After for the rate limit)."""
    form.add_error(None, refused.message)
    response = render_page(REFUSAL_STATUS[refused.code])
    if refused.retry_after:
        response["Retry-After"] = str(refused.retry_after)
    return response


def _send(request: HttpRequest, conversation: Conversation | None) -> HttpResponse:
    """A message to 神的使者 in `conversation` (None: the general one, created with its first
    message by the service, so a refused message leaves no empty conversation)."""
    form = MessageForm(request.POST)
    if not form.is_valid():
        return _render_conversation(request, conversation, form, status=400)
    try:
        if conversation is None:
            message = services.write_to_messenger(author=request.user,
                                                  body=form.cleaned_data["body"])
            conversation = message.conversation
        else:
            services.send_to_messenger(conversation=conversation, author=request.user,
                                       body=form.cleaned_data["body"])
    except PostingRefused as refused:
        if refused.code == "not_found":
            raise Http404 from None
        return _refused(request, refused, form, lambda status: _render_conversation(
            request, conversation, form, status=status))
    return redirect(conversation)


@login_required
@require_http_methods(["GET", "POST"])
def conversation_home(request: HttpRequest) -> HttpResponse:
    """The header's 神的使者 link: the conversation the user should read now.

    1. One conversation with messages the owner has not read: that one; several: the list
       (each with its count).
    2. Nothing unread: the conversation of the game the user plays now (the newest one if
       several; through the reverse relation Board.game, without importing games).
    3. Otherwise the general conversation. A POST here still writes to the general one.
    """
    if request.method == "POST":
        return conversation_general(request)
    own = Conversation.objects.filter(owner=request.user)
    unread_ids = list(own.filter(owner_unread__gt=0).values_list("pk", flat=True)[:2])
    if len(unread_ids) > 1:
        return redirect("messaging-conversation-list")
    target = own.filter(pk__in=unread_ids).first() if unread_ids else (
        own.filter(board__game__status__in=("running", "paused"))
        .order_by("-board__game__id").first())
    if target is not None and target.board_id is not None:
        return redirect(target)
    return conversation_general(request)


@login_required
@require_http_methods(["GET", "POST"])
def conversation_general(request: HttpRequest) -> HttpResponse:
    """The user's general conversation with 神的使者 (created when they first write)."""
    conversation = Conversation.objects.filter(owner=request.user, board=None).first()
    if request.method == "POST":
        return _send(request, conversation)
    return _render_conversation(request, conversation, MessageForm())


@login_required
@require_http_methods(["GET", "POST"])
def conversation_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """One of the user's own conversations; any other id is a 404, whoever owns it."""
    conversation = get_object_or_404(Conversation.objects.select_related("board__game"),
                                     pk=pk, owner=request.user)
    if request.method == "POST":
        return _send(request, conversation)
    return _render_conversation(request, conversation, MessageForm())


@login_required
def conversation_list(request: HttpRequest) -> HttpResponse:
    """The user's own conversations only: the general one first, then one per game."""
    conversations = list(Conversation.objects.filter(owner=request.user)
                         .select_related("board__game").order_by("-last_message_at", "-id"))
    general = next((c for c in conversations if c.board_id is None), None)
    per_game = [c for c in conversations if c.board_id is not None]
    return render(request, "messaging/conversation_list.html", {
        "general": general, "conversations": per_game,
        "messenger_name": settings.MESSENGER_NAME})


# --- notifications (the bell) ------------------------------------------------------------

@login_required
def notification_list(request: HttpRequest) -> HttpResponse:
    """The user's notices, newest first, paginated. A constant number of queries: one
    count, one page with the actors' names, threads and posts joined in."""
    notices = (Notification.objects.filter(user=request.user)
               .select_related("actor__profile", "thread", "post", "conversation__board"))
    page = _page(Paginator(notices, NOTIFICATIONS_PER_PAGE), request.GET.get("page"))
    return render(request, "messaging/notifications.html", {
        "page": page, "messenger_name": settings.MESSENGER_NAME})


def _back_to_notifications(request: HttpRequest) -> HttpResponse:
    page = request.POST.get("page", "")
    url = reverse("messaging-notifications")
    return redirect(f"{url}?page={page}" if _USER_ID.fullmatch(page) else url)


@login_required
@require_POST
def notification_read(request: HttpRequest, pk: int) -> HttpResponse:
    """Mark one of the user's own notices read; anyone else's is a 404."""
    if not notifications.mark_read(user=request.user, notification_id=pk):
        raise Http404
    return _back_to_notifications(request)


@login_required
@require_POST
def notification_read_all(request: HttpRequest) -> HttpResponse:
    notifications.mark_all_read(user=request.user)
    flash.success(request, _("Every notification is marked as read."))
    return _back_to_notifications(request)


# --- search --------------------------------------------------------------------------------

def _one_id(request: HttpRequest, name: str) -> int | None:
    """The ASCII-digit id in `?name=`, None if absent or empty, or BadQuery."""
    value = request.GET.get(name, "")
    if not value:
        return None
    if not _USER_ID.fullmatch(value):
        raise BadQuery(_("“%(value)s” is not a number: use the digits 0-9 only.")
                       % {"value": value[:30]})
    return int(value)


def _without(request: HttpRequest, *names: str) -> str:
    """The search's address with the parameters `names` (and the page) left out: the link
    that removes a filter's chip."""
    kept = [(k, v) for k, values in request.GET.lists() if k not in (*names, "page")
            for v in values if v]
    return f"{reverse('messaging-search')}?{urlencode(kept)}" if kept \
        else reverse("messaging-search")


def search_page(request: HttpRequest) -> HttpResponse:
    """Search thread titles and post text (`messaging.search`): every word typed (AND),
    filtered by board (slug), game (id) and author (`by`: a name as typed, resolved to the
    user(s) it names; `author`: user ids, as the profile's link gives them); only what the
    viewer may read; paginated without a count. With an author and no words, that author's
    posts. Each active filter is shown as a chip with a link that removes it; the author
    field shows the author's name, so nothing is carried along unseen. Bad input is a 400
    with a message, never a 500."""
    user = request.user
    get = request.GET
    boards = list(rules.readable_boards(user).order_by("position", "-id")
                  .values_list("pk", "slug", "title"))
    context = {"boards": boards, "raw_query": get.get("q", "")[:search.MAX_QUERY_LENGTH * 2],
               "raw_by": get.get("by", "")[:100], "board_slug": get.get("board", ""),
               "results": None, "error": "", "chips": []}
    if not any(get.get(k) for k in ("author", "by")) and "q" not in get:
        return render(request, "messaging/search.html", context)
    status = 200
    try:
        raw_query = get.get("q", "")
        by_author = bool(get.get("by", "").strip() or get.getlist("author"))
        query = search.clean_query(raw_query) if raw_query.strip() or not by_author else ""
        game = _one_id(request, "game")
        authors = _search_authors(request)
        if authors is not None:
            context["chips"].append({
                "id": "chip-author", "label": _("Author"),
                "value": "、".join(name for _pk, name in authors) or "—",
                "remove": _without(request, "author", "by")})
            if not context["raw_by"] and len(authors) == 1:
                context["raw_by"] = authors[0][1]  # the field names whom the filter keeps
        board_ids = None
        if context["board_slug"]:
            board_ids = [pk for pk, slug, _title in boards if slug == context["board_slug"]]
            context["chips"].append({
                "id": "chip-board", "label": _("Board"),
                "value": next((t for _pk, slug, t in boards if slug == context["board_slug"]),
                              context["board_slug"][:40]),
                "remove": _without(request, "board")})
        if game is not None:
            # A game's board, through the reverse relation games.Game.board (related_name
            # "game"); messaging does not import games.
            in_game = set(Board.objects.filter(game__pk=game).values_list("pk", flat=True))
            readable = {pk for pk, _slug, _title in boards}
            board_ids = [pk for pk in (board_ids if board_ids is not None else readable)
                         if pk in in_game]
            context["chips"].append({
                "id": "chip-game", "label": _("Game"),
                "value": "、".join(t for pk, _slug, t in boards if pk in in_game and pk in readable)
                or f"#{game}",
                "remove": _without(request, "game")})
        number = _page_number(get.get("page"))
        posts = search.search_posts(
            viewer=user, query=query, board_ids=board_ids,
            author_ids=None if authors is None else [pk for pk, _name in authors])
        results = search.result_page(posts, number, RESULTS_PER_PAGE,
                                     related=("thread__board", "author__profile"))
        for post in results.results:
            post.marked_title = search.highlight(post.thread.title, query)
            post.excerpt = search.excerpt(post.html, query)
        context.update(results=results, query=query, page_query=urlencode(
            [(k, v) for k in ("q", "by", "board", "game", "author") for v in get.getlist(k) if v]))
    except (BadQuery, search.SearchRefused) as bad:
        context["error"] = bad.message
        status = 400
    return render(request, "messaging/search.html", context, status=status)


def _search_authors(request: HttpRequest) -> list[tuple[int, str]] | None:
    """The search's authors as (id, display name): those `?author=` names by id (ids of no
    user keep no name), narrowed to those the `?by=` field names when both are given; None
    without an author filter. BadQuery or SearchRefused for what cannot be read."""
    ids = author_ids(request.GET.getlist("author"))
    typed = request.GET.get("by", "").strip()
    named = search.authors_named(typed) if typed else None
    if ids:
        names = dict(get_user_model().objects.filter(pk__in=ids)
                     .values_list("pk", "profile__display_name"))
        by_id = [(pk, names.get(pk) or f"#{pk}") for pk in ids]
        if named is None:
            return by_id
        wanted = {pk for pk, _name in named}
        return [(pk, name) for pk, name in by_id if pk in wanted]
    return named


def _page_number(value: str | None) -> int:
    if not value:
        return 1
    if not _USER_ID.fullmatch(value) or not 1 <= int(value) <= MAX_RESULT_PAGE:
        raise BadQuery(_("Pages of results go from 1 to %(n)d.") % {"n": MAX_RESULT_PAGE})
    return int(value)


# --- a reader's own tools: bookmarks, watching, reports (messaging.keeping) -----------------

BOOKMARKS_PER_PAGE = 30


def _post_for_reader_or_404(user, pk: int) -> Post:
    """The post `user` may read, with its thread, board and author; a 404 otherwise (a post
    of a GM-only thread or a GM board is as absent as one that never existed)."""
    post = get_object_or_404(Post.objects.select_related("thread__board__game",
                                                         "author__profile"), pk=pk)
    if not rules.can_read_thread(user, post.thread):
        raise Http404
    return post


@login_required
@require_http_methods(["GET", "POST"])
def post_bookmark(request: HttpRequest, pk: int) -> HttpResponse:
    """收藏: keep a post (POST "add") or let it go ("remove"); GET shows the post and the
    button that fits."""
    post = _post_for_reader_or_404(request.user, pk)
    if request.method == "POST":
        action = request.POST.get("action", "add")
        try:
            if action == "remove":
                keeping.remove_bookmark(user=request.user, post=post)
                flash.success(request, _("Removed from your bookmarks."))
            else:
                keeping.add_bookmark(user=request.user, post=post)
                flash.success(request, _("Saved to your bookmarks."))
        except PostingRefused as refused:
            if refused.code == "not_found":
                raise Http404 from None
            raise
        back = request.POST.get("next", "")
        return redirect(reverse("messaging-bookmarks") if back == "list"
                        else post_page_url(post))
    return render(request, "messaging/post_bookmark.html", {
        "post": post, "thread": post.thread, "board": post.thread.board,
        "bookmarked": keeping.is_bookmarked(user=request.user, post=post)})


@login_required
def bookmark_list(request: HttpRequest) -> HttpResponse:
    """My bookmarks, newest first (only posts I may still read)."""
    page = _page(Paginator(keeping.bookmarks_of(request.user), BOOKMARKS_PER_PAGE),
                 request.GET.get("page"))
    return render(request, "messaging/bookmarks.html", {
        "page": page, "watches": keeping.watched_threads(request.user)[:50]})


@login_required
@require_http_methods(["GET", "POST"])
def thread_watch(request: HttpRequest, pk: int) -> HttpResponse:
    """订阅 / 静音: watch a thread (a grouped notice of its new posts), the default, or mute
    it (no reply notices from it; the GM's quotes and mentions still come)."""
    thread = _readable_thread_or_404(request.user, pk)
    status = 200
    error = ""
    if request.method == "POST":
        try:
            level = keeping.set_watch(user=request.user, thread=thread,
                                      level=request.POST.get("level", ""))
        except PostingRefused as refused:
            if refused.code == "not_found":
                raise Http404 from None
            error, status = refused.message, REFUSAL_STATUS[refused.code]
        else:
            flash.success(request, {
                "watching": _("You are watching this thread."),
                "muted": _("This thread is muted."),
            }.get(level, _("This thread is back to normal notices.")))
            return redirect(thread)
    return render(request, "messaging/thread_watch.html", {
        "thread": thread, "board": thread.board, "error": error,
        "level": keeping.watch_level(user=request.user, thread=thread)}, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def post_report(request: HttpRequest, pk: int) -> HttpResponse:
    """举报: report a post to the GM with a reason. The answer says only that it was sent."""
    post = _post_for_reader_or_404(request.user, pk)
    reason = ""
    error = ""
    status = 200
    if request.method == "POST":
        reason = request.POST.get("reason", "")[:keeping.MAX_REASON_LENGTH * 2]
        try:
            keeping.report_post(reporter=request.user, post=post, reason=reason)
        except PostingRefused as refused:
            if refused.code == "not_found":
                raise Http404 from None
            error, status = refused.message, REFUSAL_STATUS[refused.code]
        else:
            flash.success(request, _("Your report was sent to the GM. Thank you."))
            return redirect(post_page_url(post))
    response = render(request, "messaging/post_report.html", {
        "post": post, "thread": post.thread, "board": post.thread.board, "reason": reason,
        "error": error, "max_length": keeping.MAX_REASON_LENGTH}, status=status)
    if status == 429:
        response["Retry-After"] = "3600"
    return response
