# A post's search fields move to a row of their own (PostSearch), with the GIN index of
# messaging 0004 (same name) over its terms: the services write it once the post's
# transaction has committed, so no reply maintains the index (nor flushes its pending list,
# a few hundred milliseconds every few hundred posts) while it holds the thread's lock.

import django.db.models.deletion
from django.db import migrations, models

INDEX = "post_search_terms_gin"


class Migration(migrations.Migration):

    dependencies = [
        ('messaging', '0012_bookmarks_watches_reports'),
    ]

    operations = [
        migrations.CreateModel(
            name='PostSearch',
            fields=[
                ('post', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='search', serialize=False, to='messaging.post', verbose_name='post')),
                ('text', models.TextField(editable=False)),
                ('terms', models.TextField(editable=False)),
            ],
        ),
        migrations.RunSQL(
            "INSERT INTO messaging_postsearch (post_id, text, terms) "
            "SELECT id, search_text, search_terms FROM messaging_post",
            "UPDATE messaging_post p SET search_text = s.text, search_terms = s.terms "
            "FROM messaging_postsearch s WHERE s.post_id = p.id"),
        migrations.RunSQL(
            [f"DROP INDEX IF EXISTS {INDEX}",
             f"CREATE INDEX {INDEX} ON messaging_postsearch "
             "USING gin (string_to_array(terms, ' '))"],
            [f"DROP INDEX IF EXISTS {INDEX}",
             f"CREATE INDEX {INDEX} ON messaging_post "
             "USING gin (string_to_array(search_terms, ' '))"]),
        migrations.RemoveField(
            model_name='post',
            name='search_terms',
        ),
        migrations.RemoveField(
            model_name='post',
            name='search_text',
        ),
        # Statistics for the planner at once (a common word's page is then read by walking
        # the posts' primary key backwards, as before; without them it sorts every hit).
        migrations.RunSQL("ANALYZE messaging_postsearch", migrations.RunSQL.noop),
    ]
