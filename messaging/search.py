"""Search of thread titles and post text, for Chinese as well as for spaced languages.

Chinese has no spaces between words, and a player searches for one- and two-character words
(刀, 查杀, 金水) as often as for longer ones, so neither word splitting nor trigrams fit
(pg_trgm indexes no query shorter than three characters). Each post therefore keeps, written
with it:

- `search_text`: its text folded like display names are (NFKC, case-folded), with the
  thread's title in front for a thread's first post;
- `search_terms`: every character and every pair of neighbouring characters of each run of
  letters, digits or Chinese characters in `search_text`, space-separated, each once.

A query is folded the same way and cut into the same terms: a run of one character is that
character, a longer run its pairs. A GIN index over `string_to_array(search_terms, ' ')`
finds the posts holding every term (`@>`), and a `LIKE` on `search_text` (with `%`, `_`
and `\\` escaped by Django) keeps only those holding the query itself in one piece.
Figures and the choice are in docs/architecture.md ("Search").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from django.db.models import BooleanField, QuerySet
from django.db.models.expressions import RawSQL
from django.utils.translation import gettext as _

from . import rules
from .models import Post

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


def query_terms(folded: str) -> list[str]:
    """The terms a post must hold to match the (folded) query: a one-character run as
    itself, a longer run as its pairs; at most MAX_INDEX_TERMS of them, spread evenly."""
    terms: list[str] = []
    for run in _RUN.findall(folded):
        pieces = [run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)]
        for piece in pieces:
            if piece not in terms:
                terms.append(piece)
    if len(terms) > MAX_INDEX_TERMS:
        step = len(terms) / MAX_INDEX_TERMS
        terms = [terms[int(i * step)] for i in range(MAX_INDEX_TERMS)]
    return terms


def fields_for(*, body: str, title: str = "") -> dict[str, str]:
    """`search_text` and `search_terms` for a post (with its thread's title if it is the
    thread's first post). Called by the services whenever a post is written or edited."""
    text = fold(f"{title}\n{body}" if title else body)
    return {"search_text": text, "search_terms": " ".join(sorted(document_terms(text)))}


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


def search_posts(*, viewer, query: str, board_ids: list[int] | None = None,
                 author_id: int | None = None) -> QuerySet:
    """Posts matching the cleaned `query` that `viewer` may read (the thread pages' rules:
    never a GM board or a GM-only thread for a player), newest first.

    Precondition: `query` comes from `clean_query`.
    """
    posts = rules.readable_posts(viewer, Post.objects.all())
    if board_ids is not None:
        posts = posts.filter(thread__board_id__in=board_ids)
    if author_id is not None:
        posts = posts.filter(author_id=author_id)
    posts = posts.alias(has_terms=RawSQL(
        "string_to_array(messaging_post.search_terms, ' ') @> %s::text[]",
        (query_terms(query),), output_field=BooleanField())).filter(has_terms=True)
    # Newest first by id (ids grow with time): the primary key serves the order, so for a
    # common word PostgreSQL walks it backwards and stops after one page instead of sorting
    # every hit.
    return posts.filter(search_text__contains=query).order_by("-id")


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
