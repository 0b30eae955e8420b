from django.urls import path

from . import profiles

urlpatterns = [
    path("profile/", profiles.profile, name="profile"),
    path("u/<id:pk>/", profiles.public_profile, name="profile-public"),
]
