"""Dates and times out of range: every form and query string that takes a date or a date and
time refuses one before FIRST_DATE or after LAST_DATE (config/inputs.py, rule 5) with a
readable sentence (a 400 page or a form error), never a 500, and stores nothing.

The probe's values: 0001-01-01 and 9999-12-31 (the ends of Python's dates: "to 9999-12-31"
reaches one day further, 0001-01-01 east of UTC is a year before 1 in UTC), and
9999-12-31T23:59 read by someone west of UTC (America/Los_Angeles: year 10000 in UTC).

The inputs are found, not listed from memory: a test scans the templates and the code for
date inputs and date parsers and fails on one this file does not exercise; the admin's
model forms are walked through the admin site's registry.
"""

from __future__ import annotations

import datetime as dt
import re
from html import unescape
from pathlib import Path

import pytest
from django import forms
from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone

from config.inputs import (
    FIRST_DATE,
    LAST_DATE,
    InputError,
    check_date_range,
    parse_date,
    parse_datetime,
)
from games.models import Award, Phase
from tests.factories.toy import finish

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "response_context")]

WEST = "America/Los_Angeles"
EAST = "Asia/Shanghai"
BAD_DATES = ["0001-01-01", "9999-12-31", "1899-12-31", "3000-01-01"]
BAD_DATETIMES = [
    "0001-01-01T00:00",
    "9999-12-31T23:59",
    "9999-12-31T00:00",
    "1899-12-31T23:59",
    "3000-01-01T00:00",
]
REFUSAL = "必须在 1900-01-01 到 2999-12-31 之间"  # the Chinese sentence, with the range

# Every place that reads a date, by where it lives; each has its test below.
COVERED = {
    "templates/games/archive.html": {"from", "to"},  # GET /games/archive/
    "templates/games/awards.html": {"vote_until"},  # POST the awards form
    "games/web/archive.py": {"parse_date"},
    "games/web/awards.py": {"parse_datetime"},
    "games/admin/rollback.py": {"DateTimeField"},  # the undo page's new deadline
}


# --- the parser ----------------------------------------------------------------------------


@pytest.mark.parametrize("raw", BAD_DATES)
def test_parse_date_refuses_dates_out_of_range(raw):
    with pytest.raises(InputError) as refused:
        parse_date(raw, field="from")
    assert FIRST_DATE.isoformat() in refused.value.message
    assert LAST_DATE.isoformat() in refused.value.message


@pytest.mark.parametrize("zone", [WEST, EAST, "Pacific/Kiritimati", "Etc/GMT+12", "UTC"])
@pytest.mark.parametrize("raw", BAD_DATETIMES)
def test_parse_datetime_refuses_out_of_range_in_every_zone(raw, zone):
    with pytest.raises(InputError):
        parse_datetime(raw, field="deadline", tz=zone)


@pytest.mark.parametrize("zone", [WEST, EAST, "Pacific/Kiritimati", "Etc/GMT+12"])
def test_the_ends_of_the_range_are_read_in_every_zone(zone):
    first = parse_datetime(f"{FIRST_DATE}T00:00", field="deadline", tz=zone)
    last = parse_datetime(f"{LAST_DATE}T23:59", field="deadline", tz=zone)
    assert first.astimezone(dt.UTC).year >= 1899 and last.astimezone(dt.UTC).year <= 3000
    assert parse_date(FIRST_DATE.isoformat(), field="from") == FIRST_DATE
    assert check_date_range(LAST_DATE, field="to") == LAST_DATE


# --- every date input is one of those tested here ------------------------------------------


def test_every_date_input_of_the_site_is_covered_here():
    base = Path(settings.BASE_DIR)
    found: dict[str, set[str]] = {}
    for path in (base / "templates").rglob("*.html"):
        for tag in re.findall(r"<input[^>]*>", path.read_text()):
            if re.search(r'type="(date|datetime-local|datetime|month|week)"', tag):
                name = re.search(r'name="([^"]+)"', tag)
                found.setdefault(str(path.relative_to(base)), set()).add(
                    name.group(1) if name else "?"
                )
    readers = re.compile(
        r"\b(parse_date|parse_datetime|DateTimeField|DateField|"
        r"SplitDateTimeField|fromisoformat|strptime)\("
    )
    for folder in ("accounts", "config", "games", "messaging"):
        for path in (base / folder).rglob("*.py"):
            rel = str(path.relative_to(base))
            if (
                "/migrations/" in rel
                or rel in ("config/inputs.py",)
                or "/models/" in rel
                or rel.endswith("models.py")
            ):
                continue
            for call in readers.findall(path.read_text()):
                found.setdefault(rel, set()).add(call)
    # games/reminders.py reads back the ISO timestamps it wrote itself (never a person's input)
    found.pop("games/reminders.py", None)
    assert found == COVERED


