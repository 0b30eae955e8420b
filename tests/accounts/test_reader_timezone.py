"""Times in the reader's zone: the zone named once per page (the footer), each time as a
plain local `<time datetime>`, the zone asked of the browser once (accounts.views.
set_timezone) unless the reader chose one, and a picker of offsets and places in Chinese."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.urls import reverse

from accounts import timezones
from accounts.models import Profile
from messaging import services
from messaging.models import Post, Thread
from tests.conftest import clear_cache

pytestmark = pytest.mark.django_db

WRITTEN = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)  # 07:00 New York, 20:00 Shanghai


@pytest.fixture
def thread(make_user):
    author = make_user("阿丽")
    board = services.lobby_board()
    thread = services.start_thread(
        board=board,
        author=author,
        kind=Thread.Kind.DISCUSSION,
        title="五十一个时间",
        body="一楼",
        enforce_rate_limit=False,
    )
    Post.objects.bulk_create(
        Post(thread=thread, number=i, author=author, body="x", html="<p>x</p>")
        for i in range(2, 52)
    )
    Post.objects.filter(thread=thread).update(created_at=WRITTEN)
    Thread.objects.filter(pk=thread.pk).update(last_number=51, post_count=51)
    clear_cache()
    thread.refresh_from_db()
    return thread


def visible(html: str) -> str:
    """The page's text without its tags (attributes such as data-timezone left out)."""
    return re.sub(r"<[^>]+>", " ", html)


def test_a_thread_page_names_the_zone_once_in_the_footer(client, make_user, thread):
    reader = make_user("阿博", timezone="America/New_York")
    client.force_login(reader)
    html = client.get(thread.get_absolute_url()).content.decode()
    text = visible(html)
    assert text.count("America/New_York") == 0
    assert text.count("纽约") == 1
    footer = html[html.index('id="site-footer"') :]
    assert "UTC-05:00 美国（纽约）" in footer
    assert (
        html.count('<time datetime="2026-01-01T12:00:00Z">2026-01-01 07:00</time>') == 50
    )  # page 1


def test_two_readers_in_two_zones_see_their_own_times_on_the_same_page(client, make_user, thread):
    east = make_user("上海人", timezone="Asia/Shanghai")
    west = make_user("纽约人", timezone="America/New_York")
    for _ in range(2):  # the second round reads the kept blocks
        client.force_login(east)
        html = client.get(thread.get_absolute_url()).content.decode()
        assert "2026-01-01 20:00" in html and "2026-01-01 07:00" not in html
        assert "UTC+08:00 中国（上海）" in html
        client.force_login(west)
        html = client.get(thread.get_absolute_url()).content.decode()
        assert "2026-01-01 07:00" in html and "2026-01-01 20:00" not in html
        assert "UTC-05:00 美国（纽约）" in html


def test_readers_not_signed_in_see_the_zone_their_browser_reported(client, thread):
    url = thread.get_absolute_url()
    assert "2026-01-01 20:00" in client.get(url).content.decode()  # the site's default
    response = client.post(reverse("profile-timezone"), {"timezone": "America/New_York"})
    assert response.status_code == 200 and response.json()["changed"] is True
    assert response.cookies["tz"].value == "America/New_York"
    html = client.get(url).content.decode()  # the page kept for anonymous readers: per zone
    assert "2026-01-01 07:00" in html and "2026-01-01 20:00" not in html
    client.cookies.pop("tz")
    assert "2026-01-01 20:00" in client.get(url).content.decode()


def test_the_browser_sets_the_zone_once_and_never_over_a_choice(client, make_user):
    user = make_user("阿狗")
    client.force_login(user)
    page = client.get(reverse("profile")).content.decode()
    assert 'data-timezone-ask="ask"' in page
    answer = client.post(reverse("profile-timezone"), {"timezone": "Europe/Paris"}).json()
    assert answer == {"timezone": "Europe/Paris", "changed": True}
    user.profile.refresh_from_db()
    assert (user.profile.timezone, user.profile.timezone_origin) == ("Europe/Paris", "browser")
    assert 'data-timezone-ask=""' in client.get(reverse("profile")).content.decode()
    # Asked once: another browser's report changes nothing.
    client.post(reverse("profile-timezone"), {"timezone": "Asia/Tokyo"})
    user.profile.refresh_from_db()
    assert user.profile.timezone == "Europe/Paris"


