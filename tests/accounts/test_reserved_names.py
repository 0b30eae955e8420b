"""Official-looking display names (accounts/names.py, rule 3): no name may contain a word of
the service, its game masters or its staff (神的使者 and its shortenings, 天神, 法官, 执法团,
官方, 系统, 管理, 版主, 主持, GM, admin, moderator, staff …), compared on the look-alike
skeleton, so width, case, spacing, traditional characters and look-alike letters do not
hide the word. Refused at sign-up and on the profile page with a Chinese sentence; names
taken before stay their owners'."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.urls import reverse

from accounts.forms import validate_display_name
from accounts.models import Profile
from accounts.names import RESERVED_PARTS, RESERVED_WORDS, check_name, reserved_word

pytestmark = pytest.mark.usefixtures("response_context")

PASSWORD = "a-strong-password-42"

# The probe's names, as it sent them.
PROBE = ["系统通知", "官方公告", "执法团成员", "法官1", "神使", "神的使", "主持人", "版主", "GM1"]

# Each reserved word in disguise: width, case, spaces, punctuation, traditional characters,
# look-alike letters from other scripts, the word inside a longer name.
VARIANTS = [
    "ＧＭ",
    "ＧＭ１",
    "gm",
    "Gm2",
    "gM",
    "G M",
    "G.M",
    "G-M-1",
    "小GM",
    "GM小白",
    "阿猫GM",
    "G\u039c",  # Greek capital Mu
    "ADMIN",
    "Ａｄｍｉｎ",
    "admin_2",
    "superadmin",
    "adminXY",
    "a.d.m.i.n",
    "\u0430dmin",
    "Moderator",
    "\u041coderator",
    "MOD",
    "mod 1",
    "Staff",
    "staffer",
    "ＳＴＡＦＦ",
    "\u0455taff",
    "系 统通知",
    "系統通知",
    "官 方",
    "執法團",
    "执法团 成员",
    "法官１",
    "法 官",
    "神·使",
    "神 的 使",
    "我是神的使者",
    "神旳使者",
    "版主大人",
    "主 持 人",
    "天神乙",
    "管理猿",
    "管理组",
    "站长",
    "客服小美",
    "裁判",
    "Root",
    "sysop",
]

ORDINARY = [
    "阿猫",
    "阿狗",
    "小白",
    "老黑",
    "花花",
    "alice",
    "bob",
    "Tom",
    "九命猫",
    "Ana",
    "Sigmund",
    "badminton",
    "Modesty",
    "gmail",
    "管家",
    "主人",
    "持久",
    "法国人",
    "Rooted",
    "大黄",
]


def signup(client, name, email="new@example.com"):
    return client.post(
        reverse("account_signup"),
        {"email": email, "password1": PASSWORD, "password2": PASSWORD, "display_name": name},
    )


@pytest.mark.parametrize("name", PROBE + VARIANTS + RESERVED_PARTS + RESERVED_WORDS)
def test_a_name_containing_a_reserved_word_is_refused(name):
    with pytest.raises(ValidationError):
        check_name(name)


@pytest.mark.parametrize("name", PROBE + ["ＧＭ", "执法团 成员", "系統通知", "G M"])
def test_the_word_found_is_named_in_the_refusal(name):
    word = reserved_word(name)
    assert word is not None
    with pytest.raises(ValidationError) as refused:
        check_name(name)
    assert word in refused.value.messages[0]


@pytest.mark.parametrize("name", ORDINARY)
def test_ordinary_names_are_not_reserved(name):
    assert reserved_word(name) is None
    assert check_name(name) == name


@pytest.mark.parametrize("name", ["神\u200b使", "G\u200bM", "管\u2060理员"])
def test_a_word_split_by_an_invisible_character_is_refused_too(name):
    with pytest.raises(ValidationError):
        check_name(name)
    assert reserved_word(name) is not None  # even before the invisible character is refused


@pytest.mark.django_db
@pytest.mark.parametrize("name", PROBE)
def test_the_probes_names_cannot_sign_up(client, chinese, name):
    response = signup(client, name)
    assert response.status_code == 200  # the form again, with its message
    errors = " ".join(response.context["form"].errors["display_name"])
    assert "昵称不能包含" in errors
    assert not get_user_model().objects.filter(email="new@example.com").exists()
    assert not Profile.objects.exists()


@pytest.mark.django_db
def test_renaming_to_a_reserved_name_on_the_profile_page_is_refused(client, make_user):
    user = make_user("阿博")
    client.force_login(user)
    for name in ["GM1", "官方公告", "ＡＤＭＩＮ"]:
        response = client.post(
            reverse("profile"),
            {
                "display_name": name,
                "timezone": "Asia/Shanghai",
                "language": "zh-hans",
                "reminder_hours": "6,1",
            },
        )
        assert response.status_code == 200 and response.context["form"].errors["display_name"]
    assert Profile.objects.get(user=user).display_name == "阿博"


@pytest.mark.django_db
def test_a_name_taken_before_stays_its_owners(client, make_user):
    """Existing users are not renamed: one named 主持人 before the word was reserved keeps
    the name and can still save the rest of the profile, but nobody can take it anew."""
    user = make_user("主持人")
    client.force_login(user)
    response = client.post(
        reverse("profile"),
        {
            "display_name": "主持人",
            "timezone": "Europe/Berlin",
            "language": "zh-hans",
            "reminder_hours": "6,1",
        },
    )
    assert response.status_code == 302
    profile = Profile.objects.get(user=user)
    assert profile.display_name == "主持人" and profile.timezone == "Europe/Berlin"
    with pytest.raises(ValidationError):
        validate_display_name("主持人2")