# --- GET /games/archive/ -------------------------------------------------------------------


@pytest.mark.parametrize("zone", [EAST, WEST])
@pytest.mark.parametrize("param", ["from", "to"])
@pytest.mark.parametrize("raw", BAD_DATES)
def test_the_archive_filter_refuses_a_date_out_of_range(
    client, make_user, chinese, game, raw, param, zone
):
    finish(game)
    response = client.get(reverse("game-archive"), {param: raw})
    assert response.status_code == 400
    assert REFUSAL in unescape(response.content.decode())
    client.force_login(make_user("读者", timezone=zone))
    response = client.get(reverse("game-archive"), {param: raw})
    assert response.status_code == 400


def test_the_archive_filter_still_reads_dates_in_range(client, game):
    finish(game)
    response = client.get(
        reverse("game-archive"), {"from": FIRST_DATE.isoformat(), "to": LAST_DATE.isoformat()}
    )
    assert response.status_code == 200
    assert (
        f'data-game="{game.pk}"' in response.content.decode()
        or game.name in response.content.decode()
    )


# --- POST the awards form ------------------------------------------------------------------


@pytest.mark.parametrize("zone", [WEST, EAST])
@pytest.mark.parametrize("raw", BAD_DATETIMES)
def test_the_award_deadline_refuses_a_time_out_of_range(
    client, chinese, game, gm, players, raw, zone
):
    over = finish(game)
    gm.profile.timezone = zone
    gm.profile.save()
    client.force_login(gm)
    response = client.post(
        reverse("game-award-post", args=[over.pk]),
        {
            "do": "nominate",
            "kind": Award.Kind.MVP_CIVILIAN,
            "nominee": players[0].pk,
            "vote_until": raw,
        },
        follow=True,
    )
    assert response.status_code == 200
    assert REFUSAL in unescape(response.content.decode())
    assert not Award.objects.exists()


# --- the admin: the undo page's deadline and every model form with a date ------------------


@pytest.mark.parametrize("raw", BAD_DATETIMES)
def test_the_rollback_deadline_refuses_a_time_out_of_range(client, chinese, game, gm, raw):
    from tests.web.test_rollback_admin import confirm_data, kill, stored, url

    gm.profile.timezone = WEST
    gm.profile.save()
    kill(game)
    before = stored(game)
    client.force_login(gm)
    data = confirm_data(game)
    data["deadline"] = raw
    response = client.post(url(game), data)
    assert response.status_code == 400  # the confirm page again, with the form's error
    assert "日期必须在 1900-01-01 到 2999-12-31 之间" in unescape(response.content.decode())
    assert stored(game) == before


def _model_admins():
    return [
        admin.site.get_model_admin(model)
        for model in apps.get_models()
        if admin.site.is_registered(model)
    ]


def _admin_forms(user):
    """(model admin, form class, date fields) for every model form of the admin site that
    a superuser may submit (the add form, and the change form of a stored row) and that
    holds a date or datetime field."""
    request = RequestFactory().get("/admin/")
    request.user = user
    for model_admin in _model_admins():
        stored = model_admin.model._default_manager.first()
        for obj, allowed in (
            (None, model_admin.has_add_permission(request)),
            (stored, stored is not None and model_admin.has_change_permission(request, stored)),
        ):
            if not allowed:
                continue
            form = model_admin.get_form(request, obj)
            dates = [
                name
                for name, field in form.base_fields.items()
                if isinstance(
                    field, forms.DateField | forms.DateTimeField | forms.SplitDateTimeField
                )
            ]
            if dates:
                yield model_admin, form, dates


def _split(value: str) -> tuple[str, str]:
    day, _sep, clock = value.partition("T")
    return day, clock or "00:00"


