"""Sign-up with a display name, email verification, profiles, timezones and languages."""

import datetime as dt
import re

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse

from accounts.models import Profile, display_name, messenger_user
from accounts.names import canonical_name
from games.mail import send_due

pytestmark = pytest.mark.django_db
PASSWORD = "a-strong-password-42"


def signup(client, email="cat@example.com", name="九命猫"):
    response = client.post(reverse("account_signup"), {
        "email": email, "password1": PASSWORD, "password2": PASSWORD, "display_name": name})
    send_due()  # the verification mail is an outbox row (games/mail.py); send it now
    return response


def test_signup_creates_profile_and_sends_verification_mail(client):
    response = signup(client)
    assert response.status_code == 302
    user = get_user_model().objects.get(email="cat@example.com")
    assert user.profile.display_name == "九命猫"
    assert user.profile.timezone == "Asia/Shanghai"
    assert user.profile.language == "zh-hans"
    assert len(mail.outbox) == 1
    assert not EmailAddress.objects.get(user=user).verified


def test_verification_link_verifies_and_allows_sign_in(client):
    signup(client)
    link = re.search(r"https?://[^\s]+/accounts/confirm-email/[^\s]+", mail.outbox[0].body).group(0)
    path = link.split("://", 1)[1].split("/", 1)[1]
    client.post("/" + path)
    assert EmailAddress.objects.get(email="cat@example.com").verified
    client.logout()
    response = client.post(reverse("account_login"), {"login": "cat@example.com",
                                                       "password": PASSWORD})
    assert response.status_code == 302
    assert client.get(reverse("profile")).status_code == 200


def test_unverified_user_cannot_sign_in(client):
    signup(client)
    client.logout()
    response = client.post(reverse("account_login"), {"login": "cat@example.com",
                                                      "password": PASSWORD})
    assert response.status_code == 302
    assert "confirm-email" in response["Location"]
    assert client.get(reverse("profile")).status_code == 302


@pytest.mark.parametrize("name", ["神的使者", "神的 使者", "ＧＭ", "admin", "真·神的使者",
                                  "天神本人", "x", "a<b>", "神的\u200b使者"])
def test_display_names_cannot_impersonate_the_service_or_be_malformed(client, name):
    response = signup(client, name=name)
    assert response.status_code == 200
    assert not get_user_model().objects.filter(email="cat@example.com").exists()


def test_display_names_are_unique_ignoring_case_and_width(client, make_user, chinese):
    make_user("Alice")
    response = signup(client, name="ＡＬＩＣＥ")
    assert response.status_code == 200
    # A visitor reads Chinese (the default): the form names the clash.
    assert "这个昵称已经有人用了。" in response.content.decode()
    assert Profile.objects.count() == 1


def test_a_staff_username_cannot_be_taken_as_a_display_name(client, make_user):
    gm = make_user("GameMaster", staff=True)
    gm.username = "tianshen"
    gm.save()
    assert signup(client, name="TianShen").status_code == 200
    assert not get_user_model().objects.filter(email="cat@example.com").exists()


def test_canonical_name_folds_lookalikes():
    assert canonical_name("ＡＢＣ") == canonical_name("abc")
    assert canonical_name("神的\u200b使者") == canonical_name("神的使者")


def test_profile_edit_saves_timezone_and_language(client, make_user):
    user = make_user("阿狗")
    client.force_login(user)
    response = client.post(reverse("profile"), {"display_name": "阿狗", "timezone": "Europe/Madrid",
                                                "language": "en", "reminder_hours": "1, 6"})
    assert response.status_code == 302
    user.profile.refresh_from_db()
    assert (user.profile.timezone, user.profile.language, user.profile.reminder_hours) == (
        "Europe/Madrid", "en", "6,1")


@pytest.mark.parametrize("field,value", [("timezone", "Mars/Olympus"),
                                         ("reminder_hours", "soon"),
                                         ("reminder_hours", "0"),
                                         ("language", "fr")])
