"""URLs of the community pages (review, awards, calendar...)."""

urlpatterns: list = []
