"""Ids in URLs: every pattern with an integer id takes it through one converter
(config/converters.py, `<id:...>`), which matches 1 .. 2**63-1 only, the range of the
database's id columns. A bigger id is a 404 on every page, never a 500 from the database
(an id of 2**63 overflowed PostgreSQL's bigint and the home page of a game answered 500).

The URLs are not listed by hand: the test walks the resolver, so a new pattern is covered
the day it is added, and a pattern that still uses Django's `<int:...>` fails it."""

from __future__ import annotations

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.converters import IntConverter

from config.converters import MAX_ID, IdConverter

pytestmark = pytest.mark.django_db

TOO_BIG = [2**63, 2**64, 10**30]


def _patterns(resolvers=None, prefix=""):
    """(route text, URLPattern) for every pattern reachable from the root URLconf."""
    for entry in resolvers if resolvers is not None else get_resolver().url_patterns:
        if isinstance(entry, URLResolver):
            yield from _patterns(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry


def _id_routes():
    """Every route (as text) of the URLconf with at least one `<id:...>` part."""
    return sorted({route for route, _entry in _patterns() if "<id:" in route})


def _fill(route: str, value: int) -> str:
    """The route with every id part set to `value` and every other part to a plain word."""

    def part(match):
        converter = match.group(1) or "str"
        return str(value) if converter == "id" else "x"

    return "/" + re.sub(r"<(?:(\w+):)?\w+>", part, route)


def test_no_url_pattern_takes_a_plain_int():
    """Django's `<int:...>` matches any number of digits, 2**63 and beyond included."""
    plain = []
    for route, entry in _patterns():
        if any(isinstance(c, IntConverter) for c in entry.pattern.converters.values()):
            plain.append(route)
    assert plain == []


def test_the_walk_finds_the_id_pages_of_every_app():
    routes = _id_routes()
    for expected in (
        "games/<id:pk>/",
        "t/<id:pk>/",
        "p/<id:pk>/edit/",
        "u/<id:pk>/",
        "messenger/<id:pk>/",
        "games/<id:pk>/awards/",
        "notifications/<id:pk>/read/",
    ):
        assert expected in routes
    assert any(route.startswith("admin/") and "console" in route for route in routes)


def test_the_converter_matches_the_database_range_only():
    converter = IdConverter()
    pattern = re.compile(converter.regex)
    assert converter.to_python("1") == 1 and converter.to_python(str(MAX_ID)) == MAX_ID
    assert MAX_ID == 2**63 - 1
    for raw in ("0", "00", "007", "-1", "１", "²", "1.0", ""):
        assert not pattern.fullmatch(raw) or _refuses(converter, raw), raw
    for value in TOO_BIG:
        assert _refuses(converter, str(value))
    assert converter.to_url(42) == "42"


def _refuses(converter, raw) -> bool:
    try:
        converter.to_python(raw)
    except ValueError:
        return True
    return False


@pytest.mark.parametrize("value", TOO_BIG)
def test_every_id_page_is_a_404_for_a_too_big_id_anonymous(client, value):
    seen = []
    for route in _id_routes():
        url = _fill(route, value)
        for method in (client.get, client.post):
            response = method(url)
            seen.append((url, method.__name__, response.status_code))
    wrong = [
        (url, how, code)
        for url, how, code in seen
        if code >= 500 or (code != 404 and not url.startswith("/admin/"))
    ]
    assert wrong == [], "\n".join(map(str, wrong))


@pytest.mark.parametrize("value", TOO_BIG)
def test_every_id_page_is_a_404_for_a_too_big_id_signed_in(client, make_user, value):
    """Signed in as a superuser, so the admin's console pages are reached too: past the
    converter the admin's own fallbacks answer (a 404 or a redirect), never a 500."""
    client.force_login(make_user("站长", staff=True))
    wrong = []
    for route in _id_routes():
        url = _fill(route, value)
        for method in (client.get, client.post):
            code = method(url).status_code
            if code >= 500 or (code != 404 and not url.startswith("/admin/")):
                wrong.append((url, method.__name__, code))
            if url.startswith("/admin/") and code not in (302, 404):
                wrong.append((url, method.__name__, code))
    assert wrong == [], "\n".join(map(str, wrong))


def test_the_largest_id_reaches_the_views_and_names_nothing(client, make_user):
    """2**63-1 still matches: the views answer as for any id that names nothing."""
    client.force_login(make_user("路人"))
    wrong = []
    for route in _id_routes():
        if route.startswith("admin/"):
            continue
        code = client.get(_fill(route, MAX_ID)).status_code
        if code not in (404, 405):  # 405: a form's POST-only address
            wrong.append((route, code))
    assert wrong == []
