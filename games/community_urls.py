"""URLs of the community pages (review, awards, calendar...)."""

from django.urls import path

from .web import awards as award_views
from .web import calendar, review

urlpatterns = [
    path("games/<int:pk>/review/", review.review, name="game-review"),
    path("games/<int:pk>/review/seat/<int:number>/", review.review_seat,
         name="game-review-seat"),
    path("games/<int:pk>/events.json", review.events_json, name="game-events-json"),
    path("games/<int:pk>/awards/", award_views.awards_page, name="game-awards"),
    path("games/<int:pk>/awards/post/", award_views.award_post, name="game-award-post"),
    path("calendar/<str:token>.ics", calendar.calendar_feed, name="calendar-feed"),
    path("profile/calendar/", calendar.calendar_settings, name="profile-calendar"),
]
