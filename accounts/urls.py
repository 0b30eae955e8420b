from django.urls import path

from . import unsubscribe, views

urlpatterns = [
    path("profile/", views.profile, name="profile"),
    path("profile/language/", views.set_language, name="profile-language"),
    path("profile/timezone/", views.set_timezone, name="profile-timezone"),
    path("u/<id:pk>/", views.public_profile, name="profile-public"),
    path("unsubscribe/<str:token>/", unsubscribe.unsubscribe, name="unsubscribe"),
]
