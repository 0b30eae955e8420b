"""Drafts of the reply and new-thread boxes, and quotes written into them as text.

A draft is what a user is writing in one box: a thread's reply box or a board's new-thread
box. The page's script keeps it in the browser (localStorage) as the player types and sends
it here a few seconds later (`views.draft_save`), so a reload, a refused submit, a quote or
another device finds it; the page renders the user's server copy into the box. A successful
post deletes it. How the two copies are reconciled is written in docs/community.md
("Drafts").

A quote is Markdown in the box (so several quotes, 多重引用, are just several blocks):

    > [阿丽 在 #3 写道：](/p/123/)
    > 她的第一行
    > 她的第二行

The header's link names the quoted post; `quoted_post_ids` reads it back when the reply is
posted, so the quoted authors get their notices (messaging.notifications).

Writers here are called by the views with a signed-in user who may read the box's thread or
board; nothing here is shown to anyone but the draft's owner.
"""

from __future__ import annotations

import re

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from config.ratelimit import RateLimited, consume

from .models import MAX_BODY_LENGTH, Board, Draft, Post, Thread

# A draft may hold as much as the box accepts (the form's slack above the post limit), so a
# post refused as too long is kept whole while its author shortens it.
MAX_DRAFT_LENGTH = MAX_BODY_LENGTH + 1_000
MAX_TITLE = Draft._meta.get_field("title").max_length
MAX_DRAFTS_PER_USER = 100  # the oldest beyond this are deleted (boxes long abandoned)
SAVES_PER_MINUTE = 30  # the script saves at most every few seconds per box
MAX_QUOTE_LENGTH = 2_000  # of the quoted post's own text; a longer one is cut with "…"
MAX_QUOTED_POSTS = 10  # quote notices one post can send
_QUOTE_HEADER = re.compile(r"^>[ \t]?\[[^\]\n]{0,300}\]\(/p/([0-9]{1,18})/\)", re.MULTILINE)


class DraftRefused(Exception):
    """A draft that is not kept; `message` is a sentence for the writer, `status` the HTTP
    status that fits (400 bad input, 413 too long, 429 too many saves)."""

    def __init__(self, message, status: int = 400, retry_after: int | None = None):
        super().__init__(str(message))
        self.message = message
        self.status = status
        self.retry_after = retry_after


def _box(*, thread: Thread | None, board: Board | None) -> dict:
    if (thread is None) == (board is None):
        raise ValueError("a draft belongs to a thread or a board")
    return {"thread": thread} if thread is not None else {"board": board}


def draft_for(*, user, thread: Thread | None = None, board: Board | None = None) -> Draft | None:
    """`user`'s draft of the box, or None (one query on the unique (user, box) index)."""
    if user is None or not user.is_authenticated:
        return None
    return Draft.objects.filter(user=user, **_box(thread=thread, board=board)).first()


def save(
    *,
    user,
    thread: Thread | None = None,
    board: Board | None = None,
    body: str,
    title: str = "",
    kind: str = "",
    count: bool = True,
) -> Draft | None:
    """Keep `user`'s draft of the box (a thread's reply box or a board's new-thread box);
    an empty one (no text, no title) deletes it and returns None.

    Steps:
    1. Refuse a text or title longer than the box accepts (DraftRefused, 413): the caller's
       own copy (the browser's, the form's) stays as it is.
    2. With `count`, count the save against the user's SAVES_PER_MINUTE (DraftRefused, 429).
    3. Write it (one row per user and box: an update, or an insert; two saves racing for
       the first insert leave one row, the later text).
    4. A new row beyond MAX_DRAFTS_PER_USER deletes the user's oldest drafts.
    """
    body = (body or "").replace("\r\n", "\n").replace("\r", "\n")
    title = title or ""
    if len(body) > MAX_DRAFT_LENGTH or len(title) > MAX_TITLE:
        raise DraftRefused(
            _(
                "A draft is kept up to %(limit)d characters; this one has %(length)d. It stays "
                "in this browser only."
            )
            % {"limit": MAX_DRAFT_LENGTH, "length": len(body)},
            status=413,
        )
    box = _box(thread=thread, board=board)
    if not body.strip() and not title.strip():
        Draft.objects.filter(user=user, **box).delete()
        return None
    if count:
        try:
            consume(scope="messaging.drafts", who=f"user:{user.pk}", rate=f"{SAVES_PER_MINUTE}/m")
        except RateLimited as refused:
            raise DraftRefused(
                _(
                    "Drafts are saved at most %(n)d times a minute; this one "
                    "stays in this browser for now."
                )
                % {"n": SAVES_PER_MINUTE},
                status=429,
                retry_after=refused.retry_after,
            ) from None
    values = {"body": body, "title": title[:MAX_TITLE], "kind": (kind or "")[:20]}
    for attempt in range(2):
        try:
            with transaction.atomic():
                draft, created = Draft.objects.update_or_create(user=user, **box, defaults=values)
            break
        except IntegrityError:  # another save inserted the row first: update it now
            if attempt:
                raise
    if created:
        old = list(
            Draft.objects.filter(user=user)
            .order_by("-updated_at", "-pk")
            .values_list("pk", flat=True)[MAX_DRAFTS_PER_USER:]
        )
        if old:
            Draft.objects.filter(pk__in=old).delete()
    return draft


def discard(*, user, thread: Thread | None = None, board: Board | None = None) -> None:
    """Delete `user`'s draft of the box (its post was made)."""
    Draft.objects.filter(user=user, **_box(thread=thread, board=board)).delete()


# --- quotes ----------------------------------------------------------------------------------


def _escape(text: str) -> str:
    """`text` safe inside a Markdown link's text (brackets and emphasis marks escaped)."""
    return re.sub(r"([\\\[\]*_`<>])", r"\\\1", text)


def quote_header(post: Post, name: str) -> str:
    """The first line of a quote of `post` by `name`, in the reader's language, linking to
    the post (the link is what `quoted_post_ids` reads)."""
    words = _("%(name)s wrote in #%(n)s:") % {"name": name, "n": post.number}
    return f"> [{_escape(words)}](/p/{post.pk}/)"


def quote_lines(text: str) -> str:
    """`text` as the quoted lines of a quote: each line after "> ", a blank line as ">"."""
    return "\n".join(f"> {line}".rstrip() for line in text.split("\n"))


def quote_markdown(post: Post, name: str) -> str:
    """The quote of `post` for a reply box: its header and the post's own text, without the
    quotes it holds itself (a quote of a quote repeats nothing) and cut at MAX_QUOTE_LENGTH
    characters, followed by a blank line to write under."""
    own = [line for line in (post.body or "").split("\n") if not line.lstrip().startswith(">")]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(own)).strip()
    if len(text) > MAX_QUOTE_LENGTH:
        text = text[:MAX_QUOTE_LENGTH].rstrip() + "…"
    return f"{quote_header(post, name)}\n{quote_lines(text)}\n\n"


def with_quote(body: str, quote: str) -> str:
    """The box's text with `quote` added at its end, a blank line between (the page without
    script: its quote button keeps what was written and adds the quote after it)."""
    body = (body or "").rstrip()
    return f"{body}\n\n{quote}" if body else quote


def quoted_post_ids(body: str) -> list[int]:
    """The ids of the posts `body` quotes (its quote headers, first to last, each once, at
    most MAX_QUOTED_POSTS)."""
    ids: list[int] = []
    for match in _QUOTE_HEADER.finditer(body or ""):
        pk = int(match.group(1))
        if pk not in ids:
            ids.append(pk)
            if len(ids) == MAX_QUOTED_POSTS:
                break
    return ids
