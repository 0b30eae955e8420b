"""@mentions by display name, compared the way display names are compared
(`accounts.names.canonical_name`: NFKC, case-folded, no spaces or invisible characters), so
"@ａｌｉｃｅ" and "@Alice" both reach the player named "alice".

Chinese text rarely leaves a space after a name ("@阿丽你怎么看"), so a mention is the longest
run after "@" that is somebody's display name. Reserved names (神的使者, 天神, …) are never
looked up: mentioning them links nothing and notifies no one.

The work is bounded, whatever the text (19 KB of "@阿猫狗…" took seconds per preview when
every "@" was read and every prefix of each compared with every reserved name):
1. Only the first MAX_MENTIONS "@" runs of a post are read (an "@" after an ASCII letter or
   digit, as in an email address, is not a run); later ones stay plain text. Each run is
   at most MENTION_TAIL's length, so reading a post is linear in its length, and the
   lookups are bounded by MAX_MENTIONS x that length.
2. The candidates of all runs are looked up in one query.
3. The reserved names are folded once per process, not once per candidate.
4. The renderer hands each "@" a bounded window of the text (messaging.rendering), and the
   link callback stops after MAX_MENTIONS runs too.
So a post mentions (links and notifies) at most MAX_MENTIONS people.
"""

from __future__ import annotations

import functools
import re

from django.conf import settings
from django.urls import reverse

from accounts.names import MAX_LENGTH, MIN_LENGTH, RESERVED, RESERVED_PARTS, canonical_name

from .rendering import render_post

# What may follow "@": the characters display names are made of (accounts.names._ALLOWED),
# a little longer than the longest name, since spaces inside names fold away.
MENTION_TAIL = re.compile(r"[\w\u00b7\u30fb·\-. \u3000]{1,%d}" % (MAX_LENGTH + 8))  # noqa: UP031
# An "@" after an ASCII letter or digit is part of an address (as in messaging.rendering).
_CANDIDATES = re.compile("(?<![A-Za-z0-9])@(" + MENTION_TAIL.pattern + ")")
# The "@" runs of a post that are read (the first ones); so at most this many people are
# linked and notified per post.
MAX_MENTIONS = 20


@functools.cache
def _reserved_keys() -> tuple[frozenset[str], tuple[str, ...]]:
    """The reserved whole names and parts, folded as display keys (once per process)."""
    whole = frozenset(canonical_name(r) for r in RESERVED)
    parts = tuple({canonical_name(r) for r in RESERVED_PARTS + [settings.MESSENGER_NAME]})
    return whole, parts


def is_reserved(key: str) -> bool:
    whole, parts = _reserved_keys()
    return key in whole or any(p in key for p in parts)


def candidate_keys(text: str) -> set[str]:
    """Every canonical prefix that could be a display name, of each of the first
    MAX_MENTIONS "@…" runs in `text`."""
    keys = set()
    for count, match in enumerate(_CANDIDATES.finditer(text)):
        if count >= MAX_MENTIONS:
            break
        tail = match.group(1)
        for end in range(1, len(tail) + 1):
            key = canonical_name(tail[:end])
            if MIN_LENGTH <= len(key) <= MAX_LENGTH and not is_reserved(key):
                keys.add(key)
    return keys


def known_names(text: str) -> dict[str, object]:
    """canonical name -> user, for the candidates of `text` that are real accounts (one
    query, none if `text` has no "@"). The 神的使者 account is never one of them."""
    from accounts.models import Profile

    keys = candidate_keys(text)
    if not keys:
        return {}
    profiles = (Profile.objects.filter(display_key__in=keys)
                .exclude(user__username=settings.MESSENGER_USERNAME)
                .select_related("user"))
    return {p.display_key: p.user for p in profiles}


def render_with_mentions(text: str, *, official: bool = False) -> tuple[str, list]:
    """(sanitized HTML, mentioned users in order) for a post's Markdown `text`.

    Mentions inside code, and names nobody has, stay plain text; each linked name points at
    the user's public profile.
    """
    users = known_names(text)
    runs_read = [0]

    def match(tail: str):
        runs_read[0] += 1
        if runs_read[0] > MAX_MENTIONS:  # the runs after the first ones stay plain text
            return None
        run = MENTION_TAIL.match(tail)
        if not run:
            return None
        run = run.group(0)
        for end in range(len(run), 0, -1):
            user = users.get(canonical_name(run[:end]))
            if user is not None:
                # "@阿丽 你好": the space after the name is not part of the link.
                end = len(run[:end].rstrip())
                return end, reverse("profile-public", args=[user.pk]), user
        return None

    html, found = render_post(text, mention=match if users else None, official=official)
    mentioned, seen = [], set()
    for user in found:
        if user.pk not in seen and len(mentioned) < MAX_MENTIONS:
            seen.add(user.pk)
            mentioned.append(user)
    return html, mentioned
