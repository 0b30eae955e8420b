"""URLs of the community pages (review, watch, awards, calendar...)."""

from django.urls import path

from .web import awards as award_views
from .web import calendar, review, watch

urlpatterns = [
    path("games/<id:pk>/review/", review.review, name="game-review"),
    path("games/<id:pk>/review/seat/<id:number>/", review.review_seat,
         name="game-review-seat"),
    path("games/<id:pk>/events.json", review.events_json, name="game-events-json"),
    path("games/<id:pk>/watch/", watch.watch, name="game-watch"),
    path("games/<id:pk>/graveyard/", watch.graveyard, name="game-graveyard"),
    path("games/<id:pk>/awards/", award_views.awards_page, name="game-awards"),
    path("games/<id:pk>/awards/post/", award_views.award_post, name="game-award-post"),
    path("calendar/<str:token>.ics", calendar.calendar_feed, name="calendar-feed"),
    path("profile/calendar/", calendar.calendar_settings, name="profile-calendar"),
]
