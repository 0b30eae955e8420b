"""Search of thread titles and post text, for Chinese as well as for spaced languages.

Chinese has no spaces between words, and a player searches for one- and two-character words
(刀, 查杀, 金水) as often as for longer ones, so neither word splitting nor trigrams fit
(pg_trgm indexes no query shorter than three characters). Each post therefore keeps, written
with it:

- `search_text`: its text folded like display names are (NFKC, case-folded), with the
  thread's title in front for a thread's first post;
- `search_terms`: every character and every pair of neighbouring characters of each run of
  letters, digits or Chinese characters in `search_text`, space-separated, each once.

They are kept in a row of their own (`PostSearch`: `text` and `terms`), written once the
post's transaction has committed (`index_after_commit`), so no writer maintains the index
while it holds a thread's lock; search finds a post a moment after it is stored.

A query is folded the same way and cut into the same terms: a run of one character is that
character, a longer run its pairs. A GIN index over `string_to_array(terms, ' ')` finds the
posts holding every term (`@>`), and a `LIKE` on `text` (with `%`, `_` and `\\` escaped by
Django) keeps only those holding the query itself in one piece.
A query of several words separated by spaces finds the posts holding every word (AND; a
phrase in double quotes is one word, spaces included): the index is asked for the terms of
all the words at once, then one `LIKE` per word. A search may also name its authors
(`authors_named`: by display name, as the reader types it) and may then leave the words out.

Each result shows an excerpt of the post's text around its first hit, every hit marked
(`excerpt`, `highlight`): the text is cut at the hits, each piece escaped, and only then are
the pieces wrapped in `<mark>`, so nothing of the query or the post becomes markup.
Figures and the choice are in docs/architecture.md ("Search").
"""

from __future__ import annotations

import html as html_lib
import re
import unicodedata
from dataclasses import dataclass

from django.contrib.postgres.fields import ArrayField
from django.db import transaction
from django.db.models import F, Func, QuerySet, TextField
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from . import rules
from .models import Post, PostSearch

MAX_QUERY_LENGTH = 100
# A long query is checked against the index by this many of its pairs (spread over it);
# the LIKE step still checks all of it.
MAX_INDEX_TERMS = 16
# Letters, digits and Chinese characters: \w without the underscore.
_RUN = re.compile(r"[^\W_]+")


class SearchRefused(Exception):
    """A query that cannot be searched; `message` says why, to show the user."""

    def __init__(self, message):
        super().__init__(str(message))
        self.message = message


def fold(text: str) -> str:
    """The form text and queries are compared in: NFKC, case-folded."""
    return unicodedata.normalize("NFKC", text or "").casefold()


def document_terms(folded: str) -> set[str]:
    """The index terms of a (folded) text: each character and each neighbouring pair of
    every run of letters, digits or Chinese characters."""
    terms = set()
    for run in _RUN.findall(folded):
        terms.update(run)
        terms.update(run[i:i + 2] for i in range(len(run) - 1))
    return terms


def _spread(items: list[str], count: int) -> list[str]:
    """`count` of `items`, spread evenly over them (all of them if there are no more)."""
    if len(items) <= count:
        return items
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


def _word_terms(word: str) -> list[str]:
    """A word's index terms: a one-character run as itself, a longer run as its pairs."""
    terms: list[str] = []
    for run in _RUN.findall(word):
        pieces = [run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)]
        for piece in pieces:
            if piece not in terms:
                terms.append(piece)
    return terms


