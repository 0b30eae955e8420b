from django.urls import include, path

from . import views

urlpatterns = [
    path("games/", views.game_list, name="game-list"),
    path("games/<int:pk>/", views.game_home, name="game-home"),
    path("games/<int:pk>/act/", views.act, name="game-act"),
    path("games/<int:pk>/vote/", views.vote, name="game-vote"),
    path("games/<int:pk>/commitment/", views.commitment, name="game-commitment"),
    path("games/<int:pk>/do/<slug:what>/", views.community_action, name="game-community"),
    path("", include("games.community_urls")),
]
