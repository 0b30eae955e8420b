"""Names that cannot impersonate: every profile's look-alike skeleton, unique.

Existing names whose skeletons collide (a 阿貓 beside a 阿猫 from before this rule) keep
their names: the newer profile's skeleton gets a "#<id>" suffix, so the constraint can be
added and nobody new can take either name. The collisions are printed for the operator.
"""

from django.db import migrations, models


def fill(apps, schema_editor):
    from accounts.names import name_skeleton

    Profile = apps.get_model("accounts", "Profile")
    seen = set()
    for profile in Profile.objects.order_by("id").only("id", "display_name"):
        skeleton = name_skeleton(profile.display_name)[:90]
        if skeleton in seen or not skeleton:
            print(f"  profile {profile.id} ({profile.display_name!r}) looks like an older "
                  "name; its skeleton is kept apart")
            skeleton = f"{skeleton}#{profile.id}"
        seen.add(skeleton)
        Profile.objects.filter(pk=profile.pk).update(name_skeleton=skeleton)


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0002_community"),
    ]

    operations = [
        migrations.AddField(
            model_name="profile",
            name="name_skeleton",
            field=models.CharField(default="", editable=False, max_length=96),
            preserve_default=False,
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
