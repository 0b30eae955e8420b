from django.urls import include, path

from .web import archive, community, devmail, pages, play, rules

urlpatterns = [
    path("games/", pages.game_list, name="game-list"),
    path("games/archive/", archive.archive, name="game-archive"),
    path("games/rules/", rules.rules_index, name="rules-index"),
    path("games/rules/<slug:ruleset>/", rules.rules_detail, name="rules-detail"),
    path("games/<id:pk>/", pages.game_home, name="game-home"),
    path("games/<id:pk>/act/", play.act, name="game-act"),
    path("games/<id:pk>/seat/<id:number>/posts/", archive.seat_posts, name="game-seat-posts"),
    path("games/<id:pk>/vote/", play.vote, name="game-vote"),
    path("games/<id:pk>/commitment/", pages.commitment, name="game-commitment"),
    path("games/<id:pk>/do/<slug:what>/", community.community_action, name="game-community"),
    path("dev/outbox/", devmail.dev_outbox, name="dev-outbox"),
    path("", include("games.community_urls")),
]
