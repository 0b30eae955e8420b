"""One parser for integers, choices, steps and dates (config/inputs.py), and
the probe's exact requests on the forum and account pages: a 400 with a message, never a 500,
nothing stored."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse

from config.inputs import (
    MAX_JSON_DEPTH,
    InputError,
    parse_choice,
    parse_date,
    parse_datetime,
    parse_int,
    parse_json,
    parse_page,
    parse_step,
)
from messaging import services
from messaging.models import Post, Thread

pytestmark = pytest.mark.usefixtures("response_context")

UNICODE_DIGITS = ["²", "１", "٣", "৩", "๓", "1²", "Ⅻ"]
NOT_INTEGERS = UNICODE_DIGITS + ["1.0", "1e3", " ", "+1", "0x10", "1_000", "9" * 13,
                                 "--1", "\x00", "一"]


@pytest.mark.parametrize("raw", NOT_INTEGERS)
def test_parse_int_takes_ascii_digits_only(raw):
    if raw.strip() == "":
        assert parse_int(raw, field="n", default=None) is None
        return
    with pytest.raises(InputError) as refused:
        parse_int(raw, field="n")
    assert "n" in str(refused.value.message)


def test_parse_int_reads_what_our_forms_send():
    assert parse_int("12", field="n") == 12
    assert parse_int("-3", field="n") == -3
    assert parse_int(" 7 ", field="n") == 7
    assert parse_int("9" * 12, field="n") == int("9" * 12)
    with pytest.raises(InputError):
        parse_int("0", field="n", minimum=1)
    with pytest.raises(InputError):
        parse_int(None, field="n")


def test_parse_choice_is_exact():
    assert parse_choice("vote", field="kind", choices=["vote", "runoff_vote"]) == "vote"
    for raw in ("Vote", "vote ", "vote\x00", "x" * 300):
        with pytest.raises(InputError):
            parse_choice(raw, field="kind", choices=["vote"])


def test_parse_page_is_lenient():
    assert parse_page("3") == 3 and parse_page("last") == "last"
    assert [parse_page(raw) for raw in ("²", "１", "9" * 40, "-1", "", None)] == [None] * 6


@pytest.mark.parametrize("raw", ["[" * 50_000, "{\"a\":" * 5_000, "[" * (MAX_JSON_DEPTH + 1)
                                 + "]" * (MAX_JSON_DEPTH + 1)])
def test_deep_json_is_refused_without_recursion(raw):
    with pytest.raises(InputError):
        parse_json(raw, field="choice")


@pytest.mark.parametrize("raw", ['{"kind": "vote", "params": {"target": NaN}}',
                                 '{"kind": "vote", "params": {"target": Infinity}}',
                                 '{"kind": "vote", "params": {"target": ' + "9" * 5000 + "}}",
                                 '{"kind": "vote", "params": {"t": "' + "x" * 20_000 + '"}}'])
def test_json_constants_huge_numbers_and_huge_documents_are_refused(raw):
    with pytest.raises(InputError):
        parse_step(raw)


def test_a_step_is_kind_and_params_only():
    assert parse_step('{"kind": "vote", "params": {"target": 3}}') == ("vote", {"target": 3})
    for raw in ['{"kind": "vote", "params": {"actor": 1}}',       # the probe's TypeError
                '{"kind": "vote", "params": {"kind": "pass"}}',
                '{"kind": "vote", "params": {}, "actor": 2}',     # unknown top-level field
                '{"kind": "vote"}', '{"kind": 3, "params": {}}', '{"kind": "", "params": {}}',
                '{"kind": "vote", "params": []}', '["vote", {}]', '"vote"', "null",
                '{"kind": "vote", "params": {"' + "k" * 41 + '": 1}}']:
        with pytest.raises(InputError):
            parse_step(raw)


def test_dates_must_exist():
    for raw in ("2026-13-45T99:99", "2026-02-30T10:00", "2026-12-01T24:00", "２０２６-12-01T10:00",
                "2026-12-01", "tomorrow"):
        with pytest.raises(InputError):
            parse_datetime(raw, field="deadline", tz="Asia/Shanghai")
    when = parse_datetime("2026-12-01T21:30", field="deadline", tz="Asia/Shanghai")
    assert when == dt.datetime(2026, 12, 1, 13, 30, tzinfo=dt.UTC)
    assert parse_date("2026-12-01", field="day") == dt.date(2026, 12, 1)
    with pytest.raises(InputError):
        parse_date("2026-13-45", field="day")


def test_a_wall_time_on_a_clock_change_is_refused():
    berlin = ZoneInfo("Europe/Berlin")
    with pytest.raises(InputError):  # skipped: 02:30 does not exist on 2026-03-29
        parse_datetime("2026-03-29T02:30", field="deadline", tz=berlin)
    with pytest.raises(InputError):  # repeated: 02:30 happens twice on 2026-10-25
        parse_datetime("2026-10-25T02:30", field="deadline", tz=berlin)


# --- the pages -------------------------------------------------------------------------------

@pytest.fixture
def thread(db, make_user):
    author = make_user("阿丽")
    return services.start_thread(board=services.lobby_board(), author=author,
                                 kind=Thread.Kind.DISCUSSION, title="大家好", body="第一帖")


@pytest.mark.django_db
@pytest.mark.parametrize("quote", UNICODE_DIGITS + ["9" * 40, "-1", "0", "abc"])
@pytest.mark.parametrize("signed_in", [False, True])
def test_a_quote_that_is_not_a_number_is_a_400_for_anyone(client, thread, quote, signed_in,
                                                          make_user):
    if signed_in:
        client.force_login(make_user("阿博"))
    response = client.get(reverse("messaging-thread", args=[thread.pk]), {"quote": quote},
                          HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    assert "quote" in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("page", UNICODE_DIGITS + ["9" * 40])
def test_an_unreadable_page_number_shows_the_first_page(client, thread, page):
    response = client.get(reverse("messaging-thread", args=[thread.pk]), {"page": page})
    assert response.status_code == 200 and "第一帖" in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("quote", ["²", "１", "٣", "9" * 40])
def test_a_reply_quoting_a_unicode_digit_is_refused_and_stores_nothing(client, thread, quote,
                                                                      make_user):
    client.force_login(make_user("阿博"))
    response = client.post(reverse("messaging-reply", args=[thread.pk]),
                           {"body": "回复", "quote": quote})
    assert response.status_code == 400
    assert Post.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("hours", ["²", "１,2", "٣"])
def test_reminder_hours_in_unicode_digits_are_refused(client, make_user, hours):
    from accounts.models import Profile

    user = make_user("阿博")
    client.force_login(user)
    before = Profile.objects.get(user=user).reminder_hours
    response = client.post(reverse("profile"), {
        "display_name": "阿博", "timezone": "Asia/Shanghai", "language": "en",
        "reminder_hours": hours})
    assert response.status_code == 200  # the form again, with its message
    assert "reminder_hours" in response.context["form"].errors
    assert Profile.objects.get(user=user).reminder_hours == before
