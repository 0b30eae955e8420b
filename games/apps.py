from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "游戏"

    def ready(self):
        import os

        from django.core import checks

        from . import rulesets
        from .checks import check_rulesets

        checks.register(check_rulesets, "games")
        # Processes started by tests and benchmarks (a Celery worker, gunicorn) get their
        # extra rule sets here, e.g. EXTRA_RULESETS="tests.toy:register".
        rulesets.register_extra(os.environ.get("EXTRA_RULESETS", ""))

        from messaging.hooks import (
            declare_reader_boards,
            register_board_links,
            register_lobby_section,
            register_thread_panel,
        )
        from messaging.rules import (
            declare_board_names,
            register_board_authority,
            register_hidden_boards,
            register_posting_check,
            register_table_mates,
        )

        from .selectors import (
            board_authority,
            board_game_links,
            draft_boards_hidden_from,
            graveyards_hidden_from,
            names_on_board,
            reader_boards,
            table_mates,
        )

        register_thread_panel(vote_panel)
        register_lobby_section(lobby_section)
        register_posting_check(game_board_check)
        register_board_authority(board_authority)
        register_board_links(board_game_links)
        register_hidden_boards(draft_boards_hidden_from)
        register_hidden_boards(graveyards_hidden_from)
        register_table_mates(table_mates)
        declare_board_names(names_on_board)
        declare_reader_boards(reader_boards)

        from messaging.hooks import register_post_budget, register_post_hook

        from .selectors import graveyard_budget

        register_post_budget(graveyard_budget)

        from .notifications import notify_reply

        register_post_hook(_ghost_thread)  # first: a reply's readers see where it ends up
        register_post_hook(notify_reply)



# messaging.rules.report_refusal's and edit_refusal's kinds: a report, a moderator's edit
NOT_POSTS = ("report", "edit")


def vote_panel(request, thread):
    """The vote box above a game's vote thread (messaging never imports games)."""
    if not thread.key.startswith("vote-"):
        return None
    from .web.play import vote_panel_context

    context = vote_panel_context(request, thread)
    return ("games/vote_panel.html", context) if context else None


def lobby_section(request):
    """The home page's games: the visitor's own (with their action page) and the open ones."""
    from .web.pages import lobby_section_context

    return "games/lobby_games.html", lobby_section_context(request)


def game_board_check(*, user, board, thread, kind, body):
    """Every post, thread, report and moderator's edit, on every board: whoever reads the secrets of a
    running game writes nothing its living players read (games.selectors.secrets, the one
    rule). Then, while a game runs, only its players (and the GM) post on its board; what
    the dead may write is the rule set's dead-talk policy (games/services/ghosts.py)."""
    from django.utils.translation import gettext as _

    from .models import Game
    from .selectors import write_refusal

    if user.get_username() == _messenger_username():
        return None
    refusal = write_refusal(user, board=board)
    if refusal or kind in NOT_POSTS:
        return refusal

    # The board's game as the caller read it (the thread page joins it; a service that
    # locked the board reads it fresh here), or none.
    game = getattr(board, "game", None) if board is not None else None
    if game is None or game.status not in (Game.Status.RUNNING, Game.Status.PAUSED):
        return None
    from .selectors import is_gm

    if user.get_username() == _messenger_username() or is_gm(user, game):
        return None
    seat = game.seats.filter(user=user).only("alive").first()
    if seat is None:
        return _("Only the players of this game may post on its board while it runs.")
    if not seat.alive:
        from .services import dead_post_refusal

        return dead_post_refusal(Game.objects.get(pk=game.pk), user, thread=thread, body=body)
    return None


def _ghost_thread(post):
    """A dead player's new thread (its first post just written) goes to the GM board."""
    if post.number == 1:
        from .services import move_ghost_thread

        move_ghost_thread(post.thread)


def _messenger_username():
    from django.conf import settings

    return settings.MESSENGER_USERNAME
