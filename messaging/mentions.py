"""@mentions by display name, compared the way display names are compared
(`accounts.names.canonical_name`: NFKC, case-folded, no spaces or invisible characters), so
"@ａｌｉｃｅ" and "@Alice" both reach the player named "alice".

Chinese text rarely leaves a space after a name ("@阿丽你怎么看"), so a mention is the longest
run after "@" that is somebody's display name. Reserved names (神的使者, 天神, …) are never
looked up: mentioning them links nothing and notifies no one.
"""

from __future__ import annotations

import re

from django.conf import settings
from django.urls import reverse

from accounts.names import MAX_LENGTH, MIN_LENGTH, RESERVED, RESERVED_PARTS, canonical_name

from .rendering import render_post

# What may follow "@": the characters display names are made of (accounts.names._ALLOWED),
# a little longer than the longest name, since spaces inside names fold away.
MENTION_TAIL = re.compile(r"[\w\u00b7\u30fb·\-. \u3000]{1,%d}" % (MAX_LENGTH + 8))  # noqa: UP031
_CANDIDATES = re.compile("@(" + MENTION_TAIL.pattern + ")")
# A post naming more people than this notifies the first ones only.
MAX_MENTIONS = 20


def is_reserved(key: str) -> bool:
    parts = {canonical_name(r) for r in RESERVED_PARTS + [settings.MESSENGER_NAME]}
    return key in {canonical_name(r) for r in RESERVED} or any(p in key for p in parts)


def candidate_keys(text: str) -> set[str]:
    """Every canonical prefix of every "@…" run in `text` that could be a display name."""
    keys = set()
    for match in _CANDIDATES.finditer(text):
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

    def match(tail: str):
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
