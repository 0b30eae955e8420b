from django.urls import path

from . import views

urlpatterns = [
    path("profile/", views.profile, name="profile"),
    path("u/<int:pk>/", views.public_profile, name="profile-public"),
]
