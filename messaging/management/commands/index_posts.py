"""Write the search rows of the posts that have none (messaging.search.index_missing).

A post's search row is written once its transaction has committed; if that write failed
(the database went away in between; the log says "Error calling … in on_commit()"), the
post is shown but not found by search until this runs. Safe to run at any time, twice.
"""

from django.core.management.base import BaseCommand

from messaging.search import index_missing


class Command(BaseCommand):
    help = "Write the search rows of the posts that have none."

    def handle(self, *args, **options):
        written = index_missing()
        self.stdout.write(f"{written} posts indexed")