def query_terms(folded: str) -> list[str]:
    """The terms a post must hold to match the (folded) query: the terms of each of its
    words (`query_words`); at most MAX_INDEX_TERMS of them, each word keeping its share,
    spread evenly over the word, so a rare word further on is still asked of the index."""
    per_word = [_word_terms(word) for word in query_words(folded)]
    share = max(1, MAX_INDEX_TERMS // max(1, len(per_word)))
    terms: list[str] = []
    for word_terms in per_word:
        for term in _spread(word_terms, share):
            if term not in terms:
                terms.append(term)
    return terms[:MAX_INDEX_TERMS]


# A phrase in straight or curly double quotes, else a run of non-spaces.
_WORD = re.compile(r'"([^"]*)"?|“([^”]*)”?|(\S+)')


def query_words(folded: str) -> list[str]:
    """The words of a (folded) query, each of which a post must hold: split at spaces, a
    phrase in double quotes kept whole, punctuation alone left out; each once, in the
    order typed."""
    words: list[str] = []
    for match in _WORD.finditer(folded):
        word = next((g for g in match.groups() if g is not None), "").strip()
        if word and word not in words:
            words.append(word)
    # Punctuation standing alone between words ("狼毒 / 金水") separates them; it is
    # searched only when it is all there is (clean_query refuses that).
    return [w for w in words if _RUN.search(w)] or words


def fields_for(*, body: str, title: str = "") -> dict[str, str]:
    """The folded text (`search_text`) and its terms (`search_terms`) of a post, with its
    thread's title if it is the thread's first post."""
    text = fold(f"{title}\n{body}" if title else body)
    return {"search_text": text, "search_terms": " ".join(sorted(document_terms(text)))}


def _row(post: Post) -> PostSearch:
    """The search row of `post` (its thread loaded) from its text as read."""
    fields = fields_for(body=post.body, title=post.thread.title if post.number == 1 else "")
    return PostSearch(post_id=post.pk, text=fields["search_text"], terms=fields["search_terms"])


def index_post(post_id: int) -> None:
    """Write the search row of post `post_id` from its text as stored now (nothing if it is
    gone).

    The post's row is locked while its text is read and the row written, so when two writes
    of one post (a reply and the GM's edit a moment later) index it at once, the one that
    writes last read the last text. Only the post's row, never its thread's, and with a lock
    that a reply quoting the post does not wait for (FOR NO KEY UPDATE).
    Precondition: called outside the writer's transaction (`index_after_commit`).
    """
    with transaction.atomic():
        post = (Post.objects.select_for_update(no_key=True, of=("self",))
                .select_related("thread")
                .only("body", "number", "thread__title").filter(pk=post_id).first())
        if post is not None:
            PostSearch.objects.bulk_create([_row(post)], update_conflicts=True,
                                           unique_fields=["post"],
                                           update_fields=["text", "terms"])


def index_after_commit(post: Post) -> None:
    """Index `post` once the writer's transaction commits (and with it the thread's or the
    board's lock it holds): the index's upkeep, and now and then the flush of its pending
    list into the index (a few hundred milliseconds every few hundred posts), is paid by
    this writer alone, never by the replies queued behind the lock. Called by the services
    whenever a post is written or edited.

    If the write fails (the database went away between the commit and it), the post is
    stored and shown but no search finds it: the error is logged and `manage.py index_posts`
    writes the rows that are missing (docs/operations.md, "Search").
    """
    transaction.on_commit(lambda pk=post.pk: index_post(pk), robust=True)


def index_missing(*, batch: int = 1000) -> int:
    """Write the search rows of the posts that have none (a write lost between a commit and
    its index write); returns how many. A row written meanwhile by a writer is kept."""
    written = 0
    while True:
        posts = list(Post.objects.filter(search__isnull=True).select_related("thread")
                     .only("body", "number", "thread__title").order_by("pk")[:batch])
        if not posts:
            return written
        PostSearch.objects.bulk_create([_row(post) for post in posts], ignore_conflicts=True)
        written += len(posts)


def clean_query(raw: str | None) -> str:
    """The folded query with whitespace collapsed and control characters dropped (PostgreSQL
    text cannot hold a NUL), or SearchRefused with a reason."""
    raw = "".join(ch for ch in (raw or "") if unicodedata.category(ch) != "Cc")
    query = " ".join(fold(raw).split())
    if not query:
        raise SearchRefused(_("Type something to search for."))
    if len(query) > MAX_QUERY_LENGTH:
        raise SearchRefused(
            _("Search for at most %(limit)d characters; this search has %(length)d.")
            % {"limit": MAX_QUERY_LENGTH, "length": len(query)})
    if not _RUN.search(query):
        raise SearchRefused(_("Search for letters, digits or Chinese characters: "
                              "punctuation alone cannot be searched."))
    return query


# The indexed expression (messaging 0013): a post's terms as an array.
# The separator is written into the SQL, not passed as a parameter, so the expression is the
# index's own whatever the driver's binding.
TERMS = Func(F("search__terms"), template="string_to_array(%(expressions)s, ' ')",
             output_field=ArrayField(TextField()))


def search_posts(*, viewer, query: str, board_ids: list[int] | None = None,
                 author_id: int | None = None,
                 author_ids: list[int] | None = None) -> QuerySet:
    """Posts matching the cleaned `query` (every one of its words) that `viewer` may read
    (the thread pages' rules: never a GM board or a GM-only thread for a player), newest
    first; by `author_ids` (or one `author_id`) when given. An empty `query` with authors
    lists those authors' posts.

    Precondition: `query` comes from `clean_query`, or is "" with authors given.
    """
    posts = rules.readable_posts(viewer, Post.objects.all())
    if board_ids is not None:
        posts = posts.filter(thread__board_id__in=board_ids)
    if author_id is not None:
        author_ids = [author_id, *(author_ids or [])]
    if author_ids is not None:
        posts = posts.filter(author_id__in=author_ids)
    if query:
        posts = posts.alias(search_terms=TERMS).filter(search_terms__contains=query_terms(query))
        for word in query_words(query):
            posts = posts.filter(search__text__contains=word)
    # Newest first by id (ids grow with time): the primary key serves the order, so for a
    # common word PostgreSQL walks it backwards and stops after one page instead of sorting
    # every hit.
    return posts.order_by("-id")


# --- authors by name -------------------------------------------------------------------------

MAX_AUTHOR_MATCHES = 10


def authors_named(raw: str) -> list[tuple[int, str]]:
    """The users a reader means by `raw` in the search's author field, as (id, display
    name), or SearchRefused with a reason: the one whose name is `raw` (compared as names
    are kept unique: width, case, spaces, then look-alikes and traditional characters);
    else everyone whose name holds it, when at most MAX_AUTHOR_MATCHES do."""
    from accounts.models import Profile
    from accounts.names import canonical_name, name_skeleton

    typed = " ".join("".join(ch for ch in raw if unicodedata.category(ch) != "Cc").split())
    key = canonical_name(typed)
    if not key:
        raise SearchRefused(_("Write a player's name in the author field."))
    profiles = Profile.objects.order_by("display_key").values_list("user_id", "display_name")
    exact = list(profiles.filter(display_key=key)[:1]) or \
        list(profiles.filter(name_skeleton=name_skeleton(typed))[:1])
    if exact:
        return exact
    holding = list(profiles.filter(display_key__contains=key)[:MAX_AUTHOR_MATCHES + 1])
    if not holding:
        raise SearchRefused(_("No player's name holds “%(name)s”.") % {"name": typed[:30]})
    if len(holding) > MAX_AUTHOR_MATCHES:
        raise SearchRefused(
            _("More than %(n)d players' names hold “%(name)s”: write more of the name.")
            % {"n": MAX_AUTHOR_MATCHES, "name": typed[:30]})
    return holding


# --- excerpts and highlighting -----------------------------------------------------------------

EXCERPT_LENGTH = 100
# Characters shown before the first hit, so it is read in its sentence.
EXCERPT_LEAD = 20
_BLOCK_TAG = re.compile(
    r"</?(?:p|div|br|hr|li|ul|ol|blockquote|pre|h[1-6]|table|thead|tbody|tr|td|th)\b[^>]*>",
    re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")


def plain_text(html: str) -> str:
    """The text a reader sees of a post's rendered HTML (written by the services' safe
    Markdown renderer), blocks apart, whitespace collapsed. Its result is text, never
    markup: whatever it leaves is escaped before it is shown."""
    text = _TAG.sub("", _BLOCK_TAG.sub(" ", html or ""))
    return " ".join(html_lib.unescape(text).split())


def _folded_map(text: str) -> tuple[str, list[int]]:
    """`text` folded (`fold`) and, for each folded character, the index of the character of
    `text` it comes from (folding may turn one character into two: "ß", "㎏")."""
    folded = fold(text)
    if len(folded) == len(text):
        return folded, list(range(len(text)))
    pieces, where = [], []
    for i, ch in enumerate(text):
        piece = fold(ch)
        pieces.append(piece)
        where.extend([i] * len(piece))
    return "".join(pieces), where


def _hits(text: str, words: list[str]) -> list[tuple[int, int]]:
    """Where the (folded) `words` occur in `text`, as sorted, merged [start, end) spans of
    `text`."""
    folded, where = _folded_map(text)
    spans = []
    for word in words:
        at = folded.find(word)
        while at != -1 and word:
            spans.append((where[at], where[at + len(word) - 1] + 1))
            at = folded.find(word, at + len(word))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _marked(text: str, spans: list[tuple[int, int]], offset: int = 0) -> str:
    """`text` escaped, with the `spans` (of the text `offset` characters before it) in
    <mark>: cut first, escaped piece by piece, then wrapped."""
    out, at = [], 0
    for start, end in spans:
        start, end = max(start - offset, at), min(end - offset, len(text))
        if start >= end:
            continue
        out.append(escape(text[at:start]))
        out.append(f"<mark>{escape(text[start:end])}</mark>")
        at = end
    out.append(escape(text[at:]))
    return "".join(out)


def highlight(text: str, query: str) -> SafeString:
    """All of `text` (a title), escaped, every hit of the query's words in <mark>."""
    words = query_words(query) if query else []
    return mark_safe(_marked(text, _hits(text, words) if words else []))  # noqa: S308 - every piece escaped


def excerpt(html: str, query: str, length: int = EXCERPT_LENGTH) -> SafeString:
    """About `length` characters of a post's text (its rendered `html`) from a little before
    its first hit of the query's words, escaped, every hit in it in <mark>, with "…" where
    text was cut. Without a hit (one only in the title, or no query) the post's start."""
    text = plain_text(html)
    words = query_words(query) if query else []
    spans = _hits(text, words) if words else []
    start = max(0, spans[0][0] - EXCERPT_LEAD) if spans else 0
    start = max(0, min(start, len(text) - length))
    end = min(len(text), start + length)
    body = _marked(text[start:end], [s for s in spans if s[0] < end and s[1] > start], start)
    return mark_safe(("…" if start else "") + body  # noqa: S308 - every piece escaped
                     + ("…" if end < len(text) else ""))


@dataclass
class ResultPage:
    """One page of results without counting them all (a count would cost a second full
    search): `has_next` comes from fetching one row more than shown."""

    number: int
    results: list
    has_next: bool

    @property
    def has_previous(self) -> bool:
        return self.number > 1


def result_page(posts: QuerySet, number: int, per_page: int,
                related: tuple[str, ...] = ()) -> ResultPage:
    """Page `number` of `posts`, in two queries: the ids of the page first (only the tables
    the match and the visibility need), then those posts with `related` joined in. In one
    query PostgreSQL would join authors and profiles to every hit before keeping a page
    (it cannot estimate how many posts hold several terms at once)."""
    start = (number - 1) * per_page
    ids = list(posts.values_list("pk", flat=True)[start:start + per_page + 1])
    shown = ids[:per_page]
    rows = Post.objects.filter(pk__in=shown).select_related(*related).order_by("-id")
    return ResultPage(number=number, results=list(rows) if shown else [],
                      has_next=len(ids) > per_page)
