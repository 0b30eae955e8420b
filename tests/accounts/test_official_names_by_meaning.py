"""The site's official names reserved by meaning (accounts/names.py, rule 4): 神的使者, 天神,
the graveyard board (墓地), announcements (公告), 管理 and 系统 are refused in words that mean
the same, in "the god's messenger" put together any way, in traditional characters and in
Chinese look-alike characters, with a sentence naming the official name; nothing is stored.
Ordinary names that merely share a character (天使, 男神, 墓碑) stay free."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.urls import reverse

from accounts.models import Profile
from accounts.names import check_name, reserved_word

pytestmark = pytest.mark.usefixtures("response_context")

PASSWORD = "a-strong-password-42"

# (name, the official name it reads like): the two the probe found first.
VARIANTS = [
    ("神的信使", "神的使者"),
    ("墓地公告", "墓地"),
    # the messenger, said another way
    ("神之使", "神的使者"),
    ("神の使い", "神的使者"),
    ("神派来的使者", "神的使者"),
    ("天之使者", "神的使者"),
    ("上帝的信差", "神的使者"),
    ("和平使者", "神的使者"),
    ("神的使徒", "神的使者"),
    ("神旳信使", "神的使者"),  # a look-alike 的
    ("神的便者", "神的使者"),  # a look-alike 使
    ("神的使著", "神的使者"),  # a look-alike 者
    # the GM (天神), said another way or misspelt to look the same
    ("上帝", "天神"),
    ("神明本尊", "天神"),
    ("天帝", "天神"),
    ("众神之王", "天神"),
    ("諸神", "天神"),  # traditional
    ("夭神", "天神"),  # 夭 for 天
    ("天砷", "天神"),  # 砷 for 神
    ("天紳", "天神"),  # traditional 绅 for 神
    # the graveyard board
    ("墓园", "墓地"),
    ("公墓守夜人", "墓地"),
    ("墳場", "墓地"),  # traditional
    ("幕地", "墓地"),  # 幕 for 墓
    ("暮地守望", "墓地"),
    ("陵园", "墓地"),
    # announcements
    ("公告栏", "公告"),
    ("今日通告", "公告"),
    ("佈告", "公告"),  # traditional 布告
    ("公吿", "公告"),  # 吿 for 告
    ("重要通知", "公告"),
    ("告示牌", "公告"),
    # management and the system
    ("站务组", "管理"),
    ("運營", "管理"),  # traditional
    ("菅理", "管理"),  # 菅 for 管
    ("管埋员", "管理员"),  # 埋 for 理
    ("后台", "系统"),
    ("糸统", "系统"),  # 糸 for 系
    ("系铳", "系统"),  # 铳 for 统
    ("係統訊息", "系统消息"),  # traditional, one character apart
]

ORDINARY = ["天使", "小天使", "神奇天使", "男神", "死神来了", "精神小伙", "大使", "墓碑",
            "公主", "告白", "地主", "统一", "管家", "理想", "天天向上", "天差地别", "神差鬼使"]


def test_there_are_at_least_thirty_variants():
    assert len({name for name, _official in VARIANTS}) >= 30


@pytest.mark.parametrize(("name", "official"), VARIANTS)
def test_a_name_that_reads_like_an_official_name_is_refused_and_named(name, official, chinese):
    assert reserved_word(name) == official
    with pytest.raises(ValidationError) as refused:
        check_name(name)
    message = refused.value.messages[0]
    assert official in message
    assert "留给本站、天神和管理人员" in message


@pytest.mark.parametrize("name", ["神的信使", "夭神", "幕地"])
def test_a_name_without_the_word_itself_is_told_what_it_reads_like(name, chinese):
    with pytest.raises(ValidationError) as refused:
        check_name(name)
    assert refused.value.messages[0].startswith(f"“{name}”看上去或读起来像本站的“")


@pytest.mark.parametrize("name", ORDINARY)
def test_ordinary_names_sharing_a_character_stay_free(name):
    assert reserved_word(name) is None
    assert check_name(name) == name


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["神的信使", "墓地公告", "夭神", "係統訊息"])
def test_signing_up_with_one_is_refused_and_stores_nothing(client, chinese, name):
    response = client.post(reverse("account_signup"), {
        "email": "new@example.com", "password1": PASSWORD, "password2": PASSWORD,
        "display_name": name})
    assert response.status_code == 200  # the form again, with its message
    errors = " ".join(response.context["form"].errors["display_name"])
    assert "留给本站、天神和管理人员" in errors
    assert not get_user_model().objects.filter(email="new@example.com").exists()
    assert not Profile.objects.exists()


@pytest.mark.django_db
def test_renaming_to_one_on_the_profile_page_changes_nothing(client, make_user, chinese):
    user = make_user("阿博")
    client.force_login(user)
    for name in ["神的信使", "墓地公告"]:
        response = client.post(reverse("profile"), {
            "display_name": name, "timezone": "Europe/Berlin", "language": "zh-hans",
            "reminder_hours": "6,1"})
        assert response.status_code == 200
        assert response.context["form"].errors["display_name"]
    profile = Profile.objects.get(user=user)
    assert profile.display_name == "阿博"
    assert profile.timezone != "Europe/Berlin"  # the rest of the form was not saved either