@pytest.mark.parametrize("zone", [WEST, EAST])
def test_every_admin_model_form_refuses_dates_out_of_range(make_user, game, zone):
    superuser = make_user("站长", staff=True)
    walked = []
    with timezone.override(zone):
        for model_admin, form_class, dates in _admin_forms(superuser):
            walked.append(model_admin.model.__name__)
            for raw in BAD_DATETIMES:
                data = {}
                for name in dates:
                    field = form_class.base_fields[name]
                    if isinstance(field, forms.SplitDateTimeField):
                        data[f"{name}_0"], data[f"{name}_1"] = _split(raw)
                    elif isinstance(field, forms.DateTimeField):
                        data[name] = raw.replace("T", " ")
                    else:
                        data[name] = _split(raw)[0]
                form = form_class(data=data)
                form.is_valid()
                for name in dates:
                    assert name in form.errors, (model_admin, name, raw)
    assert {"Phase", "Seat", "Announcement", "User"} <= set(walked)


def test_saving_a_phase_in_the_admin_with_an_overflowing_deadline_is_a_form_error(
    client, make_user, game
):
    superuser = make_user("站长", staff=True, timezone=WEST)
    client.force_login(superuser)
    phase = Phase.objects.filter(game=game).first()
    before = Phase.objects.filter(pk=phase.pk).values_list("deadline", flat=True).get()
    page = client.get(reverse("admin:games_phase_change", args=[phase.pk]))
    assert page.status_code == 200
    form = page.context["adminform"].form
    data = {}
    for name, field in form.fields.items():
        value = form[name].value()
        if isinstance(field, forms.SplitDateTimeField):
            local = timezone.localtime(value) if value else None
            data[f"{name}_0"] = local.strftime("%Y-%m-%d") if local else ""
            data[f"{name}_1"] = local.strftime("%H:%M:%S") if local else ""
        elif value is not None:
            data[name] = value
    data["deadline_0"], data["deadline_1"] = "9999-12-31", "23:59:00"
    response = client.post(reverse("admin:games_phase_change", args=[phase.pk]), data)
    assert response.status_code == 200  # the form again, with the error
    assert response.context["adminform"].form.errors.get("deadline")
    assert Phase.objects.filter(pk=phase.pk).values_list("deadline", flat=True).get() == before
    assert client.get(reverse("admin:games_phase_changelist")).status_code == 200


@pytest.mark.parametrize(
    "query",
    [
        {"created_at__year": "9999"},
        {"created_at__year": "0"},
        {"created_at__year": "1"},
        {"created_at__year": "99999999999999999999"},
        {"created_at__year": "２０２６"},
        {"created_at__year": "9999", "created_at__month": "12", "created_at__day": "31"},
        {"published_at__gte": "9999-12-31", "published_at__lt": "10000-01-01"},
        {"published_at__gte": "0001-01-01"},
        {"published_at__gte": "9999-12-31 23:59:59"},
    ],
)
def test_admin_date_filters_never_give_a_server_error(client, make_user, chinese, query):
    """The admin lists' date filters: a date hierarchy's year out of range is a 400 with
    the sentence; Django's own date list_filter refuses a bad value by itself (a redirect to
    the unfiltered list)."""
    client.force_login(make_user("站长", staff=True, timezone=WEST))
    request = RequestFactory().get("/admin/")
    request.user = make_user("另一位站长", staff=True)
    tried = 0
    for model_admin in _model_admins():
        model = model_admin.model
        fields = {model_admin.date_hierarchy} | {
            f for f in model_admin.list_filter if isinstance(f, str)
        }
        if not any(key.split("__")[0] in fields for key in query):
            continue
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        response = client.get(url, query)
        tried += 1
        assert response.status_code in (200, 302, 400), (url, query, response.status_code)
        if response.status_code == 400:
            assert "年份" in unescape(response.content.decode())
    assert tried


def test_a_year_in_range_still_filters_the_admin_lists(client, make_user):
    client.force_login(make_user("站长", staff=True))
    for name in ("thread", "post", "message"):
        url = reverse(f"admin:messaging_{name}_changelist")
        assert client.get(url, {"created_at__year": str(LAST_DATE.year)}).status_code == 200
        assert (
            client.get(
                url, {"created_at__year": str(FIRST_DATE.year), "created_at__month": "1"}
            ).status_code
            == 200
        )
