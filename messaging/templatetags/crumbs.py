"""One breadcrumb trail for every page: `{% breadcrumbs %}` renders templates/_breadcrumbs.html.

    {% breadcrumbs url1 label1 url2 label2 current="this page" board=board game=game %}

The trail always starts at the home page (首页, never "大厅": the lobby board is also called
大厅, and "大厅 › 大厅" read as a loop). Then:
1. `game`: the games list and the game's home page;
2. `board`: a game's board (through the reverse relation Board.game, so messaging imports no
   game code) is reached through the games list and its game, and is called "game board"
   (its title is the game's name, which the previous crumb already shows); any other board by
   its title;
3. the (url, label) pairs given, in order;
4. `current`, the page itself, not a link (aria-current="page"); `current_board=board` on a
   board's own page (the board's name as in 2, not a link).
"""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.translation import gettext as _

register = template.Library()



def _game_crumbs(game) -> list[tuple[str, str]]:
    return [(reverse("game-list"), _("Games")), (game.get_absolute_url(), game.name)]


@register.inclusion_tag("includes/breadcrumbs.html")
def breadcrumbs(*pairs, current: str = "", board=None, game=None, current_board=None):
    trail: list[tuple[str, str]] = [(reverse("lobby"), _("Home"))]
    if game:
        trail += _game_crumbs(game)
    for one in (board, current_board):
        if not one:
            continue
        owner = one.owning_game()
        if owner is not None and not game:
            trail += _game_crumbs(owner)
        label = _("Game board") if owner is not None else one.title
        if one is current_board:
            current = label
        else:
            trail.append((one.get_absolute_url(), label))
    if len(pairs) % 2:
        raise template.TemplateSyntaxError("breadcrumbs takes (url, label) pairs")
    trail += [(pairs[i], pairs[i + 1]) for i in range(0, len(pairs), 2)]
    return {"trail": trail, "current": current}
