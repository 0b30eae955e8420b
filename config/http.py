"""What kind of request this is, for code that must not act on an embedded request.

A page that records "read" (a conversation's unread count, the GM's "waiting" list) must do so
only when a person opened it, never when it was fetched by an `<img>`, a prefetch or a frame
that somebody's post or another site planted. `is_page_navigation` is the
one test for that; views that mark anything read call it (POSTs need no test: CSRF already
proves they came from our own forms).

The choice for browsers without Fetch Metadata (Sec-Fetch-* arrived in Chrome 76, Firefox 90,
Safari 16.4): such a request counts as a navigation when its Accept header asks for HTML, or
when it has no Accept header at all.
- Every browser sends an Accept header on the sub-resource loads an attacker can plant, and
  none of them lists text/html for an image, a style sheet or a script (Chrome
  "image/avif,image/webp,...", Firefox "image/avif,image/webp,*/*", old Safari
  "image/png,image/svg+xml,image/*;q=0.8,...", IE "image/png, image/svg+xml, image/*..."),
  while every top-level navigation lists text/html first. So the planted `<img>` of the
  probe changes nothing in any browser, old or new.
- A request without Accept is not a browser's sub-resource load (scripts, curl, the test
  client): it is the user's own tool acting for them.
- What stays open, only in a browser without Fetch Metadata: another site framing or
  navigating to one of our pages. Framing is refused by X-Frame-Options/frame-ancestors after
  the fact; a top-level navigation shows the user the page, so calling it "read" is true. The
  alternative (missing headers never count) would leave every such user's unread badge stuck
  forever, which is worse than that residue.
"""

from __future__ import annotations

from django.http import HttpRequest


def is_page_navigation(request: HttpRequest) -> bool:
    """True when `request` is a person opening the page (a top-level navigation) or a POST.

    With Fetch Metadata: Sec-Fetch-Mode must be "navigate" and Sec-Fetch-Dest "document"
    (a frame's navigation has Dest "iframe" and does not count); a prefetch or prerender
    (Sec-Purpose: prefetch) does not count either. Without Fetch Metadata: see the module
    docstring.
    """
    if request.method == "POST":
        return True
    if request.method != "GET":
        return False
    if "prefetch" in request.headers.get("Sec-Purpose", request.headers.get("Purpose", "")):
        return False  # a speculative fetch or prerender nobody has looked at yet
    mode = request.headers.get("Sec-Fetch-Mode")
    dest = request.headers.get("Sec-Fetch-Dest")
    if mode is not None or dest is not None:
        return mode == "navigate" and dest == "document"
    accept = request.headers.get("Accept")
    if accept is None:
        return True
    return "text/html" in accept.lower()
