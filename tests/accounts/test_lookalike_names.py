"""Names that cannot impersonate, and titles and bodies that are not blank
or reversed. Each of the probe's names is sent exactly as it was, and refused with nothing
stored."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from accounts.forms import validate_display_name
from accounts.models import Profile
from accounts.names import name_skeleton
from messaging import services
from messaging.models import Post, Thread

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("response_context")]
PASSWORD = "a-strong-password-42"

PROBE_NAMES = ["神旳使者", "神的使著", "\u0430dmin", "G\u039c", "系统消息", "管理猿",
               "ＡＤＭＩＮ", "\u0391DMIN", "\u0455taff", "我是神旳使者"]
INVISIBLE_NAMES = ["阿\u200b猫猫", "\u202e猫阿", "阿\u3164猫", "阿\ufe0f猫", "阿\u2066猫\u2069",
                   "\u200b\u200b"]


def signup(client, name, email="new@example.com"):
    return client.post(reverse("account_signup"), {
        "email": email, "password1": PASSWORD, "password2": PASSWORD, "display_name": name})


@pytest.mark.parametrize("name", PROBE_NAMES + INVISIBLE_NAMES)
def test_a_lookalike_of_a_reserved_name_or_an_invisible_one_cannot_sign_up(client, name):
    response = signup(client, name)
    assert response.status_code == 200  # the form again, with its message
    assert response.context["form"].errors["display_name"]
    assert not get_user_model().objects.filter(email="new@example.com").exists()
    assert not Profile.objects.exists()


def test_a_traditional_spelling_of_an_existing_name_is_taken(client, make_user):
    make_user("阿猫")
    response = signup(client, "阿貓")
    assert response.context["form"].errors["display_name"]
    assert Profile.objects.count() == 1


@pytest.mark.parametrize(("existing", "lookalike"), [
    ("alice", "\u0430lice"), ("Bob", "B\u043eb"), ("Ian", "lan"), ("tom", "torn"),
    ("小白", "小 白"), ("花花", "花-花"), ("阿猫", "阿貓")])
def test_a_lookalike_of_an_existing_name_is_taken(make_user, existing, lookalike):
    make_user(existing)
    with translation.override("en"), pytest.raises(ValidationError, match="already taken"):
        validate_display_name(lookalike)


def test_renaming_to_a_lookalike_on_the_profile_page_is_refused(client, make_user):
    make_user("阿猫")
    user = make_user("阿博")
    client.force_login(user)
    response = client.post(reverse("profile"), {
        "display_name": "阿貓", "timezone": "Asia/Shanghai", "language": "zh-hans",
        "reminder_hours": "6,1"})
    assert response.status_code == 200 and response.context["form"].errors["display_name"]
    assert Profile.objects.get(user=user).display_name == "阿博"


def test_the_database_refuses_two_profiles_with_one_skeleton(make_user):
    make_user("阿猫")
    other = get_user_model().objects.create_user(username="other", email="o@example.com")
    with pytest.raises(IntegrityError), transaction.atomic():
        Profile.objects.create(user=other, display_name="阿貓")


def test_ordinary_names_stay_distinct():
    names = ["阿猫", "阿狗", "小白", "老黑", "花花", "alice", "bob", "tom", "九命猫", "Ana"]
    assert len({name_skeleton(n) for n in names}) == len(names)
    for name in names:
        assert validate_display_name(name) == name


def test_the_taken_check_is_one_indexed_lookup_whatever_the_number_of_users(make_user):
    for i in range(30):
        make_user(f"玩家{i:02d}号")
    with CaptureQueriesContext(connection) as queries:
        validate_display_name("新来的")
    profile_queries = [q["sql"] for q in queries.captured_queries
                       if "accounts_profile" in q["sql"]]
    assert len(profile_queries) == 1 and "name_skeleton" in profile_queries[0]


# --- thread titles and bodies ----------------------------------------------------------------

BLANK_OR_REVERSED_TITLES = ["\u200b\u200b", "\u200b\u3000", "\u202e戏游人杀", "大家\u200d好",
                            "\u2067abc\u2069"]


@pytest.fixture
def writer(make_user):
    return make_user("阿丽")


@pytest.mark.parametrize("title", BLANK_OR_REVERSED_TITLES)
def test_an_invisible_or_reversed_title_is_refused(client, writer, title):
    client.force_login(writer)
    board = services.lobby_board()
    response = client.post(reverse("messaging-thread-new", args=[board.slug]), {
        "kind": Thread.Kind.DISCUSSION, "title": title, "body": "正文"})
    assert response.status_code == 400
    assert response.context["form"].non_field_errors()
    assert Thread.objects.count() == 0 and Post.objects.count() == 0


@pytest.mark.parametrize("body", ["\u200b\u200b", "\u200b\u3000", "\u3000\n\u200d", "\ufeff"])
def test_a_body_of_only_invisible_characters_is_empty(client, writer, body):
    thread = services.start_thread(board=services.lobby_board(), author=writer,
                                   kind=Thread.Kind.DISCUSSION, title="大家好", body="第一帖")
    client.force_login(writer)
    response = client.post(reverse("messaging-reply", args=[thread.pk]), {"body": body})
    assert response.status_code == 400
    assert Post.objects.count() == 1
