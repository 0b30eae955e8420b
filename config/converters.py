"""The one path converter for ids in URLs: `<id:pk>`.

Django's `<int:...>` matches any run of digits, so `/games/9223372036854775808/` reached
the view with a number no id column can hold (PostgreSQL's bigint ends at 2**63-1) and the
database's overflow surfaced as a 500. `id` matches 1 .. 2**63-1 written canonically (no
sign, no leading zero, ASCII digits only); anything else does not match the pattern, so
the URL is a 404 like any other address that names nothing.

Registered once, when the root URLconf imports this module (config/urls.py), before any
app's patterns are built; every pattern with an integer id in games/, messaging/,
accounts/ and the console uses it (tests/web/test_out_of_range_ids.py walks the resolver
and refuses a plain `<int:...>`).
"""

from __future__ import annotations

from django.urls import register_converter

MAX_ID = 2**63 - 1  # the largest value of a bigint (BigAutoField) column


class IdConverter:
    """A database id: 1 .. MAX_ID."""

    regex = "[1-9][0-9]{0,18}"  # at most 19 digits; the bound itself is checked below

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > MAX_ID:
            raise ValueError(value)  # Django reads a ValueError as "this pattern does not match"
        return number

    def to_url(self, value) -> str:
        return str(int(value))


register_converter(IdConverter, "id")
