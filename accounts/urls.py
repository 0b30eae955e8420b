from django.urls import path

from . import unsubscribe, views

urlpatterns = [
    path("profile/language/", views.set_language, name="profile-language"),
    path("profile/timezone/", views.set_timezone, name="profile-timezone"),
    path("unsubscribe/<str:token>/", unsubscribe.unsubscribe, name="unsubscribe"),
]
