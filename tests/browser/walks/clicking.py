"""Moving through the site as a person does: open the home page once, then only click links
and buttons (no typed URL). Helpers for what every walk does: follow a link, read a page's
visible text and check it is Chinese, check that it fits a phone, reach the GM console from
the header's link and end a phase there.
"""

from __future__ import annotations

import re

from games.models import Action

PHONE = {"width": 390, "height": 844}

# Engine words a Chinese page must never show (card and role codes, camp keys, raw phase
# names): whole words in capitals or snake_case as the engines write them.
ENGINE_KEY = re.compile(r"\b(?:[A-Z]{3,}(?:_[A-Z]+)*|[a-z]+_[a-z_]+)\b")
# Capitals a Chinese page may show: the event log's format, the commitment's hash, the
# footer's zone offset ("显示时区：UTC+08:00 中国（上海）").
CAPITALS_ALLOWED = ("JSON", "SHA", "HTML", "UTC")
# English a Chinese page may carry: the time zone's name and offset, the Markdown help's words.
ENGLISH_ALLOWED = {"Asia", "Shanghai", "UTC", "Markdown", "HTML", "https", "JSON", "SHA"}


def arrive(page, live_server, path: str = "/") -> None:
    """The walker's only typed address: the home page."""
    page.goto(live_server.url + path)


def follow(page, target, *, within=None) -> None:
    """Click a link or a button and wait for the page it opens: `target` is a CSS selector
    (ASCII), or else the exact text of a link (Chinese), searched `within` a part. The
    checks `watch` registered for this walker then run on the new page."""
    scope = page.locator(within) if within else page
    if target.isascii():
        locator = scope.locator(target)
    else:
        locator = scope.get_by_role("link", name=target, exact=True)
    assert locator.count() == 1, (
        f"{target!r}: {locator.count()} matches on {page.url}:\n" + page.inner_text("main")
    )
    with page.expect_navigation():
        locator.click()
    for check in getattr(page, "walk_checks", ()):
        check(page)


def watch(page, check) -> None:
    """Run `check(page)` on every page the walker `page` opens from now on (follow)."""
    page.walk_checks = [*getattr(page, "walk_checks", ()), check]


def visible_text(page, selector: str = "body") -> str:
    """What a reader sees in the first element `selector` matches: the rendered text, and
    the hints shown in empty boxes (one round trip to the browser)."""
    return page.eval_on_selector(
        selector,
        """el => [el.innerText,
        ...[...el.querySelectorAll("[placeholder]")].map(e => e.getAttribute("placeholder"))
    ].join("\\n")""",
    )


def engine_keys(page, selector: str = "main", text: str | None = None) -> list[str]:
    """Engine codes (KILLER, WITCH_DOCTOR, free_agent...) in the visible text of `selector`
    (or in `text`, already read)."""
    text = visible_text(page, selector) if text is None else text
    return [k for k in ENGINE_KEY.findall(text) if k not in CAPITALS_ALLOWED]


def english_words(page, selector: str = "body", text: str | None = None) -> list[str]:
    """English words (4+ letters) in the visible text of `selector` (or in `text`), besides
    the allowed."""
    text = visible_text(page, selector) if text is None else text
    return [w for w in re.findall(r"\b[A-Za-z]{4,}\b", text) if w not in ENGLISH_ALLOWED]


def read_in_chinese(page, selector: str = "body") -> str:
    """The visible text of `selector`, checked: no engine code, no English word."""
    text = visible_text(page, selector)
    assert not engine_keys(page, text=text), (page.url, engine_keys(page, text=text))
    assert not english_words(page, text=text), (page.url, english_words(page, text=text))
    return text


def fits_a_phone(page) -> bool:
    """No sideways scrolling at 390 px."""
    return page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def flash(page) -> str:
    """The page's flash message (success or error), or ""."""
    box = page.locator(".messages li")
    return box.first.inner_text() if box.count() else ""


def last_step(game, seat: int) -> Action:
    """The seat's newest stored step."""
    return Action.objects.filter(game=game, actor=str(seat)).order_by("-seq").first()


def to_game(page, game_name: str) -> None:
    """To the game's home page, fresh: by the breadcrumbs every other page of the game
    carries; from the game's home page itself, through the header's list of games."""
    if page.locator("nav.crumbs [aria-current=page]").inner_text() == game_name:
        follow(page, "#games-link")
        follow(page, game_name, within="main")
    else:
        follow(page, game_name, within="nav.crumbs")


def open_console(gm, live_server, game_name: str) -> None:
    """The GM from the home page: the header's console link, the games list, the game, and
    its console."""
    arrive(gm, live_server)
    follow(gm, "header a[href='/admin/']")
    follow(gm, "#content-main th a[href$='/admin/games/game/']")
    follow(gm, game_name, within="#result_list")
    follow(gm, "打开控制台")
    gm.on("dialog", lambda dialog: dialog.accept())  # the console's "are you sure?"


def end_phase(gm) -> None:
    """End the phase now through the consequences page (the GM is on the console)."""
    follow(gm, "#end-phase-link")
    follow(gm, "#confirm-end-phase")
    assert gm.locator(".errornote, .errorlist").count() == 0
