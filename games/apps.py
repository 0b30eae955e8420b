from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "游戏"

    def ready(self):
        from messaging.hooks import register_thread_panel

        register_thread_panel(vote_panel)


def vote_panel(request, thread):
    """The vote box above a game's vote thread (messaging never imports games)."""
    if not thread.key.startswith("vote-"):
        return None
    from .views import vote_panel_context

    context = vote_panel_context(request, thread)
    return ("games/vote_panel.html", context) if context else None
