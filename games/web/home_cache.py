"""The game home page's two shared parts, rendered once per version and kept in the "pages"
cache (issue 17 item 1).

The page is three parts: the status card (name, phase, deadline, result, links), the
visitor's own card (sign-up, check-in, substitution, leave: never kept, rendered for each
signed-in visitor) and the tables (seats with their public facts, vote tallies,
announcements, public events). The first and the last are the same for everyone who sees
the game through the same seat, so `parts` renders them once and keeps them.

What the key holds, and why it is enough:
1. the game's id, creation time and `page_version`. The database moves `page_version`
   whenever anything these parts show changes, whatever did it (triggers, migration games
   0015): the game's row (phase, step, state, deadline, status and result, name, the GM's
   edits), its seats (a death, a substitution), events, phases and announcements, its
   board's vote and announcement threads and slug, a seated player's name. The creation
   time keeps a game of a recreated database from meeting the parts of an older one;
2. whose eyes: `seat` is the visitor's seat number, or None for everyone else (anonymous
   visitors, signed-in visitors without a seat, the GM: the spectator's view while the game
   runs, the GM's view once it is over). A seat's parts (its view's facts, the link to its
   actions) are kept under that seat only. The caller reads the seat number in the same
   query as the game's row (`selectors.game_for_home`), and the parts are rendered from that
   row and that number, so a key never names a seat or a version other than the one the
   parts were rendered for;
3. the reader's language and timezone (sentences, times);
4. `FORMAT`, a digest of the parts' templates, and `config.build.BUILD` (the project's code,
   templates and catalogues), so a deploy that changes them starts afresh.
A part is kept `SECONDS` and never needs deleting: a changed game is read under a new key.
The cache is Redis (shared by every worker); the parts this process used last are also kept
in its own memory (`RECENT`), so a signed-in visit that finds them there makes no round
trip.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

from django.conf import settings
from django.core.cache import caches
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.safestring import mark_safe

from config.build import BUILD
from config.memory import Recent

CACHE = "pages"
SECONDS = 3600
RECENT = Recent(200)  # (status card, tables) pairs, a few kB each
STATUS = "games/_home_status.html"
TABLES = "games/_home_tables.html"
_TEMPLATES = (STATUS, TABLES, "games/_seat_posts_link.html", "games/_tallies.html",
              "includes/breadcrumbs.html")
FORMAT = hashlib.sha1(b"".join(
    (Path(settings.BASE_DIR) / "templates" / name).read_bytes()
    for name in _TEMPLATES)).hexdigest()[:10]


def created(game) -> str:
    """The game's creation time for a key, in UTC: the same whether the row was read by the
    ORM or by written-out SQL (`selectors.home_row`), whatever zone the moment came in."""
    return game.created.astimezone(dt.UTC).isoformat()


def key(game, seat: int | None) -> str:
    return ":".join(str(part) for part in (
        "game-home", game.pk, created(game), game.page_version,
        "public" if seat is None else f"seat{seat}", translation.get_language(),
        timezone.get_current_timezone_name(), FORMAT, BUILD))


def page_key(game) -> tuple:
    """The key of `game`'s whole page kept for anonymous readers (config.anonymous_pages,
    which adds the address, language, timezone and templates): its id, creation time and
    page version, from the key row (`selectors.home_row`)."""
    return ("game-home", game.pk, created(game), game.page_version)


def parts(game, seat: int | None, miss) -> tuple[str, str]:
    """(the status card, the tables) of `game` (a row read with the visitor's seat number
    `seat`, None: none) from the cache; else `miss()`, which reads the game again and returns
    (that row, the seat number read with it, the parts' context), renders them and keeps
    them under the key of what it read."""
    found = RECENT.through(caches[CACHE], key(game, seat))
    if found is None:
        game, seat, values = miss()
        found = (render_to_string(STATUS, values), render_to_string(TABLES, values))
        RECENT.keep(caches[CACHE], key(game, seat), found, SECONDS)
    return mark_safe(found[0]), mark_safe(found[1])  # noqa: S308 (our own templates' output)
