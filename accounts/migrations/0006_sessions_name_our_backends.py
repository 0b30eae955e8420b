"""Sessions signed in before `accounts.backends` existed name Django's `ModelBackend` or
allauth's `AuthenticationBackend`; Django signs such a session out, since the settings no
longer list those classes. This rewrites each such session once to name ours (the same
authentication, reading the user with their profile), so nobody is signed out by the change
and sessions are read by Django's own engine, with no reading hook of our own.
"""

from django.db import migrations

RENAMED = {
    "django.contrib.auth.backends.ModelBackend": "accounts.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend":
        "accounts.backends.AuthenticationBackend",
}


def name_our_backends(apps, schema_editor) -> int:
    """Rewrite every stored session that names one of `RENAMED`'s keys; returns how many."""
    from django.contrib.auth import BACKEND_SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    session_model = apps.get_model("sessions", "Session")
    store = SessionStore()
    rewritten = 0
    for key, data in session_model.objects.values_list("session_key", "session_data").iterator():
        decoded = store.decode(data)
        backend = decoded.get(BACKEND_SESSION_KEY)
        if backend in RENAMED:
            decoded[BACKEND_SESSION_KEY] = RENAMED[backend]
            session_model.objects.filter(session_key=key).update(
                session_data=store.encode(decoded))
            rewritten += 1
    return rewritten


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0005_timezone_origin"),
        ("sessions", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(name_our_backends, migrations.RunPython.noop),
    ]