def test_profile_rejects_bad_values_and_changes_nothing(client, make_user, field, value):
    user = make_user("阿狗")
    client.force_login(user)
    data = {"display_name": "阿狗", "timezone": "Asia/Shanghai", "language": "zh-hans",
            "reminder_hours": "6,1", field: value}
    response = client.post(reverse("profile"), data)
    assert response.status_code == 200
    user.profile.refresh_from_db()
    assert getattr(user.profile, field) != value


def test_times_are_shown_in_the_viewers_timezone_with_the_zone_named(client, make_user):
    user = make_user("阿狗", timezone="America/New_York")
    user.profile.created = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)
    Profile.objects.filter(pk=user.profile.pk).update(created=user.profile.created)
    client.force_login(user)
    html = client.get(reverse("profile")).content.decode()
    assert "2026-01-01 07:00" in html and "<strong>UTC-05:00 美国（纽约）</strong>" in html
    Profile.objects.filter(pk=user.profile.pk).update(timezone="Asia/Shanghai")
    html = client.get(reverse("profile")).content.decode()
    assert "2026-01-01 20:00" in html and "<strong>UTC+08:00 中国（上海）</strong>" in html


def test_english_is_available_and_chinese_is_the_default(client, make_user):
    html = client.get(reverse("account_login")).content.decode()
    assert 'lang="zh-hans"' in html
    user = make_user("阿狗")
    Profile.objects.filter(user=user).update(language="en")
    client.force_login(user)
    assert 'lang="en"' in client.get(reverse("profile")).content.decode()


def test_the_messenger_is_a_real_account_that_cannot_sign_in():
    m = messenger_user()
    assert display_name(m) == "神的使者"
    assert not m.has_usable_password() and not m.is_active
    assert messenger_user() == m


def test_failed_sign_ins_are_rate_limited_even_for_the_right_password(client, make_user):
    from tests.conftest import PASSWORD

    make_user("阿狗", email="dog@example.com")
    for _ in range(6):
        client.post(reverse("account_login"), {"login": "dog@example.com", "password": "wrong"})
    response = client.post(reverse("account_login"), {"login": "dog@example.com",
                                                      "password": PASSWORD})
    assert response.status_code in (200, 429)
    assert "_auth_user_id" not in client.session


def test_admin_login_goes_through_the_rate_limited_sign_in(client):
    response = client.get("/admin/login/")
    assert response.status_code == 302
    assert reverse("account_login") in response["Location"]


def test_password_reset_sends_a_working_link(client, make_user):
    from tests.conftest import PASSWORD

    make_user("阿狗", email="dog@example.com")
    client.post(reverse("account_reset_password"), {"email": "dog@example.com"})
    send_due()
    assert len(mail.outbox) == 1
    link = re.search(r"https?://\S+/accounts/password/reset/key/\S+", mail.outbox[0].body).group(0)
    path = "/" + link.split("://", 1)[1].split("/", 1)[1]
    response = client.get(path, follow=True)
    form_url = response.redirect_chain[-1][0] if response.redirect_chain else path
    new = "brand-new-password-55"
    client.post(form_url, {"password1": new, "password2": new})
    client.logout()
    assert client.login(username="u1", password=new) or client.post(
        reverse("account_login"), {"login": "dog@example.com", "password": new}).status_code == 302
    assert not client.login(username="u1", password=PASSWORD)


def test_the_sign_in_message_names_the_display_name_not_the_account(client, make_user,
                                                                     chinese):
    """allauth says whom you signed in as: the name people know (accounts.models.
    display_name), never the account's username ("以 u1 成功登录。")."""
    from django.contrib.messages import get_messages

    from tests.conftest import PASSWORD as KNOWN

    user = make_user("阿猫", email="cat2@example.com")
    response = client.post(reverse("account_login"), {"login": "cat2@example.com",
                                                      "password": KNOWN})
    assert response.status_code == 302
    said = [str(m) for m in get_messages(response.wsgi_request)]
    assert any("阿猫" in m for m in said), said
    assert not any(user.get_username() in m for m in said), said