def test_a_zone_chosen_on_the_profile_stays(client, make_user):
    user = make_user("阿狗")
    client.force_login(user)
    data = {
        "display_name": "阿狗",
        "timezone": "America/New_York",
        "language": "zh-hans",
        "reminder_hours": "6,1",
    }
    assert client.post(reverse("profile"), data).status_code == 302
    user.profile.refresh_from_db()
    assert user.profile.timezone_origin == "chosen"
    answer = client.post(reverse("profile-timezone"), {"timezone": "Asia/Tokyo"}).json()
    assert answer == {"timezone": "America/New_York", "changed": False}
    user.profile.refresh_from_db()
    assert user.profile.timezone == "America/New_York"


@pytest.mark.parametrize("value", ["Mars/Olympus", "", "Asia/Shanghai" * 10, "../etc"])
def test_an_unknown_zone_is_refused_in_chinese_and_changes_nothing(client, make_user, value):
    user = make_user("阿狗")
    client.force_login(user)
    response = client.post(reverse("profile-timezone"), {"timezone": value})
    assert response.status_code == 400
    assert response.json()["error"] == "未知的时区。"
    user.profile.refresh_from_db()
    assert (user.profile.timezone, user.profile.timezone_origin) == ("Asia/Shanghai", "")
    client.logout()
    response = client.post(reverse("profile-timezone"), {"timezone": value})
    assert response.status_code == 400 and "tz" not in response.cookies


def test_the_zone_is_set_only_by_a_post_with_the_csrf_token(make_user):
    from django.test import Client

    user = make_user("阿狗")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.get(reverse("profile-timezone"), {"timezone": "Asia/Tokyo"}).status_code == 405
    assert client.post(reverse("profile-timezone"), {"timezone": "Asia/Tokyo"}).status_code == 403
    user.profile.refresh_from_db()
    assert user.profile.timezone == "Asia/Shanghai"


def test_the_picker_lists_offsets_and_places_in_chinese_grouped_and_sorted(client, make_user):
    user = make_user("阿狗")
    client.force_login(user)
    html = client.get(reverse("profile")).content.decode()
    select = html[
        html.index('name="timezone"') : html.index("</select>", html.index('name="timezone"'))
    ]
    assert '<option value="Asia/Shanghai" selected>UTC+08:00 中国（上海）</option>' in select
    assert "UTC-05:00 美国（纽约）" in select or "UTC-04:00 美国（纽约）" in select
    assert '<optgroup label="常用时区">' in select and '<optgroup label="欧洲">' in select
    # Every option shows an offset and a place, never a bare IANA name; no alias is offered.
    labels = re.findall(r'<option value="([^"]+)"[^>]*>([^<]+)</option>', select)
    assert 400 < len(labels) < 500
    assert all(re.fullmatch(r"UTC[+-]\d\d:\d\d \S.*", text) for _v, text in labels)
    assert not any("/" in text for _v, text in labels)
    values = [v for v, _t in labels]
    assert "PRC" not in values and "US/Eastern" not in values and "Etc/GMT+5" not in values
    # Each group runs from west to east.
    for group in re.findall(r"<optgroup[^>]*>(.*?)</optgroup>", select, re.S):
        offsets = [timezones.offset(v) for v in re.findall(r'value="([^"]+)"', group)]
        minutes = [int(o[3] + "1") * (int(o[4:6]) * 60 + int(o[7:9])) for o in offsets]
        assert minutes == sorted(minutes)


def test_a_stored_alias_is_still_shown_and_kept(client, make_user):
    user = make_user("阿狗", timezone="PRC")
    client.force_login(user)
    html = client.get(reverse("profile")).content.decode()
    assert '<option value="PRC" selected>UTC+08:00 中国（上海）</option>' in html
    Profile.objects.filter(user=user).update(timezone_origin="chosen")
    data = {
        "display_name": "阿狗",
        "timezone": "PRC",
        "language": "zh-hans",
        "reminder_hours": "6,1",
    }
    assert client.post(reverse("profile"), data).status_code == 302
    user.profile.refresh_from_db()
    assert user.profile.timezone == "PRC"
