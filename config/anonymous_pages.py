"""Whole pages kept for anonymous readers (issue 17 item 1).

A page read by someone who is not signed in is the same for every such reader who asks for
the same address in the same language and timezone, so the busiest public pages (a thread,
a board, a game's home) are rendered once and kept in each process's memory; the view asks

    return anonymous_page(request, key=("thread", thread.pk, thread.version),
                          render=lambda holes: render(request, ..., context))

What the key holds, and why a kept page is never stale:
1. the caller's `key`: the id and the `version` of everything the page shows (the callers
   read them in the one cheap query they make anyway, before any other work). A version is
   bumped by the database whenever what it covers changes (messaging migrations 0007, 0008
   for threads), so a new post, an edit, a withdrawal or a rename makes a new key at once;
2. the address with its query string, the active language and timezone;
3. `config.build.BUILD`, a digest of the project's code, templates and catalogues, so
   nothing kept survives a change of markup or wording (the memory is the process's own: a
   deploy, which restarts the workers, starts afresh anyway).

What differs from one request to the next is left out of the kept page and filled in on
every answer:
- the CSRF token of each form (the language switch): the rendered page's tokens are replaced
  by a slot, and each answer gets a fresh token (and the cookie when the reader has none);
- `holes`: parts the caller renders on every request because their versions are not in the
  key (the vote box above a game's vote thread, which follows the game, not the thread). The
  render callable receives {name: marker} to place in its context; each marker is replaced
  by what `holes[name]()` returns, on every answer, kept or not.

Only anonymous GET requests with no flash message waiting are answered from here; a signed-in
reader, a form submission or a page with a message is rendered as before. Only 200 answers
that set no cookie of their own are kept.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable

from django.contrib.messages.storage.cookie import CookieStorage
from django.contrib.messages.storage.session import SessionStorage
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.utils import timezone, translation

from .build import BUILD
from .memory import Recent

SIZE = 300  # pages kept per process (about 40 kB each)
# Markers put in a kept page where each answer writes its own part; the process's random
# nonce makes them impossible to write in a post or a title.
_NONCE = secrets.token_hex(8)
SLOT = f"\ue001csrf-{_NONCE}\ue001"
_TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([A-Za-z0-9]+)"')


def marker(name: str) -> str:
    """The marker of the hole `name` in a page (see `anonymous_page`)."""
    return f"\ue001{name}-{_NONCE}\ue001"




PAGES = Recent(SIZE)  # the pages this process kept


def row_key(obj, leave_out: tuple[str, ...] = ()) -> tuple:
    """What a model row a page shows is made of, for a key: its model and the values of its
    columns, leaving out JSON columns (a game's state: the parts of a page made from those
    must be holes, or have their versions in the key some other way) and the fields named
    in `leave_out` (ones the page does not show). None: ()."""
    if obj is None:
        return ()
    meta = obj._meta
    return (meta.label, *(getattr(obj, f.attname) for f in meta.concrete_fields
                          if f.get_internal_type() != "JSONField" and f.name not in leave_out
                          and f.attname not in obj.get_deferred_fields()))


def cacheable(request: HttpRequest) -> bool:
    """Whether this request may be answered with a kept page: an anonymous GET with no flash
    message waiting (in its cookie or its session)."""
    if request.method != "GET" or request.user.is_authenticated:
        return False
    if CookieStorage.cookie_name in request.COOKIES:
        return False
    session = getattr(request, "session", None)
    return not (session is not None and session.session_key
                and SessionStorage.session_key in session)


def anonymous_page(request: HttpRequest, *, key: Callable[[], tuple],
                   render: Callable[[dict[str, str]], HttpResponse],
                   holes: dict[str, Callable[[], str]] | None = None) -> HttpResponse:
    """The page `render` makes, kept for anonymous readers under `key()` (see the module).

    `key` is called only for a request that may be answered from here. `render` receives
    {name: what to put in the page} for the `holes`: for a request that may be answered
    from here, each hole's marker; for any other (a signed-in reader), its content, so that
    page is rendered once and never searched. A hole that was empty when the page was kept
    stays empty on a hit without being asked again, so a hole's callable must decide
    whether it shows anything from what the key covers (the vote box: whether the thread is
    a game's vote thread). A response rendered with markers may also carry `kept_holes`,
    {name: callable}: parts made from what the render read (the badges of a page's staff
    authors), kept with the page and called on every answer."""
    holes = holes or {}
    if not cacheable(request):
        return render({name: fill() for name, fill in holes.items()})
    markers = {name: marker(name) for name in holes}
    full_key = (BUILD, request.get_full_path(), translation.get_language(),
                timezone.get_current_timezone_name(), *key())
    entry = PAGES.get(full_key)
    now: dict[str, str] = {}
    if entry is None:
        response = render(markers)
        if response.status_code != 200 or response.cookies or response.streaming:
            return _filled(response, markers, holes)
        now = {name: holes[name]() for name in markers}
        entry = _keep(response, now, getattr(response, "kept_holes", {}))
        PAGES.put(full_key, entry)
    pieces, charset, headers, kept = entry
    token = None
    out = []
    for piece in pieces:
        if isinstance(piece, bytes):
            out.append(piece)
        elif piece == (_CSRF, ""):
            token = token or get_token(request).encode(charset)
            out.append(token)
        elif piece[0] == _HOLE:
            name = piece[1]
            out.append((now[name] if name in now else holes[name]()).encode(charset))
        else:
            out.append(kept[piece[1]]().encode(charset))
    response = HttpResponse(b"".join(out))
    for header, value in headers:
        response[header] = value
    return response


_CSRF, _HOLE, _KEPT = "csrf", "hole", "kept"


def _keep(response: HttpResponse, now: dict[str, str], kept: dict) -> tuple:
    """What is kept of a rendered page: its markup cut at every part written per answer
    (tuple of bytes and (kind, name) places: the CSRF tokens, the holes that showed
    something, the kept holes; a hole empty now is empty for good), its charset, the view's
    headers, the kept holes' callables."""
    charset = response.charset
    body = response.content.decode(charset)
    for token in set(_TOKEN.findall(body)):
        body = body.replace(token, SLOT)
    for name, part in now.items():
        if not part:
            body = body.replace(marker(name), "")
    places = {SLOT: (_CSRF, "")}
    places.update({marker(name): (_HOLE, name) for name, part in now.items() if part})
    places.update({marker(name): (_KEPT, name) for name in kept})
    pieces: list = []
    start = 0
    for found in re.finditer("|".join(re.escape(m) for m in places), body):
        pieces += [body[start:found.start()].encode(charset), places[found.group()]]
        start = found.end()
    pieces.append(body[start:].encode(charset))
    headers = [(k, v) for k, v in response.items() if k.lower() != "content-length"]
    return tuple(pieces), charset, headers, kept


def _filled(response: HttpResponse, markers: dict[str, str],
            holes: dict[str, Callable[[], str]]) -> HttpResponse:
    """A rendered answer not kept: its holes (and kept holes) filled in place."""
    kept = getattr(response, "kept_holes", {})
    if not (markers or kept) or response.streaming:
        return response
    body = response.content.decode(response.charset)
    for name, mark in markers.items():
        body = body.replace(mark, holes[name]())
    for name, fill in kept.items():
        body = body.replace(marker(name), fill())
    response.content = body.encode(response.charset)
    return response
