"""Ways for other apps to add to the forum without messaging importing them.

Thread panels: a callable `panel(request, thread)` returning None (nothing to add) or a pair
`(template_name, context)`; the thread page renders each such template above the posts. The
games app uses one to put the vote form over a day's vote thread:

    # games/apps.py, in GamesConfig.ready()
    from messaging.hooks import register_thread_panel
    register_thread_panel(vote_panel)   # vote_panel(request, thread) -> (template, ctx) | None

Board links: a callable `links(board_ids)` returning {board id: [(label, url), ...]}; the
lobby shows them under each board (the games app links a game's page from its board).

Post hooks: a callable `hook(post)` that the forum's writer calls with each post it has just
stored, in its transaction (messaging.services `_add_post`): the games app moves a dead
player's new thread to the GM board and emails the replies' readers. Called by the writer,
not a signal, so what a post writes is read where the post is written.

Post budgets: a callable `budget(board_id)` returning None or `(scope, per_minute)`: a board
whose posts count in a budget of their own (the games app gives a game's graveyard one);
the first registered that answers wins.

Reader's boards: one declared `boards(user)` answering a query of the ids of the boards of
the reader's own games; the home page's 最新主题 puts them first (messaging.latest).

Posting checks (who may post where) are registered in `messaging.rules`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

ThreadPanel = Callable[..., "tuple[str, dict] | None"]
_thread_panels: list[ThreadPanel] = []


def register_thread_panel(panel: ThreadPanel) -> ThreadPanel:
    """Show `panel` on every thread page (usable as a decorator; registering twice is a no-op)."""
    if panel not in _thread_panels:
        _thread_panels.append(panel)
    return panel


def unregister_thread_panel(panel: ThreadPanel) -> None:
    if panel in _thread_panels:
        _thread_panels.remove(panel)


def render_thread_panels(request, thread) -> list[SafeString]:
    """The HTML of every registered panel that has something to show for `thread`."""
    rendered = []
    for panel in list(_thread_panels):
        result = panel(request, thread)
        if result is not None:
            template_name, context = result
            rendered.append(render_to_string(template_name, context, request=request))
    return rendered


# --- home page sections -------------------------------------------------------------------
# A callable `section(request)` returning None or `(template_name, context)`; the home page
# renders each above its boards (the games app lists the visitor's games and the open ones).
LobbySection = Callable[..., "tuple[str, dict] | None"]
_lobby_sections: list[LobbySection] = []


def register_lobby_section(section: LobbySection) -> LobbySection:
    if section not in _lobby_sections:
        _lobby_sections.append(section)
    return section


def render_lobby_sections(request) -> list[SafeString]:
    rendered = []
    for section in list(_lobby_sections):
        result = section(request)
        if result is not None:
            template_name, context = result
            rendered.append(render_to_string(template_name, context, request=request))
    return rendered


# --- the reader's own boards ---------------------------------------------------------------
# The one answer to "which boards are this reader's own" (games: the boards of the games they
# play, signed up for, run or watch), for the home page's 最新主题 to put first. Declared
# once, in an AppConfig.ready(); a second declaration replaces the first. Reads only.
ReaderBoards = Callable[..., Any]
_reader_boards: list[ReaderBoards] = []


def declare_reader_boards(boards: ReaderBoards) -> ReaderBoards:
    """`boards(user)` answers a query of the ids of `user`'s own boards (a
    `values("board_id")`-like queryset of one column, used as a subquery), or None for a
    reader with none (not signed in)."""
    _reader_boards[:] = [boards]
    return boards


def reader_boards(user) -> Any:
    """The query of `user`'s own boards' ids (`declare_reader_boards`), or None when no app
    declared any or the reader has none."""
    return _reader_boards[0](user) if _reader_boards else None


BoardLinks = Callable[..., "dict[int, list[tuple[str, str]]]"]
_board_links: list[BoardLinks] = []


def register_board_links(links: BoardLinks) -> BoardLinks:
    """Add `links(board_ids)` to the lobby's boards (registering twice is a no-op)."""
    if links not in _board_links:
        _board_links.append(links)
    return links


def board_links(board_ids: list[int]) -> dict[int, list[tuple[str, str]]]:
    """Every registered app's links for these boards, by board id."""
    out: dict[int, list[tuple[str, str]]] = {}
    for links in list(_board_links):
        for board_id, rows in links(board_ids).items():
            out.setdefault(board_id, []).extend(rows)
    return out


PostHook = Callable[..., None]
_post_hooks: list[PostHook] = []


def register_post_hook(hook: PostHook) -> PostHook:
    """Call `hook(post)` with every post stored, in the order registered (registering twice
    is a no-op)."""
    if hook not in _post_hooks:
        _post_hooks.append(hook)
    return hook


def post_added(post) -> None:
    """Run the post hooks on `post`, just stored (precondition: the writer's transaction)."""
    for hook in _post_hooks:
        hook(post)


PostBudget = Callable[[int], "tuple[str, int] | None"]
_post_budgets: list[PostBudget] = []


def register_post_budget(budget: PostBudget) -> PostBudget:
    if budget not in _post_budgets:
        _post_budgets.append(budget)
    return budget


def post_budget(board_id: int) -> tuple[str, int] | None:
    """The (scope, posts a minute) of posts on board `board_id`, if a registered budget
    gives it one of its own; else None (the forum's own)."""
    for budget in _post_budgets:
        found = budget(board_id)
        if found is not None:
            return found
    return None
