from django.urls import path

from . import views

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("b/<slug:slug>/", views.board_detail, name="messaging-board"),
    path("b/<slug:slug>/read/", views.board_mark_read, name="messaging-board-read"),
    path("b/<slug:slug>/new/", views.thread_new, name="messaging-thread-new"),
    path("t/<id:pk>/", views.thread_detail, name="messaging-thread"),
    path("t/<id:pk>/unread/", views.thread_first_unread, name="messaging-thread-unread"),
    path("t/<id:pk>/reply/", views.thread_reply, name="messaging-reply"),
    path("p/<id:pk>/", views.post_permalink, name="messaging-post"),
    path("p/<id:pk>/edit/", views.post_edit, name="messaging-post-edit"),
    path("p/<id:pk>/revisions/", views.post_revisions, name="messaging-post-revisions"),
    path("p/<id:pk>/bookmark/", views.post_bookmark, name="messaging-post-bookmark"),
    path("p/<id:pk>/report/", views.post_report, name="messaging-post-report"),
    path("t/<id:pk>/watch/", views.thread_watch, name="messaging-thread-watch"),
    path("bookmarks/", views.bookmark_list, name="messaging-bookmarks"),
    path("preview/", views.preview, name="messaging-preview"),
    path("search/", views.search_page, name="messaging-search"),
    path("notifications/", views.notification_list, name="messaging-notifications"),
    path("notifications/read/", views.notification_read_all,
         name="messaging-notifications-read-all"),
    path("notifications/<id:pk>/read/", views.notification_read,
         name="messaging-notification-read"),
    path("messenger/", views.conversation_home, name="messaging-conversation-home"),
    path("messenger/general/", views.conversation_general,
         name="messaging-conversation-general"),
    path("messenger/all/", views.conversation_list, name="messaging-conversation-list"),
    path("messenger/<id:pk>/", views.conversation_detail, name="messaging-conversation"),
]
