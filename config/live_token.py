"""Subscription tokens: what an open page may follow on /live/, signed by the page that shows
it and checked by the live server without the database (config/live_view.py).

The page's view has already decided, by the pages' own rules, that its reader may read what
it shows (the one gate for secrets); the page hands its live script a token naming those
objects, so the live server admits a stream from the token alone (a signature, an age, a
cookie's digest and, for a signed-in reader, one Redis read): no database work per connect,
however many pages connect at once.

1. A page's template writes each object a part follows with `{% live "thread" thread.pk %}`
   (accounts/templatetags/live_tags.py): it writes the id, `data-live-thread="42"`, and
   records ("thread", 42) on the request (`follow`).
2. base.html's `{% live_attrs %}`, at the end of the page (every part rendered by then),
   mints the token (`mint`): `django.core.signing.dumps({"c": "game=7&thread=42", "u":
   reader's id or 0, "s": digest of their session key, "a": their access version},
   salt=SALT)`, a TimestampSigner token valid `TOKEN_SECONDS` (20 minutes), written as
   `data-token`, with the same objects as `data-channels` for the script. A page that follows
   nothing, for a reader not signed in, gets no token and opens no stream.
3. `check(token, session_key)` at connect: the signature (SECRET_KEY and its fallbacks,
   SALT), the age, and for a signed-in reader the digest of the session cookie the request
   carries, so a token is worth nothing in another browser or once its reader signed out
   (the session key changes). The live server then compares `Grant.access` with the access
   version Redis holds (config/feed.access_key): a change of the reader's rights (they
   started or stopped watching a game: games.services.kernel.access_changed) sets a new
   one, so no token minted before opens anything any more; the page must load again,
   through its own checks. A key Redis lost makes the next page mint a new one: old
   tokens then fail (their pages load anew), never work again.
A token minted for nobody (a reader not signed in) is bound to no session: it names only what
anyone may read, and a page kept whole for such readers (messaging.blocks, 30 s) keeps it.
What a token does not see: a change of rights that sends no access event (a thread moved to
a board the reader may not read) reaches a page's stream when its token runs out, at most
`TOKEN_SECONDS` after the page was shown; the stream carries versions only, and the parts a
page fetches are the ordinary permission-checked views.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.core import signing
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.html import format_html

from . import feed

SALT = "config.live_token"
TOKEN_SECONDS = 20 * 60
# The kinds a page may follow; ("user", id) comes from the token's reader only.
PAGE_KINDS = ("game", "thread", "board")

Key = tuple[str, int]


class Refused(Exception):
    """A token that opens nothing: `reason` is "forged", "expired" or "foreign"."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Grant:
    """What a valid token lets its page follow, and until when (seconds since the epoch)."""
    channels: frozenset[Key]
    user_id: int | None
    access: int
    expires: float


def channels_text(channels) -> str:
    """"game=7&thread=42": sorted, so the same objects give the same text."""
    return "&".join(f"{kind}={pk}" for kind, pk in sorted(set(channels)))


def parse_channels(text: str) -> frozenset[Key]:
    found = set()
    for part in text.split("&") if text else ():
        kind, _eq, pk = part.partition("=")
        if kind not in PAGE_KINDS or not pk.isascii() or not pk.isdigit():
            raise ValueError(part)
        found.add((kind, int(pk)))
    return frozenset(found)


def session_digest(session_key: str | None) -> str:
    return salted_hmac(SALT + ".session", session_key or "").hexdigest()[:20]


def mint(*, channels, user_id: int | None = None, session_key: str | None = None,
         access: int = 0) -> str:
    """A token for `channels` ((kind, id) the page shows) and, when `user_id` is given, that
    signed-in reader's own events, bound to their session and access version."""
    payload = {"c": channels_text(channels), "u": user_id or 0,
               "s": session_digest(session_key) if user_id else "", "a": access}
    return signing.dumps(payload, salt=SALT)


def check(token: str, *, session_key: str | None) -> Grant:
    """What `token` grants a request carrying the session cookie `session_key`; Refused
    when it is forged, older than TOKEN_SECONDS, or minted for another session."""
    try:
        payload = signing.loads(token, salt=SALT, max_age=TOKEN_SECONDS)
    except signing.SignatureExpired:
        raise Refused("expired") from None
    except signing.BadSignature:
        raise Refused("forged") from None
    try:
        channels = parse_channels(payload["c"])
        user_id, digest, access = payload["u"], payload["s"], payload["a"]
        if type(user_id) is not int or type(access) is not int or not isinstance(digest, str):
            raise TypeError
        minted = signing.b62_decode(token.rsplit(":", 2)[-2])
    except (KeyError, TypeError, ValueError):
        raise Refused("forged") from None  # signed by us, never shaped so: a leaked key
    if user_id and not constant_time_compare(digest, session_digest(session_key)):
        raise Refused("foreign")
    return Grant(channels=channels, user_id=user_id or None, access=access,
                 expires=minted + TOKEN_SECONDS)


def access_version(user_id: int) -> int:
    """The user's access version (config/feed.py), made now if Redis holds none; 0 when
    Redis cannot answer (the token will not open a stream: its page tries again later)."""
    from django.core.cache import cache

    name = feed.access_name(user_id)
    found = cache.get(name)
    if found is None:
        cache.add(name, secrets.randbits(48), feed.ACCESS_SECONDS)
        found = cache.get(name)
    return found if type(found) is int else 0


# --- the pages' side (accounts/templatetags/live_tags.py) -----------------------------------

def follow(request, kind: str, pk) -> str:
    """Record that the page being rendered for `request` follows `kind` `pk`; the id as
    the marker writes it. Without a request (a part rendered apart, to be kept) nothing is
    recorded: the page around it names the same object."""
    if kind not in PAGE_KINDS:
        raise ValueError(f"a page follows a game, a thread or a board, not {kind!r}")
    pk = int(pk)
    if request is not None:
        if not hasattr(request, "live_channels"):
            request.live_channels = set()
        request.live_channels.add((kind, pk))
    return str(pk)


def attrs(request) -> str:
    """` data-token="…" data-channels="…"` for the page's live script: a token for what the
    page follows and its reader; nothing when there is nothing to follow."""
    if request is None:
        return ""
    channels = getattr(request, "live_channels", set())
    user = getattr(request, "user", None)
    signed_in = user is not None and user.is_authenticated
    if not channels and not signed_in:
        return ""
    if signed_in:
        # A page answered before the session middleware ran (a refusal such as the rate
        # limit's) has no session: its token names no session key, so it opens nothing
        # of the reader's own.
        session = getattr(request, "session", None)
        token = mint(channels=channels, user_id=user.pk,
                     session_key=session.session_key if session is not None else None,
                     access=access_version(user.pk))
    else:
        token = mint(channels=channels)
    return format_html(' data-token="{}" data-channels="{}"', token, channels_text(channels))
