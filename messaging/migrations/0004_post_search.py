# Search fields of posts (messaging/search.py), filled for the posts already written, and the
# GIN index over their terms.

from django.db import migrations, models

INDEX = "post_search_terms_gin"


def fill(apps, schema_editor):
    from messaging.search import fields_for

    Post = apps.get_model("messaging", "Post")
    batch = []
    for post in (Post.objects.select_related("thread").only("body", "number", "thread__title")
                 .iterator(chunk_size=2000)):
        fields = fields_for(body=post.body, title=post.thread.title if post.number == 1 else "")
        post.search_text, post.search_terms = fields["search_text"], fields["search_terms"]
        batch.append(post)
        if len(batch) >= 2000:
            Post.objects.bulk_update(batch, ["search_text", "search_terms"])
            batch = []
    if batch:
        Post.objects.bulk_update(batch, ["search_text", "search_terms"])


class Migration(migrations.Migration):

    dependencies = [
        ('messaging', '0003_notification'),
    ]

    operations = [
        migrations.AddField(
            model_name='post',
            name='search_terms',
            field=models.TextField(default='', editable=False),
        ),
        migrations.AddField(
            model_name='post',
            name='search_text',
            field=models.TextField(default='', editable=False),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.RunSQL(
            f"CREATE INDEX IF NOT EXISTS {INDEX} ON messaging_post "
            "USING gin (string_to_array(search_terms, ' '))",
            f"DROP INDEX IF EXISTS {INDEX}"),
    ]
